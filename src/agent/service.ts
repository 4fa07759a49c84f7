// The agent capability: verify and open (get an address, wait for the mail, extract the code or link, hand back the
// agent's next step, CONTRACT §4), extraction, a quick look and a diagnosis without waiting, simulated mail, the rehearsal
// signup page's mail, and the self-test.
// Built once by src/server/wire.ts; the operations in src/ops/agent/ validate, authorise and call one method here.
import type { Kysely } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import { encodedFor } from '../inboxes/encoded.ts';
import type { CreateInboxRequest, InboxService } from '../inboxes/service.ts';
import { type MailWaits, type WaitCall, waitFields } from '../inboxes/wait.ts';
import type { Ingest } from '../ingest/ingest.ts';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Extraction } from '../mail/extract/index.ts';
import { isPresetId, type PresetId } from '../mail/presets.ts';
import type { SimulateRequest } from '../mail/simulate.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRepo, MessageSummaryRow } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';
import { runSelfTest, type SelfTestReport } from './autotest.ts';
import { type Diagnosis, diagnosis, type ServedNames } from './diagnose.ts';
import { parsedFromRow } from './extraction.ts';
import { type Considered, MessagePicker } from './pick.ts';
import type { RehearsalSession, RehearsalStore } from './rehearsal.ts';
import { VerifyRepo } from './repo.ts';
import { type SimulatedDelivery, simulateInto } from './simulate.ts';
import { type HandedOut, resultOf, type VerifyResult, verifyResult, type WaitAndExtract } from './verify.ts';

/** What verify asks for once its request shape is checked (src/ops/agent/agent.ts): the label is already runId's. */
export interface VerifyRequest extends Omit<WaitAndExtract, 'inbox' | 'timeoutSeconds'> {
  /** Wait on this inbox; without it, create (or reuse) one. */
  inboxId?: string | undefined;
  timeoutSeconds?: number | undefined;
  label?: string | undefined;
  ttlMinutes?: number | undefined;
  localPart?: string | undefined;
  address?: string | undefined;
}

/** What open asks for: an inbox to create (or reuse), and a wait on it. */
export interface OpenRequest extends Omit<WaitAndExtract, 'inbox'>, Omit<CreateInboxRequest, 'service'> {}

const presetOf = (s: string | null): PresetId | undefined => (isPresetId(s) ? s : undefined);

/** verify's wait when the caller gives no timeoutSeconds on an existing inbox. */
export const VERIFY_DEFAULT_SECONDS = 60;

export class AgentService {
  private readonly picker: MessagePicker;
  private readonly messages: MessageRepo;
  private readonly ingest: Ingest;
  private readonly inboxes: InboxService;
  private readonly waits: MailWaits;
  private readonly baseUrl: () => string;
  private readonly shutdown: AbortSignal;
  private readonly maxMessageBytes: () => number;
  private readonly rehearsals: RehearsalStore;
  private readonly served: ServedNames;
  private readonly now: () => number;

  constructor(d: {
    db: Kysely<Database>;
    messages: MessageRepo;
    writer: Pick<IngestWriter, 'run'>;
    /** Delivers simulated mail; re-extracts with a service preset in its workers. */
    ingest: Ingest;
    inboxes: InboxService;
    waits: MailWaits;
    /** Public base URL (rawUrl, and inboxd's own host, whose links are trusted). */
    baseUrl: () => string;
    now: () => number;
    /** Aborted when the server begins to stop. */
    shutdown: AbortSignal;
    /** --max-message-bytes, for simulated mail. */
    maxMessageBytes: () => number;
    /** The rehearsal page's sessions (in memory). */
    rehearsals: RehearsalStore;
    /** The domains this server accepts mail for (diagnose's hints). */
    served: ServedNames;
  }) {
    this.messages = d.messages;
    this.ingest = d.ingest;
    this.inboxes = d.inboxes;
    this.waits = d.waits;
    this.baseUrl = d.baseUrl;
    this.shutdown = d.shutdown;
    this.maxMessageBytes = d.maxMessageBytes;
    this.rehearsals = d.rehearsals;
    this.served = d.served;
    this.now = d.now;
    this.picker = new MessagePicker({
      messages: d.messages,
      repo: new VerifyRepo(d.db),
      ingest: d.ingest,
      writer: d.writer,
      waits: d.waits,
      trustedHost: () => new URL(d.baseUrl()).hostname,
      now: d.now,
    });
  }

  /**
   * POST /v1/agent/verify once its request shape is checked: with `inboxId`, wait on that inbox (the caller's, else
   * 404); else create (or reuse) the inbox, emit its address at once (`inbox` event), and answer with the address to
   * type (rule 1) or wait on it (rule 3). A woken wait's answer carries its shared encoding (encodedFor).
   */
  async verify(p: Principal, call: WaitCall, r: VerifyRequest): Promise<VerifyResult> {
    if (r.inboxId !== undefined) {
      const inbox = await this.inboxes.get(p, r.inboxId);
      return this.waitAndExtract(call, {
        inbox,
        service: r.service ?? presetOf(inbox.service),
        timeoutSeconds: r.timeoutSeconds ?? VERIFY_DEFAULT_SECONDS,
        ...waitFields(r),
      });
    }
    const { inbox } = await this.inboxes.create(
      p,
      { label: r.label, ttlMinutes: r.ttlMinutes, localPart: r.localPart, address: r.address, service: r.service },
      { reuse: true },
    );
    call.emit?.('inbox', { inboxId: inbox.id, address: inbox.address });
    if (!r.timeoutSeconds) return this.addressResult(inbox, r.service);
    return this.waitAndExtract(call, { inbox, service: r.service, timeoutSeconds: r.timeoutSeconds, ...waitFields(r) });
  }

  /**
   * POST /v1/inboxes/open: create (or reuse) the inbox, emit its address (and a created inbox's callback secret) at
   * once, wait and extract. A created inbox's secret makes the answer its own (a copy, no shared encoding); else it
   * is the one every woken caller shares.
   */
  async open(p: Principal, call: WaitCall, r: OpenRequest): Promise<VerifyResult & { callbackSecret?: string }> {
    const { inbox, created } = await this.inboxes.create(
      p,
      {
        label: r.label,
        ttlMinutes: r.ttlMinutes,
        localPart: r.localPart,
        address: r.address,
        callbackUrl: r.callbackUrl,
        service: r.service,
      },
      { reuse: true },
    );
    const secret = created && inbox.callback_secret ? { callbackSecret: inbox.callback_secret } : {};
    call.emit?.('inbox', { inboxId: inbox.id, address: inbox.address, ...secret });
    const result = await this.waitAndExtract(call, { inbox, service: r.service, timeoutSeconds: r.timeoutSeconds, ...waitFields(r) });
    return secret.callbackSecret ? { ...result, ...secret } : result;
  }

  /** The answer for an inbox with no mail yet: the address to type (verify's rule 1). */
  private addressResult(inbox: InboxRow, service: PresetId | undefined): VerifyResult {
    return verifyResult(this.baseUrl(), inbox, null, { service });
  }

  /**
   * Waits for the newest matching message that carries a code or a link, extracts it, remembers it as handed out,
   * and optionally deletes the inbox; streams progress via `call.emit` (CONTRACT §4).
   */
  async waitAndExtract(call: WaitCall, w: WaitAndExtract): Promise<VerifyResult> {
    const started = Date.now();
    const progress = () =>
      call.emit?.('progress', { elapsedSeconds: Math.round((Date.now() - started) / 1000), timeoutSeconds: w.timeoutSeconds });
    call.emit?.('progress', { elapsedSeconds: 0, timeoutSeconds: w.timeoutSeconds });
    // By default only mail that arrived once the inbox existed: mail claimed at its creation (sent to the address
    // before, possibly planted by whoever guessed it) is handed out only to a caller who asks for it with `since`.
    // Each result is handed out once (CONTRACT §4): without `since`, only mail newer than the last one handed out.
    const mark = w.since === undefined ? await this.picker.mark(w.inbox.id) : undefined;
    const since =
      w.since !== undefined
        ? await this.waits.resolveSince(w.inbox.id, w.since)
        : { ...(mark ? { seq: mark.seq } : {}), time: w.inbox.created_at - 1 };
    const filter = { subjectContains: w.subjectContains, from: w.expectFrom };
    // Said at once (a stream event) and again in a timeout answer: the mail came, it was handed out, `since` gets it again.
    const handedOut = mark ? await this.picker.handedOut(w.inbox.id, mark, filter) : undefined;
    if (handedOut) call.emit?.('handed_out', handedOut);
    let bound = since;
    // The newest considered message without a code: the `received` answer if nothing better comes in time.
    let fallback: Considered | null = null;
    // One waiter slot for the whole call, taken only once it has to wait (a code already there costs none), so a
    // codeless mail in between cannot lose the slot to someone else.
    let release: (() => void) | undefined;
    try {
      for (;;) {
        const found = await this.picker.pickUsable(w.inbox.id, { ...filter, since: bound }, w.service);
        if (found.usable) return await this.finish(call, w, found.usable);
        // Each look starts after the last, so what it finds without a code is newer than the fallback so far.
        if (found.newestPlain) fallback = found.newestPlain;
        if (found.newestSeen !== null) bound = { ...bound, seq: found.newestSeen };
        const left = w.timeoutSeconds * 1000 - (Date.now() - started);
        if (left <= 0 || call.signal.aborted) break;
        release ??= this.waits.gate.acquire(call.owner);
        const hit = await this.waits.forMessage(w.inbox, { ...filter, since: bound }, left, call.signal, progress);
        if (!hit) break;
      }
    } finally {
      release?.();
    }
    return this.finish(call, w, fallback, handedOut);
  }

  private async finish(call: WaitCall, w: WaitAndExtract, c: Considered | null, handedOut?: HandedOut): Promise<VerifyResult> {
    // The result is built before the inbox goes, so its rawUrl names what was there (CONTRACT: result first).
    const result = resultOf(this.baseUrl(), w.inbox, c, {
      service: w.service,
      timedOut: !c,
      timeoutSeconds: w.timeoutSeconds,
      handedOut,
    });
    // timeout: the inbox stays (even with deleteAfter) so the retry action's inboxId works
    if (!c) return result;
    // A caller that went away gets nothing, so nothing is handed out.
    if (call.signal.aborted && !this.shutdown.aborted) return result;
    await this.picker.setMark(w.inbox.id, c.row);
    // deleteAfter removes the inbox only when the result stands on its own; a `received` result points the agent at
    // the raw message, so that inbox stays (until its TTL) for rawUrl to keep working.
    if (w.deleteAfter && result.status === 'verified') {
      await this.inboxes.delete(w.inbox);
      result.deleted = true;
    }
    // Every call woken by this message on this inbox answers the same: one encoding for all of them (encodingOf).
    return encodedFor(c, `${w.inbox.id}|${w.service ?? ''}|${result.deleted}`, () => result).view;
  }

  /**
   * The code, link and primary action of `messageId`, or of the newest message with a code or link (a later welcome
   * mail does not hide it, CONTRACT §4), else of the newest message; without waiting.
   */
  async extract(inbox: InboxRow, messageId: string | undefined, service: PresetId | undefined): Promise<VerifyResult> {
    const baseUrl = this.baseUrl();
    if (messageId) {
      const m = await this.messages.get(inbox.id, messageId);
      if (!m) throw new AppError('not_found', `no message ${messageId} in inbox ${inbox.id}`);
      // Extraction with a preset runs again on the stored parse: in the ingest workers, not on this thread.
      const extraction = service
        ? await this.ingest.extract(parsedFromRow(m), service, [new URL(baseUrl).hostname], JSON.parse(m.extraction_json) as Extraction)
        : undefined;
      return verifyResult(baseUrl, inbox, m, { service, extraction });
    }
    const pick = await this.picker.pickUsable(inbox.id, {}, service);
    return resultOf(baseUrl, inbox, pick.usable ?? pick.newestPlain, { service });
  }

  /** A quick look: the newest `limit` messages, how many there are, and the verify result of the best one. */
  async check(
    inbox: InboxRow,
    limit: number,
    service: PresetId | undefined,
  ): Promise<{ latest: MessageSummaryRow[]; count: number; newest: VerifyResult }> {
    const latest = await this.messages.list(inbox.id, limit);
    const pick = await this.picker.pickUsable(inbox.id, {}, service);
    const count = await this.messages.count(inbox.id);
    return { latest, count, newest: resultOf(this.baseUrl(), inbox, pick.usable ?? pick.newestPlain, { service }) };
  }

  /** Why the inbox has not received the expected mail: its state, its newest 10 messages and hints (svc_diagnose_inbox). */
  async diagnose(inbox: InboxRow): Promise<Diagnosis> {
    return diagnosis(inbox, await this.messages.list(inbox.id, 10), this.now(), this.served);
  }

  /** Simulated incoming mail, composed as real MIME and delivered through ingest like SMTP mail. */
  simulate(inbox: InboxRow, req: Omit<SimulateRequest, 'to'>): Promise<SimulatedDelivery> {
    return simulateInto({ ingest: this.ingest, maxMessageBytes: this.maxMessageBytes() }, inbox, req);
  }

  /**
   * The rehearsal signup: a session for `address`, and a code and a magic link mailed to the inbox there. The same
   * session whether or not some team has an inbox at the address (the page is open to anyone and must not tell which
   * addresses exist); nothing is mailed when none does.
   */
  async rehearse(address: string): Promise<RehearsalSession> {
    const inbox = await this.inboxes.byAddress(address);
    const session = await this.rehearsals.start(inbox?.address ?? address, inbox?.id ?? '');
    if (!inbox) return session;
    const link = `${this.baseUrl()}/v1/agent/test/magic?session=${session.id}&token=${session.linkToken}`;
    await this.simulate(inbox, {
      scenario: 'otp_and_link',
      from: 'Rehearsal App <verify@rehearsal.inboxd.test>',
      subject: 'Confirm your email for Rehearsal App',
      code: session.code,
      link,
    });
    return session;
  }

  /** GET /v1/agent/autotest: the whole flow end to end inside this server. */
  selfTest(p: Principal, call: WaitCall): Promise<SelfTestReport> {
    return runSelfTest(
      {
        inboxes: this.inboxes,
        simulate: (inbox, req) => this.simulate(inbox, req),
        waitAndExtract: (c, w) => this.waitAndExtract(c, w),
        latest: (inboxId) => this.messages.latest(inboxId),
      },
      p,
      call,
    );
  }
}
