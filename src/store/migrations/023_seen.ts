import { type Kysely, sql } from 'kysely';
import { dialectOf } from '../dialect.ts';

// Issue 29: the read state of a message, as POP3 and IMAP clients set it. `message_rows.flags` is a bit set of the
// IMAP system flags kept per message (src/inboxes/flags.ts: 1 \Seen, 2 \Deleted, 4 \Flagged, 8 \Answered,
// 16 \Draft); the REST message answers show `seen`. The `messages` view is made again with every column the tables
// have at this point (like 012), so columns other migrations added stay in.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('message_rows')
    .addColumn('flags', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await recreateMessagesView(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop view messages`.execute(db);
  await db.schema.alterTable('message_rows').dropColumn('flags').execute();
  await recreateMessagesView(db, false);
}

async function recreateMessagesView(db: Kysely<unknown>, drop = true): Promise<void> {
  const columns = async (table: string) =>
    (dialectOf(db) === 'postgres'
      ? await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table} order by ordinal_position`.execute(db)
      : await sql<{ name: string }>`select name from pragma_table_info(${table}) order by cid`.execute(db)
    ).rows.map((r) => r.name);
  const rowCols = (await columns('message_rows')).filter((c) => c !== 'content_sha256');
  const contentCols = (await columns('contents')).filter((c) => c !== 'sha256' && !rowCols.includes(c));
  const select = [
    ...rowCols.map((c) => sql`m.${sql.ref(c)}`),
    sql`m.content_sha256 as raw_sha256`,
    ...contentCols.map((c) => sql`c.${sql.ref(c)}`),
  ];
  if (drop) await sql`drop view messages`.execute(db);
  await sql`create view messages as select ${sql.join(select)} from message_rows m join contents c on c.sha256 = m.content_sha256`.execute(
    db,
  );
}
