// Whether a secret is anywhere in what a test server stored: the SQLite files (database, WAL) byte for byte, or on
// PostgreSQL every row of every table of its schema read as text (bytea as hex), so "never stored in the clear"
// checks mean the same on both engines instead of passing vacuously where there is no inboxd.db.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { TestServer } from './server.ts';

export async function storedIncludes(s: TestServer, secret: string): Promise<boolean> {
  const store = s.server.parts.store;
  if (store.dialect === 'sqlite') {
    return fs
      .readdirSync(s.dataDir)
      .filter((n) => n.startsWith('inboxd.db'))
      .some((f) => fs.readFileSync(path.join(s.dataDir, f)).includes(secret));
  }
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(store.db);
  const hex = Buffer.from(secret).toString('hex');
  for (const { name } of tables.rows) {
    const hit = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.table(name)} t
      where strpos(t::text, ${secret}) > 0 or strpos(t::text, ${hex}) > 0`.execute(store.db);
    if ((hit.rows[0]?.n ?? 0) > 0) return true;
  }
  return false;
}
