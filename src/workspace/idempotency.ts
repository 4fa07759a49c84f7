// Idempotency keys with Stripe's semantics: the first request under a key is recorded before it does any work;
// a replay with the same request gets the stored answer (nothing sent or logged again), the same key with a
// different request is a 409, a replay while the first is still running is a 409 with Retry-After, and keys are
// kept 24 hours. Failures that should be retried (5xx, not_configured) release the key.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { WsDb } from './tables.ts';

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

export type Claim<T> = { kind: 'new' } | { kind: 'replay'; status: number; body: T };

export async function claimKey<T>(db: WsDb, teamId: string, key: string, hash: string, now: number): Promise<Claim<T>> {
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
  if (!row) return claimKey(db, teamId, key, hash, now); // released between the insert and the read
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

export async function completeKey(db: WsDb, teamId: string, key: string, status: number, body: unknown): Promise<void> {
  await db
    .updateTable('workspace_idempotency')
    .set({ state: 'done', status, response_json: JSON.stringify(body) })
    .where('team_id', '=', teamId)
    .where('key', '=', key)
    .execute();
}

export async function releaseKey(db: WsDb, teamId: string, key: string): Promise<void> {
  await db.deleteFrom('workspace_idempotency').where('team_id', '=', teamId).where('key', '=', key).execute();
}
