// Sending from an inbox (CONTRACT §9). A send is routed per recipient: addresses at a domain inboxd serves are
// delivered locally through the ingest path (exactly like SMTP mail: waits, SSE, callbacks and verify see them);
// every other address goes through the operator's relay. The sender's copy (direction 'outbound'), the local copies
// and the outbox rows are written in one ingest transaction, so an accepted send is never half stored; relay
// deliveries then go out from the outbox, with retries on the callback schedule, and survive a restart.
// This file holds the routing and sender rules; it runs no query itself: the outbox rows go through OutboxRepo
// (src/outbound/outbox.ts), the look-up of the inboxes a send's local copies reached through src/outbound/repo.ts.

import type { Transaction } from 'kysely';
import { labelInScope } from '../auth/principal.ts';
import { RateLimiter, type SharedCount } from '../auth/rate-limit.ts';
import type { ServedDomains } from '../domains/served.ts';
import { AppError } from '../errors.ts';
import { RETRY_DELAYS_MS } from '../events/retry.ts';
import type { Ingest } from '../ingest/ingest.ts';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../log.ts';
import { type ComposeInput, composeMail, domainOf, type Mailbox } from '../mail/compose.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { Database } from '../store/schema.ts';
import type { NewOutbound, OutboundRow, OutboxRepo } from './outbox.ts';
import type { DkimFor, MailSender } from './relay.ts';
import { releaseMatcher } from './release.ts';
import { teamInboxLabels } from './repo.ts';
import { OutboundWorker, type WorkerTuning } from './worker.ts';

/** Recipients of one send, To, Cc and Bcc together: the RFC 5321 minimum a relay must take (§4.5.3.1.8). */
export const MAX_RECIPIENTS = 100;

export interface SendRequest {
  inbox: InboxRow;
  to: Mailbox[];
  cc: Mailbox[];
  bcc: Mailbox[];
  replyTo: Mailbox[];
  subject: string;
  text: string | undefined;
  html: string | undefined;
  attachments: ComposeInput['attachments'];
  inReplyTo: string | null;
  references: string[];
  /** For the log line: the key that sent. */
  keyId: string | null;
  /** Sent by the workspace with no person's approval: `Auto-Submitted: auto-replied` (RFC 3834). */
  autoSubmitted?: boolean;
  /**
   * Why the caller may not deliver to a local recipient (`--smtp-auth required`: only its own scope, as over SMTP),
   * or null. Checked for every local recipient before anything is stored; one refusal refuses the send (403).
   */
  mayNotDeliverTo?: (address: string) => Promise<string | null>;
  /** The sending key's label prefix: local copies in inboxes outside it are described like unclaimed ones. */
  labelPrefix?: string | null;
}

export interface RecipientState {
  address: string;
  kind: 'to' | 'cc' | 'bcc';
  route: 'local' | 'relay';
  state: 'queued' | 'sent' | 'failed';
  attempts: number;
  /** The relay's last answer (or the error talking to it); for local recipients where the copy went. */
  response: string | null;
  /** Local recipients: the id of the copy stored for them (null when no inbox owned the address: kept unclaimed). */
  deliveredMessageId: string | null;
  nextAttemptAt: string | null;
}

export interface SendResult {
  messageId: string;
  rfcMessageId: string;
  inReplyTo: string | null;
  references: string[];
  recipients: RecipientState[];
}

export class OutboundService {
  private readonly ingest: Ingest;
  private readonly outbox: OutboxRepo;
  private readonly served: ServedDomains;
  private readonly sender: MailSender | null;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly maxMessageBytes: () => number;
  /** Sends per minute per team (--max-sends-per-minute). */
  private readonly sends: RateLimiter;
  readonly worker: OutboundWorker;
  private readonly relayFrom: ReadonlySet<string>;
  private readonly releaseAllow: readonly string[];
  private readonly mayRelease: (address: string) => boolean;

  constructor(d: {
    ingest: Ingest;
    outbox: OutboxRepo;
    blobs: BlobStore;
    served: ServedDomains;
    /** Null without --smtp-relay: then only local recipients can be sent to. */
    sender: MailSender | null;
    dkimFor: DkimFor;
    log: Logger;
    now: () => number;
    maxMessageBytes: () => number;
    maxSendsPerMinute: number;
    /** On a cluster: sends are counted in the database, over every instance. */
    sendCount?: SharedCount | null;
    /** --relay-from-domains: domains beyond the served ones and the team's own that may send through the relay. */
    relayFromDomains?: readonly string[];
    /** --release-allow: the globs of addresses a captured message may be released to (empty: release is off). */
    releaseAllow?: readonly string[];
    tuning?: WorkerTuning | undefined;
  }) {
    this.relayFrom = new Set(d.relayFromDomains ?? []);
    this.releaseAllow = d.releaseAllow ?? [];
    this.mayRelease = releaseMatcher(this.releaseAllow);
    this.ingest = d.ingest;
    this.outbox = d.outbox;
    this.served = d.served;
    this.sender = d.sender;
    this.log = d.log;
    this.now = d.now;
    this.maxMessageBytes = d.maxMessageBytes;
    this.sends = new RateLimiter(
      d.maxSendsPerMinute,
      d.now,
      (n) => `this team sent more than ${n} messages this minute (--max-sends-per-minute)`,
      d.sendCount ?? null,
    );
    this.worker = new OutboundWorker({
      outbox: d.outbox,
      blobs: d.blobs,
      sender: d.sender,
      dkimFor: d.dkimFor,
      log: d.log,
      now: d.now,
      tuning: { retryDelaysMs: RETRY_DELAYS_MS, ...d.tuning },
    });
  }

  get relayConfigured(): boolean {
    return this.sender !== null;
  }

  async send(req: SendRequest): Promise<SendResult> {
    const self = req.inbox.address.toLowerCase();
    const recipients: Array<{ address: string; kind: 'to' | 'cc' | 'bcc'; route: 'local' | 'relay' }> = [];
    const seen = new Set<string>();
    for (const [kind, list] of [
      ['to', req.to],
      ['cc', req.cc],
      ['bcc', req.bcc],
    ] as const) {
      for (const a of list) {
        const address = a.address.toLowerCase();
        if (seen.has(address)) continue;
        seen.add(address);
        // --accept-any-domain does not make a domain local: only served domains are (ServedDomains.isServed).
        // On a cluster a domain verified on another instance counts too (isServedFresh looks again on a miss).
        recipients.push({ address, kind, route: (await this.served.isServedFresh(domainOf(address))) ? 'local' : 'relay' });
      }
    }
    if (recipients.length === 0)
      throw new AppError('validation_failed', 'a message needs at least one recipient in to, cc or bcc', {
        errors: [{ path: 'to', message: 'at least one recipient is needed' }],
      });
    if (recipients.length > MAX_RECIPIENTS)
      throw new AppError('validation_failed', `at most ${MAX_RECIPIENTS} recipients per message (to, cc and bcc together)`, {
        errors: [{ path: 'to', message: `at most ${MAX_RECIPIENTS} recipients (to, cc and bcc together); got ${recipients.length}` }],
      });
    if (req.mayNotDeliverTo)
      for (const r of recipients.filter((x) => x.route === 'local')) {
        const why = await req.mayNotDeliverTo(r.address);
        if (why) throw new AppError('forbidden', `${why} (--smtp-auth required); nothing was sent`);
      }
    const external = recipients.filter((r) => r.route === 'relay');
    if (external.length > 0 && !this.sender)
      throw new AppError(
        'not_configured',
        `outbound mail to ${external[0]!.address}${external.length > 1 ? ` (and ${external.length - 1} more)` : ''} needs a relay: this server delivers only to ${this.served.describe()} without one; the operator sets --smtp-relay (INBOXD_SMTP_RELAY). Nothing was sent.`,
      );
    await this.refuseSender(req.inbox, external.length > 0);
    await this.sends.hit(req.inbox.team_id);

    const composed = await composeMail({
      from: req.inbox.address,
      to: req.to,
      cc: req.cc,
      bcc: req.bcc,
      replyTo: req.replyTo,
      subject: req.subject,
      text: req.text,
      html: req.html,
      attachments: req.attachments,
      inReplyTo: req.inReplyTo,
      references: req.references,
      date: new Date(this.now()),
      autoSubmitted: req.autoSubmitted ?? false,
    });
    const max = this.maxMessageBytes();
    if (composed.raw.length > max)
      throw new AppError(
        'payload_too_large',
        `the composed message is ${composed.raw.length} bytes, over the ${max}-byte limit (--max-message-bytes); send smaller or fewer attachments`,
      );

    const now = this.now();
    let rows: NewOutbound[] = [];
    const stored = await this.ingest.accept({
      raw: composed.raw,
      rcpts: recipients.filter((r) => r.route === 'local').map((r) => r.address),
      mailFrom: req.inbox.address,
      source: 'send',
      outbound: {
        inboxAddress: req.inbox.address,
        also: async (trx: Transaction<Database>, s) => {
          // A copy that landed in another team's inbox (or one outside the key's label scope) is described exactly like
          // one kept unclaimed (no inbox named): a send must not tell whether, or as which inbox, another has an address.
          const inboxIds = [...new Set(s.local.flatMap((d) => (d.inboxId ? [d.inboxId] : [])))];
          const ours = new Set(
            (await teamInboxLabels(trx, req.inbox.team_id, inboxIds))
              .filter((i) => labelInScope({ labelPrefix: req.labelPrefix ?? null, readOnly: false }, i.label))
              .map((i) => i.id),
          );
          const localIds = new Map(s.local.map((d) => [d.rcpt, d.inboxId !== null && !ours.has(d.inboxId) ? { ...d, inboxId: null } : d]));
          rows = recipients.map((r) => {
            const local = r.route === 'local' ? localIds.get(r.address) : undefined;
            return {
              id: newId('dlv'),
              message_id: s.senderMessageId,
              inbox_id: req.inbox.id,
              team_id: req.inbox.team_id,
              rcpt: r.address,
              kind: r.kind,
              route: r.route,
              mail_from: self,
              raw_sha256: s.rawSha256,
              sender_domain: domainOf(self),
              state: r.route === 'local' ? 'sent' : 'queued',
              attempts: r.route === 'local' ? 1 : 0,
              response:
                r.route === 'local'
                  ? local?.inboxId
                    ? `stored in inbox ${local.inboxId}`
                    : 'stored, unclaimed by this team (no inbox of this team has this address)'
                  : null,
              next_attempt_at: r.route === 'local' ? null : now,
              local_message_id: local?.messageId ?? null,
              created_at: now,
              updated_at: now,
            };
          });
          await this.outbox.insert(trx, rows);
        },
      },
    });
    const senderCopy = stored.find((d) => d.direction === 'outbound')!;
    this.log.info('message sent', {
      inboxId: req.inbox.id,
      messageId: senderCopy.messageId,
      keyId: req.keyId,
      local: recipients.length - external.length,
      relay: external.length,
      size: composed.raw.length,
    });
    if (external.length > 0) this.worker.poke();
    return {
      messageId: senderCopy.messageId,
      rfcMessageId: composed.messageId,
      inReplyTo: req.inReplyTo,
      references: req.references,
      recipients: rows.map((r) => recipientState(r as OutboundRow)),
    };
  }

  /**
   * Who may send as which domain (README "Sending and replying", *Sender domains*): never from an address at another
   * team's verified custom domain (an inbox left there from --accept-any-domain); through the relay only from a
   * --domain, the team's own verified custom domain, or one --relay-from-domains names.
   */
  private async refuseSender(inbox: InboxRow, viaRelay: boolean): Promise<void> {
    const domain = domainOf(inbox.address);
    // On a cluster the domain may have been verified on another instance: read its state fresh.
    await this.served.isServedFresh(domain);
    const owner = this.served.ownerOf(domain);
    if (owner !== null && owner !== inbox.team_id)
      throw new AppError(
        'forbidden',
        `${domain} is another team's verified custom domain: inbox ${inbox.id} may not send from it; use an inbox at a domain of your own. Nothing was sent.`,
      );
    if (!viaRelay || this.served.isConfigured(domain) || owner === inbox.team_id || this.relayFrom.has('*') || this.relayFrom.has(domain))
      return;
    throw new AppError(
      'forbidden',
      `inbox ${inbox.id} is at ${domain}, which this team may not send from through the relay: only the --domain names (${this.served.configuredNames().join(', ')}), your team's verified custom domains${this.relayFrom.size > 0 ? `, and ${[...this.relayFrom].join(', ')}` : ''} (--relay-from-domains). Nothing was sent.`,
    );
  }

  /**
   * Sends a captured message on to real addresses through the relay (README "Release"): the stored bytes unchanged
   * (no DKIM signature, no Resent-* header), the envelope sender the inbox's own address, each target checked
   * against --release-allow before anything is queued. Deliveries go through the outbox like a send's.
   */
  async release(req: { inbox: InboxRow; messageId: string; to: string[]; keyId: string | null }): Promise<RecipientState[]> {
    const targets = [...new Set(req.to.map((a) => a.trim().toLowerCase()))];
    if (targets.length === 0)
      throw new AppError('validation_failed', 'give at least one address in to', {
        errors: [{ path: 'to', message: 'at least one address' }],
      });
    if (targets.length > MAX_RECIPIENTS)
      throw new AppError('validation_failed', `at most ${MAX_RECIPIENTS} addresses per release`, {
        errors: [{ path: 'to', message: `at most ${MAX_RECIPIENTS}; got ${targets.length}` }],
      });
    if (!this.sender)
      throw new AppError(
        'not_configured',
        "release sends through the operator's relay, and this server has none: the operator sets --smtp-relay (INBOXD_SMTP_RELAY) and --release-allow. Nothing was sent.",
      );
    if (this.releaseAllow.length === 0)
      throw new AppError(
        'forbidden',
        'release is off on this server: the operator names the addresses mail may be released to with --release-allow (e.g. *@staging.example.com). Nothing was sent.',
      );
    const refused = targets.filter((t) => !this.mayRelease(t));
    if (refused.length > 0)
      throw new AppError(
        'forbidden',
        `${refused.slice(0, 5).join(', ')}${refused.length > 5 ? ` (and ${refused.length - 5} more)` : ''} ${refused.length === 1 ? 'is' : 'are'} not an allowed release target (--release-allow: ${this.releaseAllow.join(', ')}). Nothing was sent.`,
      );
    const msg = await this.outbox.captured(req.inbox.id, req.messageId);
    if (!msg) throw new AppError('not_found', `no message ${req.messageId} in inbox ${req.inbox.id}`);
    await this.refuseSender(req.inbox, true);
    await this.sends.hit(req.inbox.team_id);
    const now = this.now();
    const self = req.inbox.address.toLowerCase();
    const rows: NewOutbound[] = targets.map((rcpt) => ({
      id: newId('dlv'),
      message_id: msg.id,
      inbox_id: req.inbox.id,
      team_id: req.inbox.team_id,
      rcpt,
      kind: 'to',
      route: 'relay',
      mail_from: self,
      raw_sha256: msg.raw_sha256,
      // No domain: a released message is never DKIM-signed (its bytes go out exactly as they were captured).
      sender_domain: '',
      state: 'queued',
      attempts: 0,
      response: null,
      next_attempt_at: now,
      local_message_id: null,
      created_at: now,
      updated_at: now,
    }));
    await this.outbox.insertNow(rows);
    this.log.info('message released', {
      inboxId: req.inbox.id,
      messageId: msg.id,
      keyId: req.keyId,
      targets: targets.length,
      size: msg.size,
    });
    this.worker.poke();
    return rows.map((r) => recipientState(r as OutboundRow));
  }

  async deliveriesOf(messageId: string): Promise<RecipientState[]> {
    return (await this.outbox.ofMessage(messageId)).map(recipientState);
  }

  start(): Promise<void> {
    return this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}

export function recipientState(r: OutboundRow): RecipientState {
  return {
    address: r.rcpt,
    kind: r.kind,
    route: r.route,
    state: r.state,
    attempts: r.attempts,
    response: r.response,
    deliveredMessageId: r.local_message_id,
    nextAttemptAt: r.next_attempt_at === null ? null : new Date(r.next_attempt_at).toISOString(),
  };
}
