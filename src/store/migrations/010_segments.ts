import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Where each content-addressed blob lives in the segment files (src/store/segments.ts). Blobs written before this
  // migration stay files under blobs/<2>/<62> and are read from there (BlobStore falls back to the file).
  if (dialectOf(db) === 'postgres') {
    // Same columns (the segment store itself runs on SQLite only; PostgreSQL keeps the table so the schema is one).
    await db.schema
      .createTable('segment_blobs')
      .addColumn('sha256', 'text', (c) => c.primaryKey())
      .addColumn('segment', 'integer', (c) => c.notNull())
      .addColumn('offset', 'integer', (c) => c.notNull())
      .addColumn('length', 'integer', (c) => c.notNull())
      .execute();
  } else
    await sql`create table segment_blobs (
    sha256 text primary key,
    segment integer not null,
    offset integer not null,
    length integer not null
  ) without rowid`.execute(db);
  await db.schema.createIndex('segment_blobs_segment').on('segment_blobs').columns(['segment', 'offset']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('segment_blobs').execute();
}
