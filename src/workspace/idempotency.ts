// Idempotency keys with Stripe's semantics: the first request under a key is recorded before it does any work;
// a replay with the same request gets the stored answer (nothing sent or logged again), the same key with a
// different request is a 409, a replay while the first is still running is a 409 with Retry-After, and keys are
// kept 24 hours. Failures are not remembered: they release the key, and an unexpected one becomes a 503 naming what
// could not be done (retry with the same key). The execute tools (execute-reply, gmail draft, calendar event) run
// their work through `IdempotencyKeys.run`; the operation reads the key from the body or the header.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError, isAppError } from '../errors.ts';
import type { Database } from '../store/schema.ts';
import type { WorkspaceTables, WsDb } from './tables.ts';

export const KEY_TTL_MS = 24 * 3600_000;

/** sha256 of the request's JSON with object keys sorted, so field order does not matter. */
export function requestHash(v: unknown): string {
  const canon = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(canon)
      : x && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x as object)
              .sort()
              .filter((k) => (x as Record<string, unknown>)[k] !== undefined)
              .map((k) => [k, canon((x as Record<string, unknown>)[k])]),
          )
        : x;
  return createHash('sha256')
    .update(JSON.stringify(canon(v)))
    .digest('hex');
}

type Claim<T> = { kind: 'new' } | { kind: 'replay'; status: number; body: T };

/** What a run under a key answers: the work's result, or (`replayed`) the first answer and its status. */
export interface Once<T> {
  body: T;
  replayed: boolean;
  status?: number;
}

/** An unexpected failure of the work is a 503 naming `what`; an AppError stays as it is. */
export const retryable =
  (what: string) =>
  (e: unknown): never => {
    if (isAppError(e)) throw e;
    throw new AppError('unavailable', `${what}: ${(e as Error).message.slice(0, 300)}; retry with the same key`);
  };

export class IdempotencyKeys {
  private readonly db: WsDb;
  private readonly now: () => number;

  constructor(d: { db: Kysely<Database>; now: () => number }) {
    this.db = d.db.withTables<WorkspaceTables>();
    this.now = d.now;
  }

  /**
   * Runs `work` at most once per `key` of the team (null: no key, it just runs). The key is claimed before any
   * work, so a concurrent replay finds it in flight (409) and cannot act twice; a replay returns the first answer;
   * the same key with another request is 409.
   */
  async run<T>(teamId: string, key: string | null, request: unknown, what: string, work: () => Promise<T>): Promise<Once<T>> {
    if (key === null) return { body: await work().catch(retryable(what)), replayed: false };
    const claim = await this.claim<T>(teamId, key, requestHash(request), this.now());
    if (claim.kind === 'replay') return { body: claim.body, replayed: true, status: claim.status };
    try {
      const body = await work();
      await this.complete(teamId, key, 200, body);
      return { body, replayed: false };
    } catch (e) {
      await this.release(teamId, key);
      return retryable(what)(e);
    }
  }

  private async claim<T>(teamId: string, key: string, hash: string, now: number): Promise<Claim<T>> {
    const db = this.db;
    await db.deleteFrom('workspace_idempotency').where('team_id', '=', teamId).where('expires_at', '<=', now).execute();
    const ins = await db
      .insertInto('workspace_idempotency')
      .values({
        team_id: teamId,
        key,
        request_hash: hash,
        state: 'running',
        status: null,
        response_json: null,
        created_at: now,
        expires_at: now + KEY_TTL_MS,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(ins.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'new' };
    const row = await db
      .selectFrom('workspace_idempotency')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row) return this.claim(teamId, key, hash, now); // released between the insert and the read
    if (row.request_hash !== hash)
      throw new AppError(
        'conflict',
        'idempotency key reused with a different request: a key names one request for 24 hours; use a new key for a new request',
      );
    if (row.state === 'running')
      throw new AppError('conflict', 'a request with this idempotency key is still running; retry shortly for its result', {
        headers: { 'Retry-After': '1' },
      });
    return { kind: 'replay', status: row.status ?? 200, body: JSON.parse(row.response_json ?? 'null') as T };
  }

  private async complete(teamId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.db
      .updateTable('workspace_idempotency')
      .set({ state: 'done', status, response_json: JSON.stringify(body) })
      .where('team_id', '=', teamId)
      .where('key', '=', key)
      .execute();
  }

  private async release(teamId: string, key: string): Promise<void> {
    await this.db.deleteFrom('workspace_idempotency').where('team_id', '=', teamId).where('key', '=', key).execute();
  }
}
