// Reading one invitation into the local calendar (src/providers/calendar/local.ts): the part is parsed and merged with
// the stored events in the sandbox — the sender controls that cost — and the result is written in a short transaction.
// An invitation's VTIMEZONEs are stored once (calendar_local_zones, keyed by team and SHA-256), not once per event.
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Sandbox } from '../../budget/sandbox.ts';
import { randomBase62 } from '../../lib/ids.ts';
import { dialectOf } from '../../store/dialect.ts';
import type { CalDb, LocalEventRow, StoredEvent } from './local-store.ts';

/** What writing an invitation needs of the calendar. */
export interface Writer {
  db: CalDb;
  teamId: string;
  sandbox: Sandbox;
  budgetMs: number;
  now: () => number;
}

/** The rows an invitation was merged with changed before the write (another instance wrote them): merge again. */
export class Conflict extends Error {}

/** The stored rows of these UIDs in one inbox, with their time zones, as the sandbox merge needs them. */
export async function storedOf(db: CalDb, teamId: string, inboxKey: string, uids: string[]): Promise<Map<string, LocalEventRow>> {
  const rows = new Map<string, LocalEventRow>();
  for (let i = 0; i < uids.length; i += 500)
    for (const r of await db
      .selectFrom('calendar_local_events')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('inbox_key', '=', inboxKey)
      .where('uid', 'in', uids.slice(i, i + 500))
      .execute())
      rows.set(r.uid, r);
  return rows;
}

export async function zonesOf(db: CalDb, teamId: string, ids: Iterable<string>): Promise<Record<string, string>> {
  const want = [...new Set(ids)];
  const out: Record<string, string> = {};
  for (let i = 0; i < want.length; i += 500)
    for (const z of await db
      .selectFrom('calendar_local_zones')
      .select(['id', 'ics'])
      .where('team_id', '=', teamId)
      .where('id', 'in', want.slice(i, i + 500))
      .execute())
      out[z.id] = z.ics;
  return out;
}

/**
 * Parses the part and merges it with the stored events in the sandbox (outside any transaction: a slow part must
 * not hold the database), then writes the result in one transaction that first checks the rows it merged with are
 * unchanged (Conflict: read again), serialised per (team, inbox) — SQLite has one writer; PostgreSQL takes a
 * transaction-level advisory lock (the two-key form, a key space apart from the cluster jobs' one-key locks).
 */
export async function applyPart(
  w: Writer,
  part: { text: string; messageId: string; inboxId: string | null; label: string | null; inboxKey: string },
): Promise<{ outcome: string; reason: string | null }> {
  const { text, messageId, inboxId, label, inboxKey } = part;
  const run = { owner: w.teamId, timeoutMs: w.budgetMs };
  const uids = await w.sandbox.run('calendar.uids', { text }, run);
  const before = await storedOf(w.db, w.teamId, inboxKey, uids);
  const zones = await zonesOf(
    w.db,
    w.teamId,
    [...before.values()].flatMap((r) => (r.zones_id ? [r.zones_id] : [])),
  );
  const stored: Record<string, StoredEvent> = {};
  for (const [uid, r] of before) stored[uid] = { ...r, zones: r.zones_id ? (zones[r.zones_id] ?? null) : null };
  const { zoneSets, changes } = await w.sandbox.run('calendar.changes', { text, stored }, run);
  const zoneIds = zoneSets.map((z) => createHash('sha256').update(z).digest('hex'));
  await w.db.transaction().execute(async (tx) => {
    if (dialectOf(tx) === 'postgres')
      await sql`select pg_advisory_xact_lock(hashtext('inboxd.calendar'), hashtext(${`${w.teamId}:${inboxKey}`}))`.execute(tx);
    const now = w.now();
    const current = await storedOf(tx, w.teamId, inboxKey, uids);
    for (const uid of new Set([...before.keys(), ...current.keys()]))
      if (before.get(uid)?.updated_at !== current.get(uid)?.updated_at || before.get(uid)?.id !== current.get(uid)?.id)
        throw new Conflict();
    for (const [i, z] of zoneSets.entries())
      await tx
        .insertInto('calendar_local_zones')
        .values({ team_id: w.teamId, id: zoneIds[i]!, ics: z, created_at: now })
        .onConflict((oc) => oc.doNothing())
        .execute();
    const dropped = new Set<string>();
    for (const c of changes) {
      if (!c.next) continue;
      const old = current.get(c.uid);
      const zonesId = c.next.zones === null ? null : zoneIds[c.next.zones]!;
      if (old?.zones_id && old.zones_id !== zonesId) dropped.add(old.zones_id);
      const values = {
        sequence: c.next.sequence,
        status: c.next.status,
        ics: c.next.ics,
        zones_id: zonesId,
        skip_reason: null,
        summary: c.next.summary,
        first_start: c.next.firstStart,
        last_end: c.next.lastEnd,
        message_id: messageId,
        updated_at: now,
      };
      if (old) await tx.updateTable('calendar_local_events').set(values).where('id', '=', old.id).execute();
      else
        await tx
          .insertInto('calendar_local_events')
          .values({
            id: `cev_${randomBase62(20)}`,
            team_id: w.teamId,
            inbox_key: inboxKey,
            inbox_id: inboxId,
            scope_label: label,
            uid: c.uid,
            source: 'invitation',
            created_at: now,
            ...values,
          })
          .onConflict((oc) => oc.columns(['team_id', 'inbox_key', 'uid']).doUpdateSet(values))
          .execute();
    }
    // A time-zone set no event uses any more goes.
    for (const id of dropped)
      await tx
        .deleteFrom('calendar_local_zones')
        .where('team_id', '=', w.teamId)
        .where('id', '=', id)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(selectFrom('calendar_local_events as e').select('e.id').where('e.team_id', '=', w.teamId).where('e.zones_id', '=', id)),
          ),
        )
        .execute();
  });
  const reasons = changes.flatMap((c) => (!c.next && c.reason ? [c.reason] : []));
  const applied = changes.filter((c) => c.next);
  if (applied.length === 0) return { outcome: changes[0]?.outcome ?? 'skipped', reason: reasons.join('; ') || 'nothing to apply' };
  return { outcome: applied.map((c) => c.outcome).join(','), reason: reasons.length ? reasons.join('; ') : null };
}
