// Limits on what mail is kept (issue 11): messages per inbox over its life, and unclaimed mail (for addresses no
// inbox owns yet) per address and in total. Each limit is checked twice: early, when SMTP asks at RCPT, so the
// sender gets its 452 at once; and authoritatively inside the writer's transaction, where counting and inserting
// are one step, so parallel sessions, simulate, the rehearsal page and webhooks cannot slip past it.
// Refused mail is never stored: beyond a limit the whole message is refused (temporarily: SMTP 452 4.2.2), never
// acknowledged and then dropped.

import { type CompiledQuery, type Kysely, sql } from 'kysely';
import { AppError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { plusAddress } from '../mail/labels.ts';
import { precompile } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';

export interface MailLimits {
  /** Messages one inbox accepts over its life (0 = no limit). */
  maxMessagesPerInbox: number;
  /** Unclaimed messages kept per address (0 = no limit). */
  maxUnclaimedPerAddress: number;
  /** Unclaimed messages kept in total (0 = no limit). */
  maxUnclaimed: number;
}

export const NO_LIMITS: MailLimits = { maxMessagesPerInbox: 0, maxUnclaimedPerAddress: 0, maxUnclaimed: 0 };

/** Recipients one inbound message may name, however it arrives (SMTP RCPT, a provider webhook). */
export const MAX_RECIPIENTS = 100;

/**
 * A message refused by a limit. An AppError, so simulate, the rehearsal page and webhooks answer it as
 * problem+json: a full inbox is 409 `conflict` (it stays full), full unclaimed storage is 429 `rate_limited`
 * (it empties as unclaimed mail expires). SMTP answers both with `452 4.2.2` (see smtpReply).
 */
export class MailRefused extends AppError {
  readonly rcpt: string;
  readonly reason: 'mailbox_full' | 'unclaimed_full';
  constructor(rcpt: string, reason: 'mailbox_full' | 'unclaimed_full', detail: string) {
    super(
      reason === 'mailbox_full' ? 'conflict' : 'rate_limited',
      detail,
      reason === 'unclaimed_full' ? { headers: { 'Retry-After': '60' } } : {},
    );
    this.name = 'MailRefused';
    this.rcpt = rcpt;
    this.reason = reason;
  }
  /** The SMTP reply text after the code: 452 is temporary, so a sender keeps the message and may try again. */
  get smtpReply(): string {
    return `4.2.2 ${this.message}`;
  }
}

export function isMailRefused(e: unknown): e is MailRefused {
  return e instanceof MailRefused;
}

export function mailboxFull(address: string, max: number): MailRefused {
  return new MailRefused(
    address,
    'mailbox_full',
    `mailbox full: ${address} has received its limit of ${max} messages (--max-messages-per-inbox)`,
  );
}

/**
 * Why unclaimed mail for `address` (no inbox owns it) is refused right now, or null. Run inside the writer's
 * transaction to count what that transaction already inserted. `tally` carries the total across the recipients of
 * one message, so a message to 100 unknown addresses counts all unclaimed mail once, not 100 times.
 */
export async function unclaimedRefusal(
  db: Kysely<Database>,
  address: string,
  limits: MailLimits,
  tally: { total?: number } = {},
): Promise<MailRefused | null> {
  if (limits.maxUnclaimedPerAddress > 0) {
    const n = await countUnclaimed(db, address, limits.maxUnclaimedPerAddress);
    if (n >= limits.maxUnclaimedPerAddress)
      return new MailRefused(
        address,
        'unclaimed_full',
        `too much unclaimed mail for ${address}: ${limits.maxUnclaimedPerAddress} messages wait for an inbox to claim them (--max-unclaimed-per-address); create the inbox or try later`,
      );
  }
  if (limits.maxUnclaimed > 0) {
    tally.total ??= await countUnclaimed(db, null, limits.maxUnclaimed);
    if (tally.total >= limits.maxUnclaimed)
      return new MailRefused(
        address,
        'unclaimed_full',
        `unclaimed mail storage is full: ${limits.maxUnclaimed} messages wait for inboxes to claim them (--max-unclaimed); create the inbox first or try later`,
      );
    tally.total++;
  }
  return null;
}

/** Unclaimed messages (of one address, or all), counted up to `cap` (enough to compare, without a full scan). */
async function countUnclaimed(db: Kysely<Database>, address: string | null, cap: number): Promise<number> {
  const r = await sql<{ n: number }>`select count(*) as n from (select 1 from message_rows where inbox_id is null
    ${address === null ? sql`` : sql`and rcpt = ${address}`} limit ${cap}) as capped`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/** Logs refusals without letting a flood of them flood the log: the first at once, then one summary a minute. */
export class RefusalLog {
  private readonly log: Logger;
  private readonly now: () => number;
  private last = new Map<string, { at: number; suppressed: number }>();
  constructor(log: Logger, now: () => number = Date.now) {
    this.log = log;
    this.now = now;
  }
  note(e: MailRefused, where: 'rcpt' | 'commit', source: string): void {
    const key = `${e.reason}:${where}`;
    const t = this.now();
    const prev = this.last.get(key);
    if (prev && t - prev.at < 60_000) {
      prev.suppressed++;
      return;
    }
    this.last.set(key, { at: t, suppressed: 0 });
    this.log.warn('mail refused by a limit', {
      reason: e.reason,
      rcpt: e.rcpt,
      at: where,
      source,
      detail: e.message,
      ...(prev?.suppressed ? { suppressedSinceLast: prev.suppressed } : {}),
    });
  }
}

/** The RCPT check runs for every recipient: its query is compiled once per database. */
const seqAt = new WeakMap<Kysely<Database>, (v: { address: unknown }) => CompiledQuery>();

/** The RCPT-time check: why mail to `address` is refused right now (a full inbox, full unclaimed storage), or null. */
export async function rcptRefusal(
  db: Kysely<Database>,
  address: string,
  limits: MailLimits,
  tally: { total?: number } = {},
  /** Told when an inbox takes the mail (the address's own, or user@domain for user+tag@domain). */
  onInbox?: () => void,
): Promise<MailRefused | null> {
  let q = seqAt.get(db);
  if (!q) {
    q = precompile(['address'], (p) => db.selectFrom('inboxes').select('message_seq').where('address', '=', p.address).compile());
    seqAt.set(db, q);
  }
  // user+tag@domain with no inbox of its own is delivered to user@domain (README "Labels by rule"): that inbox's limit.
  const plus = plusAddress(address);
  const inbox =
    (await db.executeQuery<{ message_seq: number }>(q({ address }))).rows[0] ??
    (plus ? (await db.executeQuery<{ message_seq: number }>(q({ address: plus.base }))).rows[0] : undefined);
  if (inbox) {
    onInbox?.();
    const max = limits.maxMessagesPerInbox;
    return max > 0 && inbox.message_seq >= max ? mailboxFull(address, max) : null;
  }
  return unclaimedRefusal(db, address, limits, tally);
}
