// The console's aggregate queries (GET /v1/console/*), the only SQL of src/console/ (ConsoleService runs them).
// Every one is bounded to the caller's team and label scope in SQL, the same way InboxRepo.list bounds inbox lists,
// so a scoped key never counts another run's mail. Conditional counts use `count(*) filter (where …)`, which SQLite
// (3.30+) and PostgreSQL both read (PostgreSQL cannot sum booleans).
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { type MessageSummaryRow, SUMMARY_COLUMNS } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';

/** `i` is the inboxes table: its team, and its label under the key's prefix when the key has one. */
function inScope(p: Principal): RawBuilder<unknown> {
  const prefix = p.scope.labelPrefix;
  return prefix
    ? sql`i.team_id = ${p.teamId} and i.label >= ${prefix} and i.label < ${prefix + '\u{10FFFF}'}`
    : sql`i.team_id = ${p.teamId}`;
}

const n = (v: unknown): number => Number(v ?? 0);

export interface MessageCounts {
  received: number;
  receivedToday: number;
  verified: number;
  verifiedToday: number;
}

export interface TopLabel {
  label: string;
  inboxes: number;
  messages: number;
}

export interface CallbackCounts {
  delivered: number;
  pending: number;
  retrying: number;
  failed: number;
}

export async function inboxCounts(db: Kysely<Database>, p: Principal): Promise<{ total: number; withCallback: number }> {
  const r = await sql<{
    total: number;
    cb: number | null;
  }>`select count(*) as total, count(*) filter (where i.callback_url is not null) as cb
    from inboxes i where ${inScope(p)}`.execute(db);
  return { total: n(r.rows[0]?.total), withCallback: n(r.rows[0]?.cb) };
}

/**
 * Messages received and those with a code or link (verified), overall and since `dayStart`. Received mail only: the
 * copy of a message an inbox sent (`direction = 'outbound'`) is not mail it received.
 */
export async function messageCounts(db: Kysely<Database>, p: Principal, dayStart: number, inboxId?: string): Promise<MessageCounts> {
  const only = inboxId === undefined ? sql`` : sql`and i.id = ${inboxId}`;
  const r = await sql<Record<string, number | null>>`select count(*) as received,
      count(*) filter (where m.received_at >= ${dayStart}) as received_today,
      count(*) filter (where m.otp is not null or m.primary_link is not null) as verified,
      count(*) filter (where m.received_at >= ${dayStart} and (m.otp is not null or m.primary_link is not null)) as verified_today
    from messages m join inboxes i on i.id = m.inbox_id where ${inScope(p)} and m.direction = 'inbound' ${only}`.execute(db);
  const row = r.rows[0] ?? {};
  return {
    received: n(row.received),
    receivedToday: n(row.received_today),
    verified: n(row.verified),
    verifiedToday: n(row.verified_today),
  };
}

/** Callback deliveries by state: `retrying` are pending after a failed attempt; `failed` includes gone and refused. */
export async function callbackCounts(db: Kysely<Database>, p: Principal, inboxId?: string): Promise<CallbackCounts> {
  const only = inboxId === undefined ? sql`` : sql`and i.id = ${inboxId}`;
  const r = await sql<Record<string, number | null>>`select count(*) filter (where d.state = 'delivered') as delivered,
      count(*) filter (where d.state = 'pending' and d.attempts = 0) as pending,
      count(*) filter (where d.state = 'pending' and d.attempts > 0) as retrying,
      count(*) filter (where d.state in ('failed', 'gone', 'refused')) as failed
    from callback_deliveries d join inboxes i on i.id = d.inbox_id where ${inScope(p)} ${only}`.execute(db);
  const row = r.rows[0] ?? {};
  return { delivered: n(row.delivered), pending: n(row.pending), retrying: n(row.retrying), failed: n(row.failed) };
}

/** Labels with the most mail (then the most inboxes). */
export async function topLabels(db: Kysely<Database>, p: Principal, limit: number): Promise<TopLabel[]> {
  const r = await sql<{ label: string; inboxes: number; messages: number }>`select i.label as label,
      count(distinct i.id) as inboxes, count(m.id) as messages
    from inboxes i left join message_rows m on m.inbox_id = i.id
    where ${inScope(p)} and i.label is not null
    group by i.label order by messages desc, inboxes desc, label limit ${limit}`.execute(db);
  return r.rows.map((x) => ({ label: x.label, inboxes: n(x.inboxes), messages: n(x.messages) }));
}

/** The newest messages across the scope, with the address and label of their inbox. */
export async function recentMessages(
  db: Kysely<Database>,
  p: Principal,
  limit: number,
): Promise<Array<MessageSummaryRow & { address: string; label: string | null }>> {
  const cols = sql.join(SUMMARY_COLUMNS.map((c) => sql.ref(`m.${c}`)));
  const r = await sql<MessageSummaryRow & { address: string; label: string | null }>`select ${cols}, i.address as address,
      i.label as label
    from messages m join inboxes i on i.id = m.inbox_id where ${inScope(p)}
    order by m.received_at desc, m.id desc limit ${limit}`.execute(db);
  return r.rows;
}
