// Message checks (issue 28): run the check engine over a stored message (cached per content, data version and
// options), over supplied mail that was never sent, and on every arrival for inboxes that asked for it. On-arrival
// checks run off the SMTP acknowledgement path: the bus tells us after ingest committed, the message joins a bounded
// queue, and runners work through it in the background — in the pauses between arrivals, so checking never takes
// the CPU that acknowledging mail needs (a message waits at most MAX_DEFER_MS, then one runs at a time). Overflow is
// skipped and logged. Each finished on-arrival report is published as `message.checked` (SSE, callbacks).
import { AppError } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import { didYouMean } from '../lib/suggest.ts';
import type { Logger } from '../log.ts';
import type { BlobStore } from '../store/blob-store.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRepo } from '../store/messages.ts';
import type { CheckEngine, EngineInput } from './engine.ts';
import type { CheckRepo } from './repo.ts';
import type { CheckReport } from './report.ts';
import { mimeOf } from './supplied.ts';
import type { CheckOptions, RuleInfo, SessionFacts } from './types.ts';

/** Events the service listens to and publishes (src/events/bus.ts; structurally typed, so checks need no events import). */
type BusEvent =
  | { type: 'message.received'; inboxId: string; teamId: string; message: { id: string }; remote?: true }
  | { type: 'inbox.deleted'; inboxId: string; teamId: string }
  | { type: 'message.checked'; inboxId: string; teamId: string; messageId: string; data: Record<string, unknown> };

interface Bus {
  subscribeAll(listener: (e: BusEvent) => void): () => void;
  publish(event: BusEvent): void;
}

export interface CheckRequest {
  checks?: string[] | undefined;
  clients?: string[] | undefined;
  links?: { mode?: 'static' | 'reach' | undefined; includeVerificationLinks?: boolean | undefined } | undefined;
}

export type SuppliedMail =
  | { kind: 'eml'; raw: Buffer }
  | { kind: 'html'; html: string; text?: string | undefined; subject?: string | undefined };

export interface Explanation extends RuleInfo {
  check: string;
  rule: string;
  /** True when the check documents the rule; false: explained from the check's description only. */
  known: boolean;
}

interface Queued {
  inboxId: string;
  teamId: string;
  messageId: string;
  checks: string[];
  /** performance.now() when it was queued. */
  at: number;
}

/** Runners working through on-arrival checks at once (in a pause of the mail). */
const RUNNERS = 2;
/** No message arrived for this long: a pause, when on-arrival checks run. */
export const QUIET_MS = 200;
/** A queued message waits for a pause at most this long; then one message is checked at a time even under load. */
export const MAX_DEFER_MS = 60_000;

export class CheckService {
  private readonly engine: CheckEngine;
  private readonly repo: CheckRepo;
  private readonly messages: MessageRepo;
  private readonly blobs: BlobStore;
  private readonly bus: Bus;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly queueLimit: number;
  private readonly onFindings: (check: string, severity: string, n: number) => void;
  /** Inbox id → its on-arrival checks, or null for none (most inboxes): no query per message after the first. */
  private readonly arrival = new Map<string, string[] | null>();
  private readonly queue: Queued[] = [];
  private running = 0;
  private unsubscribe: (() => void) | null = null;
  private readonly stopping = new AbortController();
  private idleWaiters: Array<() => void> = [];
  private readonly facts: { get(messageId: string): Promise<SessionFacts | null> } | null;
  /** performance.now() of the last message stored (any inbox): the runners wait for a pause after it. */
  private lastArrival = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  /** On-arrival checks skipped because the queue was full (diagnostics, tests). */
  skipped = 0;

  constructor(d: {
    engine: CheckEngine;
    repo: CheckRepo;
    /** The SMTP session facts recorded at ingest (src/store/session-facts.ts); without it checks see none. */
    facts?: { get(messageId: string): Promise<SessionFacts | null> };
    messages: MessageRepo;
    blobs: BlobStore;
    bus: Bus;
    log: Logger;
    now: () => number;
    queueLimit: number;
    onFindings?: (check: string, severity: string, n: number) => void;
  }) {
    this.engine = d.engine;
    this.repo = d.repo;
    this.facts = d.facts ?? null;
    this.messages = d.messages;
    this.blobs = d.blobs;
    this.bus = d.bus;
    this.log = d.log;
    this.now = d.now;
    this.queueLimit = d.queueLimit;
    this.onFindings = d.onFindings ?? (() => undefined);
  }

  /** The checks this server has: name, description, version (discovery, `--checks` help). */
  catalogue(): Array<{ name: string; description: string; version: string; rules: string[] }> {
    return this.engine
      .list()
      .map((c) => ({ name: c.name, description: c.description, version: c.version ?? '0', rules: Object.keys(c.rules ?? {}) }));
  }

  /** Check names as asked (all when none), each known; a 400 naming the nearest for a typo. */
  namesOf(asked: readonly string[] | undefined, path = 'checks'): string[] {
    const known = this.engine.names();
    if (!asked || asked.length === 0) return known;
    const out: string[] = [];
    for (const raw of asked) {
      const n = raw.trim().toLowerCase();
      if (!known.includes(n))
        throw new AppError(
          'validation_failed',
          `${path}: no check named '${raw}'${didYouMean(n, known)}; this server has ${known.join(', ')}`,
          {
            errors: [{ path, message: `unknown check ${raw}` }],
          },
        );
      if (!out.includes(n)) out.push(n);
    }
    return out;
  }

  /** POST …/messages/:messageId/checks: runs the checks (or answers the cached report of the same content). */
  async checkMessage(inbox: InboxRow, messageId: string, req: CheckRequest, signal: AbortSignal): Promise<CheckReport> {
    const names = this.namesOf(req.checks);
    const options = optionsOf(req);
    const row = await this.messages.get(inbox.id, messageId);
    if (!row) throw new AppError('not_found', `no message ${messageId} in inbox ${inbox.id}`);
    return this.runStored(
      { inboxId: inbox.id, messageId: row.id, sha256: row.raw_sha256, mailFrom: row.mail_from, receivedAt: row.received_at },
      names,
      options,
      signal,
    );
  }

  /** GET …/messages/:messageId/checks: the last report, or 404 saying how to get one. */
  async lastReport(inbox: InboxRow, messageId: string): Promise<CheckReport> {
    const row = await this.messages.get(inbox.id, messageId);
    if (!row) throw new AppError('not_found', `no message ${messageId} in inbox ${inbox.id}`);
    const r = await this.repo.last(row.id);
    if (!r)
      throw new AppError(
        'not_found',
        `no checks have run on ${row.id} yet: POST /v1/inboxes/${inbox.id}/messages/${row.id}/checks runs them (or create the inbox with checks to run them on arrival)`,
      );
    return r;
  }

  /** POST /v1/checks: checks a supplied .eml or HTML without sending it (nothing is stored). */
  async checkSupplied(mail: SuppliedMail, req: CheckRequest, signal: AbortSignal): Promise<CheckReport> {
    const names = this.namesOf(req.checks);
    const raw = mail.kind === 'eml' ? mail.raw : mimeOf(mail, new Date(this.now()));
    if (mail.kind === 'eml' && !/^[\x21-\x39\x3b-\x7e]+:/m.test(raw.subarray(0, 4096).toString('latin1')))
      throw new AppError(
        'validation_failed',
        'the body is not a message: a .eml starts with header lines (From: …, Subject: …); send HTML as JSON {html, text?, subject?}',
      );
    const report = await this.engine.run(
      { messageId: null, raw, parsed: null, facts: null, options: optionsOf(req) },
      names,
      signal,
      this.now,
    );
    this.count(report);
    return report;
  }

  /** svc_explain_finding: what a rule checks, why it matters, how to fix it. */
  explain(check: string, rule: string): Explanation {
    const [name] = this.namesOf([check], 'check');
    const def = this.engine.get(name!)!;
    const info = def.rules?.[rule];
    if (info) return { check: def.name, rule, known: true, ...info };
    const rules = Object.keys(def.rules ?? {});
    if (rules.length > 0 && !rule.includes('/'))
      throw new AppError(
        'not_found',
        `the ${def.name} check has no rule '${rule}'${didYouMean(rule, rules)}; its rules: ${rules.join(', ')}`,
      );
    return {
      check: def.name,
      rule,
      known: false,
      title: rule,
      why: def.description,
      fix: 'Read the finding’s detail and docs link; the check does not document this rule further.',
    };
  }

  // --- on arrival -------------------------------------------------------------------------------------------------

  start(): void {
    this.unsubscribe = this.bus.subscribeAll((e) => this.onEvent(e));
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.queue.length = 0;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopping.abort(new Error('the server is stopping'));
    await this.idle();
  }

  /** Resolves when no on-arrival check is queued or running (tests, benches, stop). */
  idle(): Promise<void> {
    if (this.running === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Messages waiting or being checked (diagnostics). */
  pending(): number {
    return this.queue.length + this.running;
  }

  private onEvent(e: BusEvent): void {
    if (e.type === 'inbox.deleted') {
      this.arrival.delete(e.inboxId);
      return;
    }
    if (e.type !== 'message.received') return;
    this.lastArrival = performance.now();
    // The instance that stored the message checks it (another one hears of it only when it has listeners).
    if (e.remote) return;
    const known = this.arrival.get(e.inboxId);
    if (known === null) return;
    if (known) {
      this.enqueue({ inboxId: e.inboxId, teamId: e.teamId, messageId: e.message.id, checks: known, at: performance.now() });
      return;
    }
    void this.repo.arrivalChecks([e.inboxId]).then(
      (m) => {
        const checks = m.get(e.inboxId) ?? null;
        if (this.arrival.size >= 10_000) this.arrival.delete(this.arrival.keys().next().value!);
        this.arrival.set(e.inboxId, checks);
        if (checks) this.enqueue({ inboxId: e.inboxId, teamId: e.teamId, messageId: e.message.id, checks, at: performance.now() });
      },
      (err: unknown) => this.log.error('could not read an inbox’s on-arrival checks', { err: err as Error, inboxId: e.inboxId }),
    );
  }

  private enqueue(q: Queued): void {
    if (this.queue.length >= this.queueLimit) {
      this.skipped++;
      if (this.skipped === 1 || this.skipped % 100 === 0)
        this.log.warn('on-arrival checks skipped: the check queue is full (--check-queue); POST …/checks runs them later', {
          messageId: q.messageId,
          skipped: this.skipped,
        });
      return;
    }
    this.queue.push(q);
    this.pump();
  }

  private pump(): void {
    if (this.timer) return;
    while (this.running < RUNNERS && this.queue.length > 0) {
      const now = performance.now();
      const quietFor = now - this.lastArrival;
      const overdue = now - this.queue[0]!.at >= MAX_DEFER_MS;
      if (quietFor < QUIET_MS && !(overdue && this.running === 0)) {
        // Mail is arriving: wait for a pause (or, for an overdue message, for the runner to finish).
        if (this.running === 0) {
          this.timer = setTimeout(
            () => {
              this.timer = null;
              this.pump();
            },
            Math.max(10, QUIET_MS - quietFor),
          );
          this.timer.unref();
        }
        return;
      }
      const q = this.queue.shift()!;
      this.running++;
      void this.arrive(q).finally(() => {
        this.running--;
        if (this.running === 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
        else this.pump();
      });
    }
  }

  private async arrive(q: Queued): Promise<void> {
    try {
      const row = await this.messages.get(q.inboxId, q.messageId);
      if (!row) return;
      const names = q.checks.filter((n) => this.engine.get(n));
      const report = await this.runStored(
        { inboxId: q.inboxId, messageId: row.id, sha256: row.raw_sha256, mailFrom: row.mail_from, receivedAt: row.received_at },
        names,
        optionsOf({}),
        this.stopping.signal,
      );
      this.bus.publish({
        type: 'message.checked',
        inboxId: q.inboxId,
        teamId: q.teamId,
        messageId: row.id,
        data: checkedEvent(q.inboxId, report),
      });
    } catch (err) {
      if (!this.stopping.signal.aborted) this.log.error('on-arrival checks failed', { err: err as Error, messageId: q.messageId });
    }
  }

  // --- shared -----------------------------------------------------------------------------------------------------

  private async runStored(
    m: { inboxId: string; messageId: string; sha256: string; mailFrom: string | null; receivedAt: number },
    names: string[],
    options: CheckOptions,
    signal: AbortSignal,
  ): Promise<CheckReport> {
    const dataVersion = this.engine.dataVersion(names);
    const key = optionsKey(names, options);
    // Reach mode asks the network how things are now: never from the cache.
    if (options.links.mode !== 'reach') {
      const hit = await this.repo.cached(m.sha256, dataVersion, key);
      if (hit) {
        const report: CheckReport = { ...hit, messageId: m.messageId, cached: true };
        await this.save(m, report, dataVersion, key);
        return report;
      }
    }
    const raw = await this.blobs.get(m.sha256);
    // Parsed where the checks run: in the sandbox workers for the pure ones (src/checks/engine.ts).
    const parsed = null;
    // What the SMTP session knew (client address, HELO, TLS, AUTH user; migration 026): SPF needs it. Null for mail
    // that did not arrive over SMTP (simulate, webhooks, sent copies).
    const facts: SessionFacts | null = (await this.facts?.get(m.messageId)) ?? null;
    const input: EngineInput = { messageId: m.messageId, raw, parsed, facts, options };
    const report = await this.engine.run(input, names, signal, this.now);
    this.count(report);
    await this.save(m, report, dataVersion, key);
    return report;
  }

  private async save(m: { inboxId: string; messageId: string; sha256: string }, report: CheckReport, dataVersion: string, key: string) {
    const { cached: _c, ...stored } = report;
    await this.repo.save({
      id: newId('chk'),
      message_id: m.messageId,
      inbox_id: m.inboxId,
      content_sha256: m.sha256,
      data_version: dataVersion,
      options_key: key,
      report_json: JSON.stringify(stored),
      created_at: this.now(),
    });
  }

  private count(report: CheckReport): void {
    for (const [name, c] of Object.entries(report.checks)) {
      const by: Record<string, number> = {};
      for (const f of c.findings) by[f.severity] = (by[f.severity] ?? 0) + 1;
      for (const [sev, n] of Object.entries(by)) this.onFindings(name, sev, n);
    }
  }
}

export function optionsOf(req: CheckRequest): CheckOptions {
  return {
    clients: (req.clients ?? []).map((c) => c.trim()).filter((c) => c !== ''),
    links: { mode: req.links?.mode ?? 'static', includeVerificationLinks: req.links?.includeVerificationLinks ?? false },
  };
}

function optionsKey(names: string[], o: CheckOptions): string {
  return JSON.stringify([names, o.clients, o.links.mode, o.links.includeVerificationLinks]);
}

/** The `message.checked` event's data (SSE) and callback body's data: the summary and each check's status. */
export function checkedEvent(inboxId: string, r: CheckReport): Record<string, unknown> {
  const checks: Record<string, unknown> = {};
  for (const [n, c] of Object.entries(r.checks)) {
    let errors = 0;
    let warnings = 0;
    for (const f of c.findings) {
      if (f.severity === 'error') errors++;
      else if (f.severity === 'warning') warnings++;
    }
    checks[n] = { status: c.status, ...(c.score !== undefined ? { score: c.score } : {}), errors, warnings, findings: c.findings.length };
  }
  return { inboxId, messageId: r.messageId, checkedAt: r.checkedAt, summary: r.summary, checks };
}
