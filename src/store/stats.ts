// Usage figures for GET /v1/stats: lifetime counters of the team, and live counts within a key's label scope.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export async function teamCounters(db: Kysely<Database>, teamId: string): Promise<Record<string, number>> {
  const rows = await db.selectFrom('counters').select(['name', 'value']).where('team_id', '=', teamId).execute();
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.value)]));
}

export async function liveUsage(
  db: Kysely<Database>,
  teamId: string,
  labelPrefix: string | null,
): Promise<{ activeInboxes: number; storedMessages: number; storedBytes: number }> {
  let inboxes = db.selectFrom('inboxes').where('team_id', '=', teamId);
  if (labelPrefix !== null) inboxes = inboxes.where('label', '>=', labelPrefix).where('label', '<', labelPrefix + '\u{10FFFF}');
  const a = await inboxes.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const m = await db
    .selectFrom('messages')
    .where('inbox_id', 'in', inboxes.select('inboxes.id'))
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('bytes')])
    .executeTakeFirstOrThrow();
  return { activeInboxes: Number(a.n), storedMessages: Number(m.n), storedBytes: Number(m.bytes) };
}
