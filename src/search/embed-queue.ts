// The durable embeddings queue: `contents` rows past the model's `last_rowid` (search_embed_state) are still to be
// embedded. It runs after commit, in the background — never on the SMTP path — in small batches; a failed call
// (timeout, HTTP error, malformed or wrong-size vectors) is logged and retried later with a growing delay, so a
// model outage delays embeddings, never mail. Mail stored before the model was configured is embedded the same
// way (the backfill is the queue starting at rowid 0). Switching models starts that model's own pass.
import { type Kysely, sql } from 'kysely';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Logger } from '../log.ts';
import { type Dialect, dialectOf } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import { EmbeddingError, type EmbeddingsConfig, embed, quantize } from './embeddings.ts';
import { bodyText } from './text.ts';

const BATCH = 16;
/** Characters of a message sent to the embeddings model (embedding models read a few hundred tokens). */
export const EMBED_CHARS = 4000;
const MAX_RETRY_MS = 10 * 60_000;
/**
 * PostgreSQL only: how far below the model's position contents are looked at again. Several instances insert
 * contents concurrently, so a content can commit after one with a higher rowid was already embedded; those stragglers
 * sit just below the position and are picked up when they have no vector yet.
 */
export const PG_STRAGGLER_WINDOW = 1000;

export function embedText(subject: string, body: string): string {
  return `${subject}\n\n${body}`.slice(0, EMBED_CHARS);
}

export class EmbedQueue {
  private readonly db: Kysely<Database>;
  private readonly writer: IngestWriter;
  private readonly log: Logger;
  private readonly dialect: Dialect;
  readonly cfg: EmbeddingsConfig;
  private readonly retryMs: number;
  private readonly stopper = new AbortController();
  private running: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  /** The model's vector size, once known (from the first answer, or the stored state). */
  dim: number | null = null;
  /** Vectors written so far by this process (tests, diagnostics). */
  embedded = 0;
  lastError: string | null = null;

  /** Runs a pass on one instance of a cluster only (Store.singleton); absent: always runs (SQLite, one server). */
  private readonly singleton: ((job: string, fn: () => Promise<unknown>) => Promise<boolean>) | undefined;

  constructor(d: {
    db: Kysely<Database>;
    writer: IngestWriter;
    log: Logger;
    cfg: EmbeddingsConfig;
    retryMs: number;
    singleton?: ((job: string, fn: () => Promise<unknown>) => Promise<boolean>) | undefined;
  }) {
    this.singleton = d.singleton;
    this.db = d.db;
    this.writer = d.writer;
    this.log = d.log;
    this.dialect = dialectOf(d.db as never);
    this.cfg = d.cfg;
    this.retryMs = d.retryMs;
  }

  get model(): string {
    return this.cfg.link.id;
  }

  async start(): Promise<void> {
    await this.db
      .insertInto('search_embed_state')
      .values({ model: this.model, dim: null, last_rowid: 0 })
      .onConflict((oc) => oc.doNothing())
      .execute();
    const st = await this.db.selectFrom('search_embed_state').select('dim').where('model', '=', this.model).executeTakeFirst();
    this.dim = st?.dim ?? null;
    this.kick();
  }

  /** New mail was committed: embed it soon (coalesced; waits out a retry delay). */
  kick(): void {
    if (this.stopper.signal.aborted || this.timer) return;
    if (this.running) {
      this.again = true;
      return;
    }
    // On a cluster one instance embeds (the others' passes return at once); new mail anywhere kicks every instance,
    // so another one takes over at the next mail after the leader stops.
    const pass = this.singleton ? this.singleton(`search-embeddings:${this.model}`, () => this.loop()).then(() => undefined) : this.loop();
    this.running = pass.finally(() => {
      this.running = null;
      if (this.again && !this.timer) {
        this.again = false;
        this.kick();
      }
    });
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** Contents not embedded yet by this model. */
  async backlog(): Promise<number> {
    const r = await sql<{ n: number }>`select count(*) as n from contents
      where rowid > coalesce((select last_rowid from search_embed_state where model = ${this.model}), 0)`.execute(this.db);
    return Number(r.rows[0]?.n ?? 0);
  }

  private async loop(): Promise<void> {
    while (!this.stopper.signal.aborted) {
      const pending =
        this.dialect === 'postgres'
          ? sql`c.rowid > (select last_rowid from search_embed_state where model = ${this.model}) - ${PG_STRAGGLER_WINDOW}
              and not exists (select 1 from search_vectors v where v.content_sha256 = c.sha256 and v.model = ${this.model})`
          : sql`c.rowid > (select last_rowid from search_embed_state where model = ${this.model})`;
      const rows = (
        await sql<{ rid: number; sha256: string; subject: string; text_body: string | null; html_body: string | null }>`
          select c.rowid as rid, c.sha256, c.subject, c.text_body, c.html_body from contents c
          where ${pending} order by c.rowid limit ${BATCH}`.execute(this.db)
      ).rows;
      if (rows.length === 0) return;
      let vecs: Float32Array[];
      try {
        vecs = await embed(
          this.cfg,
          rows.map((r) => embedText(r.subject, bodyText(r.text_body, r.html_body))),
          this.stopper.signal,
        );
        const dim = this.dim ?? vecs[0]!.length;
        if (vecs.some((v) => v.length !== dim))
          throw new EmbeddingError('dimension', `${this.model} answered vectors of ${vecs[0]!.length} numbers; earlier ones had ${dim}`);
        this.dim = dim;
      } catch (e) {
        if (this.stopper.signal.aborted) return;
        this.retryLater(e as Error);
        return;
      }
      const last = Number(rows.at(-1)!.rid);
      await this.writer.run(() =>
        this.db.transaction().execute(async (trx) => {
          for (let i = 0; i < rows.length; i++) {
            const q = quantize(vecs[i]!);
            const vec = Buffer.from(q.buffer, q.byteOffset, q.byteLength);
            await trx
              .insertInto('search_vectors')
              .values({ content_sha256: rows[i]!.sha256, model: this.model, vec })
              .onConflict((oc) => oc.column('content_sha256').doUpdateSet({ model: this.model, vec }))
              .execute();
          }
          // max(): a straggler (PostgreSQL) below the position must not move it back.
          await sql`update search_embed_state set dim = ${this.dim}, last_rowid = ${this.dialect === 'postgres' ? sql`greatest(last_rowid, ${last})` : sql`${last}`}
            where model = ${this.model}`.execute(trx);
        }),
      );
      this.embedded += rows.length;
      if (this.failures > 0) this.log.info('embeddings resumed', { model: this.model, afterFailures: this.failures });
      this.failures = 0;
      this.lastError = null;
    }
  }

  private retryLater(e: Error): void {
    this.failures++;
    const delay = Math.min(this.retryMs * 2 ** Math.min(this.failures - 1, 16), MAX_RETRY_MS);
    this.lastError = e.message;
    this.log.warn('embedding messages failed; mail is still stored and keyword search works, the embedding is retried later', {
      model: this.model,
      reason: e instanceof EmbeddingError ? e.kind : 'error',
      error: e.message,
      retryInSeconds: Math.round(delay / 1000),
      failures: this.failures,
    });
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, delay);
    this.timer.unref();
  }
}
