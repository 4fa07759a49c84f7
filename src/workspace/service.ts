// The workspace capability (CONTRACT §13) as one service: summaries and drafts over the model chain, the policy and
// its safety rules, execute-reply, reminders, the action log, the today view and the execute tools' idempotency
// keys. Built once by the composition root with narrow dependencies; the operations in src/ops/workspace/ call
// one method each. Monitors are their own service (monitor-service.ts).

import type { Kysely } from 'kysely';
import type { AiService } from '../ai/service.ts';
import type { Principal } from '../auth/principal.ts';
import type { ServedDomains } from '../domains/served.ts';
import { AppError } from '../errors.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { MessageRepo } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';
import { draftWith, type EngineConfig, summarizeWith } from './engine.ts';
import { type ExecuteRequest, type ExecuteResult, ReplyExecutor } from './execute.ts';
import { IdempotencyKeys, type Once } from './idempotency.ts';
import { MailReads } from './mail-reads.ts';
import type { WorkspaceMailer } from './mailer.ts';
import { Reminders } from './reminders.ts';
import { type NewAction, type NewDraft, type Policy, WorkspaceRepo } from './repo.ts';
import { type Check, DEFAULT_SETTINGS, decide, evaluateRules, type PolicySettings } from './rules.ts';
import { fromRow, fromSupplied, type SourceInput, type SuppliedMail, type WsMessage } from './source.ts';
import { type ActionRow, type DraftRow, POLICY_MODES, type PolicyMode } from './tables.ts';
import { TodayView } from './today.ts';

/** How the workspace talks to models: limits of a call and the API keys (the links come from the AI service). */
export interface EngineSettings {
  timeoutMs: number;
  maxInputChars: number;
  keys: { openai?: string; anthropic?: string };
}

export interface WorkspaceDeps {
  db: Kysely<Database>;
  now: () => number;
  inboxes: Pick<InboxService, 'get'>;
  messages: Pick<MessageRepo, 'get'>;
  served: Pick<ServedDomains, 'isServed'>;
  /** Whether the outbound service has a relay (OutboundService.relayConfigured): without one, outside domains fail. */
  relayConfigured: () => boolean;
  /** How replies are sent (src/outbound/workspace-mailer.ts). */
  mailer: WorkspaceMailer;
  /** The AI service, for its model chain and readiness (read when used, so it may be built after this service). */
  ai: () => Pick<AiService, 'links' | 'status'>;
  engine: EngineSettings;
}

/** A reply to evaluate: a stored message (inboxId + messageId) or a supplied one with its headers. */
export interface EvaluateRequest {
  inboxId?: string | undefined;
  messageId?: string | undefined;
  message?: (SuppliedMail & { headers?: Record<string, string> | undefined }) | undefined;
  text?: string | undefined;
  html?: string | undefined;
  attachmentCount?: number | undefined;
}

export class WorkspaceService {
  readonly reminders: Reminders;
  readonly today: TodayView;
  private readonly d: WorkspaceDeps;
  private readonly repo: WorkspaceRepo;
  private readonly mail: MailReads;
  private readonly keys: IdempotencyKeys;
  private readonly replies: ReplyExecutor;

  constructor(d: WorkspaceDeps) {
    this.d = d;
    this.repo = new WorkspaceRepo(d.db);
    this.mail = new MailReads(d.db);
    this.keys = new IdempotencyKeys({ db: d.db, now: d.now });
    const base = { repo: this.repo, mail: this.mail, inboxes: d.inboxes, now: d.now };
    this.replies = new ReplyExecutor({
      ...base,
      messages: d.messages,
      served: d.served,
      relayConfigured: d.relayConfigured,
      mailer: d.mailer,
      engine: () => this.engine(),
    });
    this.reminders = new Reminders({ ...base, messages: d.messages, load: (p, input) => this.loadSource(p, input) });
    this.today = new TodayView({ ...base, reminders: this.reminders, replies: this.replies });
  }

  /** The model chain as the AI service has it now, with the workspace's limits. */
  private engine(): EngineConfig {
    const e = this.d.engine;
    return {
      chain: { links: this.d.ai().links, timeoutMs: e.timeoutMs, maxResponseBytes: 256 * 1024, keys: e.keys },
      maxInputChars: e.maxInputChars,
    };
  }

  /** The mail a request names, oldest first: supplied, a stored thread, or one stored message. */
  async loadSource(p: Principal, input: SourceInput): Promise<WsMessage[]> {
    const stored = input.inboxId !== undefined;
    if (stored === (input.messages !== undefined))
      throw new AppError('validation_failed', 'give either messages (the thread itself) or inboxId with threadId or messageId', {
        errors: [{ path: 'messages', message: 'give messages or inboxId' }],
      });
    if (input.messages) return fromSupplied(input.messages, input.me);
    const inbox = await this.d.inboxes.get(p, input.inboxId!);
    if ((input.threadId === undefined) === (input.messageId === undefined))
      throw new AppError('validation_failed', 'with inboxId, give exactly one of threadId or messageId', {
        errors: [{ path: 'threadId', message: 'give threadId or messageId' }],
      });
    if (input.messageId) {
      const row = await this.d.messages.get(inbox.id, input.messageId);
      if (!row) throw new AppError('not_found', `no message ${input.messageId} in inbox ${inbox.id}`);
      return [fromRow(row, inbox.address)];
    }
    const rows = await this.mail.thread(inbox.id, input.threadId!);
    if (!rows.length) throw new AppError('not_found', `no thread ${input.threadId} in inbox ${inbox.id}`);
    return rows.map((r) => fromRow(r, inbox.address));
  }

  /** The hub: the policy, model readiness and the team's counts. */
  async hub(p: Principal) {
    const models = this.d.ai().status();
    return {
      policy: await this.repo.policy(p.teamId),
      models: {
        fallbackOrder: models.map((m) => (m.provider === 'builtin' ? 'builtin' : `${m.provider}:${m.model}`)),
        ready: models.some((m) => m.ready),
      },
      counts: await this.repo.counts(p.teamId),
    };
  }

  async summarize(p: Principal, input: SourceInput & { engine: 'auto' | 'builtin' }, signal: AbortSignal) {
    const mail = await this.loadSource(p, input);
    const r = await summarizeWith(this.engine(), mail, input.engine, signal);
    return { ...r, messageCount: mail.length };
  }

  /** A draft of the reply to the newest inbound message; kept (with a `draft` action) when it answers stored mail. */
  async draftReply(p: Principal, input: SourceInput & { notes?: string[] | undefined; engine: 'auto' | 'builtin' }, signal: AbortSignal) {
    const mail = await this.loadSource(p, input);
    const d = await draftWith(this.engine(), mail, input.notes ?? [], input.engine, signal);
    let draftId: string | null = null;
    const target = mail.filter((m) => m.direction === 'inbound').at(-1);
    if (input.inboxId && target?.id) {
      const now = this.d.now();
      const row = await this.repo.storeDraft(
        p,
        {
          inboxId: input.inboxId,
          messageId: target.id,
          threadId: target.threadId,
          to: d.to,
          subject: d.subject,
          text: d.text,
          reasons: [],
        },
        now,
      );
      draftId = row.id;
      await this.repo.logAction(
        p,
        { type: 'draft', inboxId: input.inboxId, threadId: target.threadId, messageId: target.id, draftId },
        now,
      );
    }
    return { draftId, ...d };
  }

  policy(p: Principal): Promise<Policy> {
    return this.repo.policy(p.teamId);
  }

  /** Sets the mode; settings not given keep their current values. */
  async setPolicy(p: Principal, mode: PolicyMode, settings: Partial<PolicySettings> | undefined): Promise<Policy> {
    const cur = await this.repo.policy(p.teamId);
    return this.repo.setPolicy(p, mode, { ...DEFAULT_SETTINGS, ...cur.settings, ...(settings ?? {}) }, this.d.now());
  }

  /** The current mode and how many replies were sent, drafted and blocked in the last 24 hours. */
  async rulesStatus(p: Principal) {
    const n = await this.repo.actionCounts(p.teamId, ['sent', 'draft', 'blocked'], this.d.now() - 24 * 3600_000);
    return {
      mode: (await this.repo.policy(p.teamId)).mode,
      last24h: { sent: n.get('sent') ?? 0, draft: n.get('draft') ?? 0, blocked: n.get('blocked') ?? 0 },
    };
  }

  /** Every rule on a reply, and what each mode would do with it; stores, sends and logs nothing. */
  async evaluate(p: Principal, input: EvaluateRequest, signal: AbortSignal) {
    const policy = await this.repo.policy(p.teamId);
    let checks: Check[];
    let reply: { to: string; text: string };
    if (input.inboxId && input.messageId && !input.message) {
      const r = await this.replies.resolve(
        p,
        { inboxId: input.inboxId, messageId: input.messageId, text: input.text, html: input.html },
        signal,
      );
      r.ctx.reply.attachmentCount = input.attachmentCount ?? 0;
      checks = evaluateRules(r.ctx);
      reply = { to: r.ctx.reply.to, text: r.ctx.reply.text };
    } else if (input.message && !input.inboxId && !input.messageId) {
      const [src] = fromSupplied([input.message], undefined);
      src!.headers = Object.entries(input.message.headers ?? {});
      const text = input.text ?? (await draftWith(this.engine(), [src!], [], 'builtin', signal)).text;
      reply = { to: src!.from, text };
      checks = evaluateRules({
        source: src!,
        thread: [src!],
        reply: { ...reply, ...(input.html ? { html: input.html } : {}), attachmentCount: input.attachmentCount ?? 0 },
        knownDomains: null,
        isServedDomain: (dom) => this.d.served.isServed(dom),
        relayConfigured: this.d.relayConfigured(),
        sentToday: { team: 0, thread: 0 },
        settings: policy.settings,
      });
    } else {
      throw new AppError('validation_failed', 'give inboxId + messageId (a stored message) or message (a supplied one)', {
        errors: [{ path: 'messageId', message: 'give inboxId + messageId or message' }],
      });
    }
    return { ...judge(policy.mode, checks), reply };
  }

  /**
   * A stored draft as a person reviews it (the console's today view): its text and recipient, and — for a draft of
   * a stored message — every rule's verdict on it and what each mode would do, as `rules/evaluate` with the draft.
   * A draft of an inbox outside the key's scope is 404 like the inbox.
   */
  async reviewDraft(p: Principal, id: string, signal: AbortSignal) {
    const d = await this.repo.draft(p.teamId, id);
    const hidden =
      !d ||
      (d.inbox_id !== null &&
        (await this.d.inboxes.get(p, d.inbox_id).then(
          () => false,
          () => true,
        )));
    if (!d || hidden) throw new AppError('not_found', `no draft ${id} (GET /v1/workspace/today lists the drafts awaiting a decision)`);
    const draft = {
      draftId: d.id,
      status: d.status,
      inboxId: d.inbox_id,
      messageId: d.message_id,
      threadId: d.thread_id,
      to: d.to_address,
      subject: d.subject,
      text: d.text,
      reasons: JSON.parse(d.reasons_json) as string[],
      createdAt: d.created_at,
    };
    if (!d.inbox_id || !d.message_id) return { draft, evaluation: null };
    const policy = await this.repo.policy(p.teamId);
    const r = await this.replies.resolve(p, { inboxId: d.inbox_id, messageId: d.message_id, draftId: d.id }, signal);
    return { draft, evaluation: judge(policy.mode, evaluateRules(r.ctx)) };
  }

  /** execute-reply: the reply decided by the policy, sent or kept as a draft, always logged. */
  async executeReply(p: Principal, req: ExecuteRequest, signal: AbortSignal): Promise<ExecuteResult> {
    return this.replies.execute(p, req, await this.replies.resolve(p, req, signal));
  }

  /** Runs an execute tool's work at most once per idempotency key of the team (src/workspace/idempotency.ts). */
  once<T>(p: Principal, key: string | null, request: unknown, what: string, work: () => Promise<T>): Promise<Once<T>> {
    return this.keys.run(p.teamId, key, request, what, work);
  }

  /** For the provider services: a workspace action logged on behalf of a draft or event they made. */
  logAction(p: Principal, a: NewAction): Promise<ActionRow> {
    return this.repo.logAction(p, a, this.d.now());
  }

  /** For the local mailbox: an inboxd workspace draft (never sent). */
  storeDraft(p: Principal, d: NewDraft): Promise<DraftRow> {
    return this.repo.storeDraft(p, d, this.d.now());
  }
}

/** The verdict of the rules on a reply: what the current mode does with it, and what each mode would do. */
function judge(mode: PolicyMode, checks: Check[]) {
  const d = decide(mode, checks);
  const outcomes = Object.fromEntries(POLICY_MODES.map((m) => [m, decide(m, checks).outcome])) as Record<PolicyMode, string>;
  return { mode, outcome: d.outcome, outcomes, reasons: d.reasons, checks };
}
