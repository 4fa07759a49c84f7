// Inboxes: create (with unclaimed-mail claim), scoped lookup, list, delete, bulk cleanup by label and expiry. Label scope is applied
// here, in queries, so a key never sees an inbox outside its prefix (CONTRACT §6: such inboxes are 404).

import { labelInScope, type Principal } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import type { ServedDomains } from '../domains/served.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { newCallbackSecret } from '../events/signature.ts';
import { refuseUrl } from '../events/targets.ts';
import { RefusalLog, rcptRefusal } from '../ingest/limits.ts';
import { bumpCounter, type IngestWriter } from '../ingest/writer.ts';
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../log.ts';
import { plusAddress } from '../mail/labels.ts';
import type { Store } from '../store/db.ts';
import { isUniqueViolation } from '../store/errors.ts';
import type { InboxRepo, InboxRow } from '../store/inboxes.ts';
import type { MessageRepo } from '../store/messages.ts';
import type { ThreadUpkeep } from '../threads/upkeep.ts';
import { resolveAddress } from './address.ts';
import { RecentInboxes } from './recent.ts';

export const TTL_DEFAULT_MINUTES = 60;
export const TTL_MAX_MINUTES = 10080;

export interface CreateInboxRequest {
  label?: string | undefined;
  ttlMinutes?: number | undefined;
  localPart?: string | undefined;
  address?: string | undefined;
  callbackUrl?: string | undefined;
  service?: string | undefined;
  /** Checks run on every arrival (names already validated against the check registry by the caller). */
  checks?: string[] | undefined;
}

export interface CreatedInbox {
  inbox: InboxRow;
  /** False when open/verify reused an inbox the team already had at that address. */
  created: boolean;
  /** Unclaimed messages this inbox took over at creation. */
  claimed: number;
}

export class InboxService {
  private readonly repo: InboxRepo;
  private readonly messages: MessageRepo;
  private readonly writer: IngestWriter;
  private readonly bus: EventBus;
  private readonly store: Store;
  private readonly config: Config;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly refusals: RefusalLog;
  private readonly served: ServedDomains;
  private readonly threads: ThreadUpkeep;
  /** Addresses with an inbox, seen lately by the RCPT check; on a shared database (PostgreSQL) only. */
  private readonly recentInboxes: RecentInboxes | null;

  constructor(d: {
    repo: InboxRepo;
    messages: MessageRepo;
    writer: IngestWriter;
    bus: EventBus;
    store: Store;
    config: Config;
    clock: Clock;
    log: Logger;
    served: ServedDomains;
    /** Threads claimed mail (src/threads/). */
    threads: ThreadUpkeep;
  }) {
    this.repo = d.repo;
    this.messages = d.messages;
    this.writer = d.writer;
    this.bus = d.bus;
    this.store = d.store;
    this.recentInboxes = d.store.dialect === 'postgres' ? new RecentInboxes(() => performance.now()) : null;
    this.config = d.config;
    this.clock = d.clock;
    this.log = d.log;
    this.served = d.served;
    this.threads = d.threads;
    this.refusals = new RefusalLog(d.log, () => d.clock.now());
  }

  /** `reuse`: an inbox this team already has at the requested address is returned instead of a 409 (open, verify). */
  async create(p: Principal, req: CreateInboxRequest, opts: { reuse?: boolean } = {}): Promise<CreatedInbox> {
    const label = this.scopedLabel(p, req.label);
    if (req.address !== undefined) await this.served.isServedFresh(req.address.slice(req.address.lastIndexOf('@') + 1).trim());
    const address = resolveAddress(req, this.served);
    // A verified custom domain serves its own team only (CONTRACT §10): nobody else receives that domain's mail.
    const owner = this.served.ownerOf(address.slice(address.lastIndexOf('@') + 1));
    if (owner !== null && owner !== p.teamId)
      throw new AppError('validation_failed', `address ${address}: its domain is another team's custom domain; use a domain of your own`, {
        errors: [{ path: 'address', message: 'domain belongs to another team' }],
      });
    if (req.callbackUrl !== undefined) {
      const why = refuseUrl(req.callbackUrl, {
        allowHttp: this.config.allowHttpCallbacks,
        allowPrivate: this.config.allowPrivateCallbacks,
      });
      if (why) throw new AppError('validation_failed', `callbackUrl: ${why}`, { errors: [{ path: 'callbackUrl', message: why }] });
    }
    const existing = await this.repo.byAddress(address);
    if (existing) {
      const mine = existing.team_id === p.teamId && labelInScope(p.scope, existing.label);
      if (mine && opts.reuse) return { inbox: existing, created: false, claimed: 0 };
      throw new AppError(
        'conflict',
        mine
          ? `${address} already belongs to inbox ${existing.id}; use it or delete it first`
          : `${address} is already taken; choose another localPart`,
      );
    }
    if (this.config.maxInboxes > 0 && (await this.repo.countForTeam(p.teamId)) >= this.config.maxInboxes) {
      throw new AppError(
        'forbidden',
        `plan limit reached: this team already has ${this.config.maxInboxes} inboxes (--max-inboxes); delete some or wait for them to expire`,
      );
    }
    const now = this.clock.now();
    const ttl = req.ttlMinutes ?? TTL_DEFAULT_MINUTES;
    const row = {
      id: newId('inb'),
      team_id: p.teamId,
      address,
      label,
      service: req.service ?? null,
      ttl_minutes: ttl,
      expires_at: now + ttl * 60_000,
      callback_url: req.callbackUrl ?? null,
      // Shown once, in the create answer; signs every callback (Standard Webhooks).
      callback_secret: req.callbackUrl ? newCallbackSecret() : null,
      created_at: now,
      created_by_key: p.keyId,
      checks_json: req.checks && req.checks.length > 0 ? JSON.stringify(req.checks) : null,
    };
    try {
      await this.repo.insert(row);
    } catch (e) {
      if (isUniqueViolation(e, 'inboxes.address'))
        throw new AppError('conflict', `${address} was just taken by another request; try again`);
      throw e;
    }
    await this.store.db.transaction().execute((trx) => bumpCounter(trx, p.teamId, 'inboxesCreated', 1));
    // Mail that arrived shortly before the inbox existed is handed over now (through the writer, after pending
    // ingest): only within --unclaimed-claim-seconds, so mail planted long ago for a guessable address is not.
    const window = Math.min(this.config.unclaimedClaimSeconds * 1000, this.config.unclaimedTtlMinutes * 60_000);
    const claimed = await this.writer.run(() =>
      this.repo.claim(row.id, address, now - window, this.config.maxMessagesPerInbox, (trx, id) => this.threads.claimed(trx, id)),
    );
    const inbox = (await this.repo.byId(row.id))!;
    if (claimed > 0) {
      this.log.info('inbox claimed unclaimed mail', { inboxId: row.id, claimed });
      for (const m of await this.messages.list(row.id, claimed))
        this.bus.publish({ type: 'message.received', inboxId: row.id, teamId: p.teamId, message: m });
    }
    return { inbox, created: true, claimed };
  }

  /** Why mail to this address is refused (a plan limit), or null when it is welcome. */
  /**
   * `tally` is shared by the recipients of one message (one SMTP transaction, one webhook call): each unclaimed
   * recipient accepted counts towards the unclaimed total for the next, as the commit will count them, so a message
   * is never accepted recipient by recipient and then refused whole at commit (which a sender would retry forever).
   */
  async refusesMail(address: string, tally?: { total?: number }): Promise<string | null> {
    // On PostgreSQL this check is a round trip per recipient. Without a per-inbox limit, an address whose inbox was
    // seen in the last two seconds needs none: the answer is "welcome" (see RecentInboxes for why staleness is safe).
    const recent = this.recentInboxes;
    if (recent && this.config.maxMessagesPerInbox === 0 && recent.has(address)) return null;
    const refused = await rcptRefusal(this.store.db, address, this.config, tally, recent ? () => recent.add(address) : undefined);
    if (refused) this.refusals.note(refused, 'rcpt', 'smtp or webhook');
    return refused?.message ?? null;
  }

  /**
   * With `--smtp-auth required`, a key delivers (over SMTP, or by a send to a local address) to an address that has no
   * inbox yet (kept unclaimed, as for anyone) or to an inbox of its own team inside its label scope; it cannot plant
   * mail in other teams' or other runs' inboxes. Null when allowed, else why not.
   */
  async refusesSender(p: Principal, address: string): Promise<string | null> {
    // user+tag@domain reaches the inbox user@domain when no inbox has the exact address: that inbox decides.
    const plus = plusAddress(address.toLowerCase());
    const inbox = (await this.repo.byAddress(address)) ?? (plus ? await this.repo.byAddress(plus.base) : undefined);
    if (!inbox || (inbox.team_id === p.teamId && labelInScope(p.scope, inbox.label))) return null;
    return `key ${p.keyId} may not deliver to ${address}: its inbox is outside the key's team or label scope`;
  }

  /** The inbox at an address, whoever owns it (for the open rehearsal page only). */
  async byAddress(address: string): Promise<InboxRow | undefined> {
    return this.repo.byAddress(address);
  }

  /** The inbox, if it exists, belongs to the caller's team and lies inside its label scope; else 404. */
  async get(p: Principal, id: string): Promise<InboxRow> {
    const inbox = await this.repo.byId(id);
    if (!inbox || inbox.team_id !== p.teamId || !labelInScope(p.scope, inbox.label)) {
      throw new AppError('not_found', `no inbox ${id} (it may have expired or been deleted; GET /v1/inboxes lists yours)`);
    }
    return inbox;
  }

  async list(
    p: Principal,
    q: { label?: string | undefined; limit: number; before?: { createdAt: number; id: string } | undefined },
  ): Promise<InboxRow[]> {
    return this.repo.list({ teamId: p.teamId, label: q.label, labelPrefix: p.scope.labelPrefix, limit: q.limit, before: q.before });
  }

  /**
   * Deletes every inbox of the caller with exactly this label (every one in its scope without a label), in batches
   * of 200 until none is left; the number deleted (svc_cleanup_inboxes).
   */
  async cleanup(p: Principal, label: string | undefined): Promise<number> {
    let deleted = 0;
    for (;;) {
      const batch = await this.list(p, { label, limit: 200 });
      if (batch.length === 0) break;
      for (const inbox of batch) {
        await this.delete(inbox);
        deleted++;
      }
    }
    return deleted;
  }

  async delete(inbox: InboxRow): Promise<void> {
    const shas = await this.messages.blobsOf({ inboxId: inbox.id });
    await this.writer.run(() => this.repo.delete(inbox.id));
    this.recentInboxes?.clear();
    this.bus.publish({ type: 'inbox.deleted', inboxId: inbox.id, teamId: inbox.team_id });
    await this.writer.collect(shas);
  }

  /** Removes expired inboxes and unclaimed mail past its keeping time. Returns what it removed. */
  async sweep(): Promise<{ inboxes: number; unclaimed: number }> {
    const now = this.clock.now();
    let inboxes = 0;
    for (;;) {
      const ids = await this.repo.expiredIds(now, 100);
      if (ids.length === 0) break;
      for (const id of ids) {
        const inbox = await this.repo.byId(id);
        if (inbox) await this.delete(inbox);
        inboxes++;
      }
    }
    let unclaimed = 0;
    for (;;) {
      const ids = await this.messages.expiredUnclaimedIds(now - this.config.unclaimedTtlMinutes * 60_000, 500);
      if (ids.length === 0) break;
      const shas = await this.messages.blobsOf({ messageIds: ids });
      await this.writer.run(() => this.messages.deleteByIds(ids));
      await this.writer.collect(shas);
      unclaimed += ids.length;
    }
    if (inboxes + unclaimed > 0) this.log.info('expired mail removed', { inboxes, unclaimed });
    return { inboxes, unclaimed };
  }

  private scopedLabel(p: Principal, label: string | undefined): string | null {
    const prefix = p.scope.labelPrefix;
    if (prefix === null) return label ?? null;
    if (label === undefined) return prefix;
    if (!label.startsWith(prefix))
      throw new AppError('forbidden', `this key may only use labels starting with ${JSON.stringify(prefix)}; got ${JSON.stringify(label)}`);
    return label;
  }
}
