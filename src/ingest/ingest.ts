// The one path every message takes — SMTP, simulate and provider webhooks alike:
// parse → extract → store (blobs + rows, group-committed) → publish. When accept() resolves, the message is
// durably stored; the SMTP listener answers 250 only then.
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../log.ts';
import type { Extraction } from '../mail/extract/index.ts';
import { headerTags, MAX_MESSAGE_LABELS, plusAddress } from '../mail/labels.ts';
import type { PresetId } from '../mail/presets.ts';
import type { ParsedMessage } from '../mail/types.ts';
import { indexContent } from '../search/indexer.ts';
import type { SearchDoc } from '../search/text.ts';
import type { MessageSummaryRow } from '../store/messages.ts';
import { precompile } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';
import { encodeSession, type SmtpSessionInfo } from '../store/session-facts.ts';
import { ThreadAssigner } from '../threads/assign.ts';
import { type Analyzer, inlineAnalyzer } from './analyzer.ts';
import { isMailRefused, type MailLimits, mailboxFull, NO_LIMITS, RefusalLog, unclaimedRefusal } from './limits.ts';
import type { IngestWriter, PreparedBlob, SeqRow } from './writer.ts';

export interface IngestRequest {
  raw: Buffer;
  /** Envelope recipients, already checked against the configured domains. */
  rcpts: string[];
  mailFrom: string | null;
  /** smtp | simulate | webhook:<provider> | send */
  source: string;
  /** What the SMTP session knew (client address, HELO, TLS, AUTH user), stored with each recipient row for the checks. */
  session?: SmtpSessionInfo;
  /**
   * Sending (src/outbound/): the sending inbox's own copy is stored too, as `direction: 'outbound'` (no event is
   * published for it: it wakes no wait and fires no callback), and `also` writes the outbox rows in the same
   * transaction. `rcpts` (the local recipients) may then be empty.
   */
  outbound?: {
    inboxAddress: string;
    also: (trx: Transaction<Database>, stored: { senderMessageId: string; local: Delivery[]; rawSha256: string }) => Promise<void>;
  };
}

export interface Delivery {
  rcpt: string;
  messageId: string;
  /** Null when no inbox owns the address yet: the mail is kept unclaimed. */
  inboxId: string | null;
  /** Set on the sender's own copy of a sent message (IngestRequest.outbound). */
  direction?: 'outbound';
}

/**
 * The team's saved label rules (src/labels/), evaluated in process against the arriving message: the labels they
 * add, given the labels it carries already. No query per message: the rules are held in memory.
 */
export interface RuleLabeler {
  labelsFor(m: {
    teamId: string;
    inboxLabel: string | null;
    doc: SearchDoc;
    labels: ReadonlySet<string>;
  }): Array<{ label: string; ruleId: string }>;
}

export class Ingest {
  private readonly writer: IngestWriter;
  private readonly bus: EventBus;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly trustedHosts: () => string[];
  private readonly analyzer: Analyzer;
  private readonly limits: () => MailLimits;
  private readonly refusals: RefusalLog;
  private readonly threads: ThreadAssigner;
  private readonly labeler: () => RuleLabeler | null;
  /** Messages analysed by `accept` so far, and their raw bytes (src/server/relief.ts watches them for a burst's end). */
  accepted = 0;
  acceptedBytes = 0;

  constructor(deps: {
    /** Label rules (wired after construction: the rules' service is built later). */
    labeler?: () => RuleLabeler | null;
    writer: IngestWriter;
    bus: EventBus;
    log: Logger;
    now: () => number;
    trustedHosts?: () => string[];
    analyzer?: Analyzer;
    limits?: () => MailLimits;
  }) {
    this.limits = deps.limits ?? (() => NO_LIMITS);
    this.refusals = new RefusalLog(deps.log, deps.now);
    this.trustedHosts = deps.trustedHosts ?? (() => []);
    this.analyzer = deps.analyzer ?? inlineAnalyzer;
    this.writer = deps.writer;
    this.bus = deps.bus;
    this.log = deps.log;
    this.now = deps.now;
    this.threads = new ThreadAssigner(deps.now);
    this.labeler = deps.labeler ?? (() => null);
  }

  async accept(req: IngestRequest): Promise<Delivery[]> {
    const rcpts = [...new Set(req.rcpts.map((r) => r.toLowerCase()))];
    if (rcpts.length === 0 && !req.outbound) throw new Error('a message needs at least one recipient');
    const {
      content: fields,
      // What threading and the full-text row need: made in the analysis (the worker thread), not here.
      threadFields,
      searchDoc: doc,
      attachments: parsedAttachments,
      rawSha256: rawSha,
      attachmentSha256,
      parseError,
    } = await this.analyzer.analyze(req.raw, this.trustedHosts());
    this.accepted++;
    this.acceptedBytes += req.raw.length;
    // A mail sink keeps what it was given: unparseable mail is stored raw, with empty parsed fields.
    if (parseError) this.log.warn('message could not be parsed; storing it raw', { err: new Error(parseError), size: req.raw.length });
    const blobs: PreparedBlob[] = [{ sha256: rawSha, bytes: req.raw }];
    const attachments = parsedAttachments.map((a, idx) => {
      const sha256 = attachmentSha256[idx]!;
      blobs.push({ sha256, bytes: a.content });
      return { idx, sha256, a };
    });
    const receivedAt = this.now();
    // Parsed content is stored once per raw message (keyed by its sha256, like the raw blob), however many
    // recipients it has; each recipient gets only a small row pointing at it (migration 004). Its columns come
    // ready from the analysis (serialised where the parse was made).
    const content = { sha256: rawSha, size: req.raw.length, ...fields };
    const { sha256: _s, text_body: _t, html_body: _h, headers_json: _hj, extraction_json: _x, ...summaryContent } = content;
    const limits = this.limits();
    // Labels from the message itself (README "Labels by rule"): X-Tags headers (parsed only when there is one).
    const tags = /"x-tags"/i.test(fields.headers_json) ? headerTags(JSON.parse(fields.headers_json) as Array<[string, string]>) : [];
    const labeler = this.labeler();
    // A plus address whose exact address has no inbox reaches the inbox of its base address: both are locked.
    const bases = rcpts.flatMap((r) => plusAddress(r)?.base ?? []);
    const sessionJson = encodeSession(req.session);

    const stored = await this.writer
      .store({
        blobs,
        weight: req.raw.length + rcpts.length * 512,
        inboxAddresses: [...rcpts, ...bases, ...(req.outbound ? [req.outbound.inboxAddress] : [])],
        content,
        refIds: threadFields.own ? [threadFields.own, ...threadFields.parents] : threadFields.parents,
        insert: async (trx: Transaction<Database>, counters, batch) => {
          const q = this.queries(trx);
          const isFresh = batch.freshContent(rawSha) ?? Number((await trx.executeQuery(q.insertContent(content))).numAffectedRows ?? 0) > 0;
          // A content already stored (the same raw bytes came before) keeps its attachment rows.
          if (isFresh) {
            for (const { idx, sha256, a } of attachments) {
              await trx.executeQuery(
                q.insertAttachment({
                  id: newId('att'),
                  content_sha256: rawSha,
                  idx,
                  filename: a.filename,
                  content_type: a.contentType,
                  disposition: a.disposition,
                  content_id: a.contentId,
                  size: a.size,
                  sha256,
                }),
              );
            }
          }
          const out: Array<{ delivery: Delivery; teamId: string | null; row: MessageSummaryRow & { labels?: string[] } }> = [];
          const unclaimed: { total?: number } = {};
          // The search row of a content carries the scope of the inboxes holding it: it is rewritten only when a new
          // inbox gets a copy. The same bytes mailed again to the same inboxes (a stranger can repeat them at will)
          // change nothing, and re-indexing them cost more with every earlier copy.
          // `added` counts the inboxes getting their first copy (a row of a content held by many inboxes is not rewritten
          // at all: src/search/indexer.ts SCOPE_INBOXES).
          let added = 0;
          // A fresh content's copies are this message's rows: its search scope needs no read.
          const copies: Array<{ team_id: string; id: string; label: string | null }> = [];
          const noteCopy = async (inbox: { id: string; team_id: string; label?: string | null }) => {
            if (isFresh) copies.push({ team_id: inbox.team_id, id: inbox.id, label: inbox.label ?? null });
            else if ((await trx.executeQuery(q.copyIn({ sha: rawSha, inbox: inbox.id }))).rows.length === 0) added++;
          };
          // Counting and inserting happen in this one transaction, so no parallel path can pass a limit.
          const maxSeq = limits.maxMessagesPerInbox > 0 ? limits.maxMessagesPerInbox : Number.MAX_SAFE_INTEGER;
          /** The inbox at an address with its next sequence number; throws when it is full; undefined: no inbox there. */
          const take = async (address: string): Promise<SeqRow | undefined> => {
            const held = batch.nextSeq(address, maxSeq);
            if (held === null) throw mailboxFull(address, limits.maxMessagesPerInbox);
            if (held) return held;
            const row = (await trx.executeQuery<SeqRow>(q.nextSeq({ address, max: maxSeq }))).rows[0];
            if (!row && (await trx.executeQuery(q.inboxAt({ address }))).rows.length > 0)
              throw mailboxFull(address, limits.maxMessagesPerInbox);
            return row;
          };
          for (const rcpt of rcpts) {
            let inbox = await take(rcpt);
            let plusTag: string | null = null;
            if (!inbox) {
              // user+tag@domain: no inbox has this exact address, so the inbox user@domain gets it, labelled tag.
              const plus = plusAddress(rcpt);
              if (plus) {
                inbox = await take(plus.base);
                if (inbox) plusTag = plus.tag;
              }
            }
            if (!inbox) {
              const refused = await unclaimedRefusal(trx, rcpt, limits, unclaimed);
              if (refused) throw refused;
            }
            const id = newId('msg');
            // Mail of an inbox joins its thread here, in this transaction; unclaimed mail is threaded when claimed.
            const threadId = inbox
              ? await this.threads.assign(
                  trx,
                  { inboxId: inbox.id, teamId: inbox.team_id, messageId: id, receivedAt },
                  threadFields,
                  batch.shared,
                )
              : null;
            if (inbox) await noteCopy(inbox);
            const row = {
              id,
              inbox_id: inbox?.id ?? null,
              rcpt,
              seq: inbox?.message_seq ?? 0,
              received_at: receivedAt,
              mail_from: req.mailFrom,
              source: req.source,
              content_sha256: rawSha,
              direction: 'inbound' as 'inbound' | 'outbound',
              thread_id: threadId,
              session_json: sessionJson,
            };
            await trx.executeQuery(q.insertMessage(row));
            const stored: string[] = [];
            if (inbox) {
              const labels = new Map<string, { source: 'plus' | 'header' | 'rule'; ruleId: string | null }>();
              if (plusTag) labels.set(plusTag, { source: 'plus', ruleId: null });
              for (const t of tags) if (!labels.has(t)) labels.set(t, { source: 'header', ruleId: null });
              if (labeler)
                for (const r of labeler.labelsFor({ teamId: inbox.team_id, inboxLabel: inbox.label, doc, labels: new Set(labels.keys()) }))
                  if (!labels.has(r.label)) labels.set(r.label, { source: 'rule', ruleId: r.ruleId });
              for (const [label, how] of [...labels].slice(0, MAX_MESSAGE_LABELS)) {
                await trx.executeQuery(q.insertLabel({ message_id: id, label, source: how.source, rule_id: how.ruleId }));
                stored.push(label);
              }
            }
            const teamId = inbox?.team_id ?? '';
            counters.add(teamId, 'messagesReceived', 1);
            counters.add(teamId, 'bytesReceived', req.raw.length);
            const { content_sha256: _c, session_json: _sj, ...envelope } = row;
            out.push({
              delivery: { rcpt, messageId: id, inboxId: inbox?.id ?? null },
              teamId: inbox?.team_id ?? null,
              // the labels in the order the messages list gives them (by label)
              row: { ...envelope, ...summaryContent, raw_sha256: rawSha, flags: 0, labels: stored.sort() },
            });
          }
          if (req.outbound) {
            const sender = req.outbound.inboxAddress;
            const inbox = await take(sender);
            if (!inbox) throw new AppError('not_found', `the sending inbox ${sender} was deleted meanwhile; nothing was sent`);
            const id = newId('msg');
            // Sent and received mail share threads: the sender's copy joins its conversation like any message.
            const threadId = await this.threads.assign(
              trx,
              { inboxId: inbox.id, teamId: inbox.team_id, messageId: id, receivedAt },
              threadFields,
              batch.shared,
            );
            await noteCopy(inbox);
            const row = {
              id,
              inbox_id: inbox.id,
              rcpt: sender,
              seq: inbox.message_seq,
              received_at: receivedAt,
              mail_from: req.mailFrom,
              source: req.source,
              content_sha256: rawSha,
              direction: 'outbound' as const,
              thread_id: threadId,
              session_json: null,
            };
            await trx.executeQuery(q.insertMessage(row));
            counters.add(inbox.team_id, 'messagesSent', 1);
            await req.outbound.also(trx, { senderMessageId: id, local: out.map((o) => o.delivery), rawSha256: rawSha });
            const { content_sha256: _c, session_json: _sj, ...envelope } = row;
            // Returned to the caller, never published (see IngestRequest.outbound).
            out.push({
              delivery: { rcpt: sender, messageId: id, inboxId: inbox.id, direction: 'outbound' },
              teamId: inbox.team_id,
              row: { ...envelope, ...summaryContent, raw_sha256: rawSha, flags: 0 },
            });
          }
          if ((isFresh || added > 0) && out.some((o) => o.delivery.inboxId))
            await indexContent(trx, rawSha, doc, isFresh, added, isFresh ? copies : undefined);
          return out;
        },
      })
      .catch((e: unknown) => {
        if (isMailRefused(e)) this.refusals.note(e, 'commit', req.source);
        throw e;
      });
    for (const s of stored) {
      if (s.delivery.inboxId && s.teamId && s.delivery.direction !== 'outbound')
        this.bus.publish({ type: 'message.received', inboxId: s.delivery.inboxId, teamId: s.teamId, message: s.row });
    }
    this.log.debug('message stored', { source: req.source, size: req.raw.length, deliveries: stored.map((s) => s.delivery) });
    return stored.map((s) => s.delivery);
  }

  /** A mail session opened: the analyzer's workers start now if they were stopped, not when its message is in. */
  warm(): void {
    this.analyzer.warm();
  }

  /** Extraction with a service preset on a stored parse, in the analyzer's worker threads (issue 11). */
  extract(parsed: ParsedMessage, service: PresetId, trustedHosts: string[], fallback: Extraction): Promise<Extraction> {
    return this.analyzer.extract(parsed, { service, trustedHosts }, fallback);
  }

  private compiled: ReturnType<typeof compileIngestQueries> | null = null;
  private queries(db: Kysely<Database>) {
    return (this.compiled ??= compileIngestQueries(db));
  }
}

const MESSAGE_COLUMNS = [
  'id',
  'inbox_id',
  'rcpt',
  'seq',
  'received_at',
  'mail_from',
  'source',
  'content_sha256',
  'direction',
  'thread_id',
  'session_json',
] as const;
const CONTENT_COLUMNS = [
  'sha256',
  'from_address',
  'from_name',
  'to_json',
  'cc_json',
  'subject',
  'date',
  'message_id_header',
  'in_reply_to',
  'references_json',
  'size',
  'text_body',
  'html_body',
  'headers_json',
  'attachment_count',
  'otp',
  'primary_link',
  'extraction_json',
] as const;
const ATTACHMENT_COLUMNS = [
  'id',
  'content_sha256',
  'idx',
  'filename',
  'content_type',
  'disposition',
  'content_id',
  'size',
  'sha256',
] as const;

/** The statements every stored message runs, compiled once (see store/prepared.ts). */
function compileIngestQueries(db: Kysely<Database>) {
  return {
    nextSeq: precompile(['address', 'max'], (p) =>
      db
        .updateTable('inboxes')
        .set((eb) => ({ message_seq: eb('message_seq', '+', 1) }))
        .where('address', '=', p.address)
        .where('message_seq', '<', p.max as unknown as number)
        .returning(['id', 'team_id', 'message_seq', 'label'])
        .compile(),
    ),
    inboxAt: precompile(['address'], (p) => db.selectFrom('inboxes').select('id').where('address', '=', p.address).compile()),
    /** A copy of this content already in this inbox (index message_rows_content_inbox, migration 020). */
    copyIn: precompile(['sha', 'inbox'], (p) =>
      db.selectFrom('message_rows').select('id').where('content_sha256', '=', p.sha).where('inbox_id', '=', p.inbox).limit(1).compile(),
    ),
    insertContent: precompile(CONTENT_COLUMNS, (p) =>
      db
        .insertInto('contents')
        .values(p as never)
        .onConflict((oc) => oc.column('sha256').doNothing())
        .compile(),
    ),
    insertMessage: precompile(
      MESSAGE_COLUMNS,
      (p) =>
        db
          .insertInto('message_rows')
          .values(p as never)
          .compile(),
      // New ids, no foreign key to the batch's other rows (its labels point at it and come after it).
      { deferrable: 'append' },
    ),
    insertLabel: precompile(
      ['message_id', 'label', 'source', 'rule_id'],
      (p) =>
        db
          .insertInto('message_labels')
          .values(p as never)
          .compile(),
      { deferrable: true },
    ),
    insertAttachment: precompile(
      ATTACHMENT_COLUMNS,
      (p) =>
        db
          .insertInto('content_attachments')
          .values(p as never)
          .compile(),
      { deferrable: true },
    ),
  };
}
