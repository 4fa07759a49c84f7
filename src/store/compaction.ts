// Reclaims segment space held by deleted or expired mail. A sealed segment (never the one being appended to) whose
// dead share reaches the threshold has its live blobs copied to the active segment, a few MiB per step; each step is
// one task in the write queue, so ingest batches run between steps and are never held up by a whole segment. A
// segment no index row points into any more is deleted.
//
// Order within a step, so a crash at any point loses nothing: append the copies → fsync the segment → commit the
// index rows' new places → fsync the WAL. Before the commit the old places are still the truth (the copies are a
// tail that recovery cuts off); after it the copies are durable. The old file goes only after its last row moved.
import fs from 'node:fs';
import type BetterSqlite3 from 'better-sqlite3';
import { type Placement, RECORD_HEADER, type SegmentStore } from './segments.ts';

export interface CompactionDeps {
  segments: SegmentStore;
  sqlite: BetterSqlite3.Database;
  /** Runs a task in the write queue (IngestWriter.run). */
  run: <T>(fn: () => Promise<T>) => Promise<T>;
  /** fsync of the WAL after the index commit (a no-op with --no-fsync). */
  syncWal: () => Promise<unknown>;
  /** Dead share of a segment from which it is compacted (default 0.5). */
  minDead?: number;
  /** Bytes copied per step (default 4 MiB). */
  stepBytes?: number;
}

export interface CompactionResult {
  segmentsRemoved: number;
  blobsMoved: number;
  bytesReclaimed: number;
}

export async function compactSegments(deps: CompactionDeps): Promise<CompactionResult> {
  const { segments, sqlite } = deps;
  const minDead = deps.minDead ?? 0.5;
  const stepBytes = deps.stepBytes ?? 4 * 1024 * 1024;
  const live = sqlite.prepare('select count(*) as n, coalesce(sum(length), 0) as bytes from segment_blobs where segment = ?');
  const rowsOf = sqlite.prepare('select sha256, segment, offset, length from segment_blobs where segment = ? order by offset');
  const move = sqlite.prepare('update segment_blobs set segment = ?, offset = ? where sha256 = ? and segment = ? and offset = ?');
  const out: CompactionResult = { segmentsRemoved: 0, blobsMoved: 0, bytesReclaimed: 0 };

  for (const id of segments.list()) {
    if (id === segments.activeId) continue;
    const file = segments.fileOf(id);
    const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    const stat = live.get(id) as { n: number; bytes: number };
    const liveBytes = stat.bytes + stat.n * RECORD_HEADER;
    if (stat.n > 0 && (size === 0 || (size - liveBytes) / size < minDead)) continue;
    if (stat.n > 0) {
      const rows = rowsOf.all(id) as Placement[];
      for (let i = 0; i < rows.length; ) {
        const step: Placement[] = [];
        let bytes = 0;
        for (; i < rows.length && (step.length === 0 || bytes + rows[i]!.length <= stepBytes); i++) {
          step.push(rows[i]!);
          bytes += rows[i]!.length;
        }
        const blobs = await Promise.all(step.map(async (p) => ({ sha256: p.sha256, bytes: await segments.read(p) })));
        out.blobsMoved += await deps.run(async () => {
          // Rows deleted (or moved) since they were read are not copied.
          const still = blobs.filter((_, k) => {
            const p = segments.locate(step[k]!.sha256);
            return p?.segment === id && p.offset === step[k]!.offset;
          });
          const placed = await segments.append(still);
          await segments.sync();
          let moved = 0;
          sqlite.transaction(() => {
            for (const [k, p] of placed.entries()) {
              const old = step.find((s) => s.sha256 === still[k]!.sha256)!;
              moved += move.run(p.segment, p.offset, p.sha256, id, old.offset).changes;
            }
          })();
          await deps.syncWal();
          return moved;
        });
      }
    }
    // Removed in the write queue, after every row left it; a reader that looked the old place up just before
    // gets ENOENT and looks again (BlobStore.get/open).
    const removed = await deps.run(async () => {
      if ((live.get(id) as { n: number }).n > 0) return false;
      fs.rmSync(file, { force: true });
      return true;
    });
    if (removed) {
      out.segmentsRemoved++;
      out.bytesReclaimed += size;
    }
  }
  return out;
}

/** One compaction at a time (the periodic sweep starts it; a run still going is not started again). */
export class Compactor {
  private readonly deps: CompactionDeps & { onDone?: (r: CompactionResult) => unknown };
  private running: Promise<unknown> | null = null;

  constructor(deps: CompactionDeps & { onDone?: (r: CompactionResult) => unknown }) {
    this.deps = deps;
  }

  run(): Promise<unknown> {
    this.running ??= compactSegments(this.deps)
      .then((r) => this.deps.onDone?.(r))
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Resolves when no compaction is under way (at stop, before the write queue drains). */
  async idle(): Promise<void> {
    await this.running?.catch(() => undefined);
  }
}
