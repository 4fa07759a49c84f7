// Content and blobs nothing references any more, left by a stop between deleting messages and collecting what they
// used (the two are separate steps of the write queue; a crash or kill -9 can land between them). Found by walking
// the contents and the segment index once at start, in small steps, and handed to the writer's collector, which
// checks again under the write queue before removing anything (so mail arriving meanwhile is never touched).
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

/** Stops early (between steps) when `signal` aborts: the next start walks again. */
export async function sweepOrphans(db: Kysely<Database>, writer: IngestWriter, signal?: AbortSignal): Promise<OrphanSweepResult> {
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
  for (; !signal?.aborted; ) {
    const rows = await db
      .selectFrom('segment_blobs')
      .select(['sha256'])
      .select((eb) =>
        eb
          .or([
            eb.exists(eb.selectFrom('contents').select('sha256').whereRef('contents.sha256', '=', 'segment_blobs.sha256')),
            eb.exists(
              eb.selectFrom('content_attachments').select('id').whereRef('content_attachments.sha256', '=', 'segment_blobs.sha256'),
            ),
          ])
          .as('used'),
      )
      .where('sha256', '>', after)
      .orderBy('sha256')
      .limit(STEP)
      .execute();
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
