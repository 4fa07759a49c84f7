import { sql, type Kysely } from 'kysely';

/** The host:port a delivery goes to; kept in step with targetHost in ../deliveries.ts (a migration never changes). */
function hostOf(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.hostname.replace(/\.$/, '')}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
  } catch {
    return raw;
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // The retention sweep deletes audit events older than a cut-off across all teams: an index on `at` alone keeps
  // that a range scan instead of a pass over the whole table.
  await db.schema.createIndex('audit_events_at').ifNotExists().on('audit_events').column('at').execute();

  // Callback concurrency is limited per receiving host, not per URL, and the queue query leaves out full hosts:
  // so the host is a column. Pending rows get it now; finished rows never need it.
  await db.schema.alterTable('callback_deliveries').addColumn('target_host', 'text').execute();
  const pending = await sql<{ id: string; url: string }>`select id, url from callback_deliveries where next_attempt_at is not null`.execute(
    db,
  );
  for (const r of pending.rows) await sql`update callback_deliveries set target_host = ${hostOf(r.url)} where id = ${r.id}`.execute(db);
}
