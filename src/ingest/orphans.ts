// Content and blobs nothing references any more, left by a stop between deleting messages and collecting what they
// used (the two are separate steps of the write queue; a crash or kill -9 can land between them). Found by walking
// the contents and the segment index once at start, in small steps, and handed to the writer's collector, which
// checks again under the write queue before removing anything (so mail arriving meanwhile is never touched).
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { IngestWriter } from './writer.ts';

const STEP = 1000;

export interface OrphanSweepResult {
  contentsChecked: number;
  blobsChecked: number;
  /** Shas handed to the collector (contents without messages, blobs without contents or attachments). */
  candidates: number;
  /** Blobs removed by the collector. */
  blobsRemoved: number;
}

/**
 * Stops early (between steps) when `signal` aborts: the next start walks again. `ownIndex`: the segment index when it
 * is not in `db` (blobs/index.db beside PostgreSQL), whose rows a crash before a batch's COMMIT can leave unreferenced.
 */
export async function sweepOrphans(
  db: Kysely<Database>,
  writer: IngestWriter,
  signal?: AbortSignal,
  ownIndex?: BetterSqlite3.Database,
): Promise<OrphanSweepResult> {
  const out: OrphanSweepResult = { contentsChecked: 0, blobsChecked: 0, candidates: 0, blobsRemoved: 0 };
  let after = '';
  for (; !signal?.aborted; ) {
    const rows = await db
      .selectFrom('contents')
      .select(['sha256'])
      .select((eb) =>
        eb.exists(eb.selectFrom('message_rows').select('id').whereRef('message_rows.content_sha256', '=', 'contents.sha256')).as('used'),
      )
      .where('sha256', '>', after)
      .orderBy('sha256')
      .limit(STEP)
      .execute();
    if (rows.length === 0) break;
    out.contentsChecked += rows.length;
    after = rows.at(-1)!.sha256;
    const orphans = rows.filter((r) => !r.used).map((r) => r.sha256);
    // Their attachments' blobs too, named now: collecting a content deletes its attachment rows, and only the
    // segment index (SQLite) is walked below; per-sha files and S3 objects would wait for the hourly stale sweep.
    const attached =
      orphans.length === 0
        ? []
        : (await db.selectFrom('content_attachments').select('sha256').where('content_sha256', 'in', orphans).execute()).map(
            (r) => r.sha256,
          );
    out.candidates += orphans.length;
    out.blobsRemoved += await writer.collect([...orphans, ...attached]);
    await new Promise<void>((r) => setImmediate(r));
  }
  after = '';
  const page = ownIndex?.prepare('select sha256 from segment_blobs where sha256 > ? order by sha256 limit ?');
  for (; !signal?.aborted; ) {
    const rows = page ? await usedInDb(db, page.all(after, STEP) as Array<{ sha256: string }>) : await indexedInDb(db, after);
    if (rows.length === 0) break;
    out.blobsChecked += rows.length;
    after = rows.at(-1)!.sha256;
    const orphans = rows.filter((r) => !r.used).map((r) => r.sha256);
    out.candidates += orphans.length;
    out.blobsRemoved += await writer.collect(orphans);
    await new Promise<void>((r) => setImmediate(r));
  }
  return out;
}

/** A page of the segment index in the database itself, each row with whether a content or an attachment uses it. */
function indexedInDb(db: Kysely<Database>, after: string): Promise<Array<{ sha256: string; used: unknown }>> {
  return db
    .selectFrom('segment_blobs')
    .select(['sha256'])
    .select((eb) =>
      eb
        .or([
          eb.exists(eb.selectFrom('contents').select('sha256').whereRef('contents.sha256', '=', 'segment_blobs.sha256')),
          eb.exists(eb.selectFrom('content_attachments').select('id').whereRef('content_attachments.sha256', '=', 'segment_blobs.sha256')),
        ])
        .as('used'),
    )
    .where('sha256', '>', after)
    .orderBy('sha256')
    .limit(STEP)
    .execute();
}

/** A page of an index kept elsewhere, with whether the database uses each blob (two reads for the page). */
async function usedInDb(db: Kysely<Database>, page: Array<{ sha256: string }>): Promise<Array<{ sha256: string; used: boolean }>> {
  if (page.length === 0) return [];
  const shas = page.map((r) => r.sha256);
  const used = new Set<string>();
  for (const r of await db.selectFrom('contents').select('sha256').where('sha256', 'in', shas).execute()) used.add(r.sha256);
  for (const r of await db.selectFrom('content_attachments').select('sha256').where('sha256', 'in', shas).execute()) used.add(r.sha256);
  return page.map((r) => ({ sha256: r.sha256, used: used.has(r.sha256) }));
}
