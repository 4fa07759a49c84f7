// execute-reply (CONTRACT §13): the reply to one stored inbound message, decided by the team's policy through the
// one gate (`decide`), sent through the injected mailer, and always logged as an action (`sent`, `draft` or
// `blocked` with the reasons). A natural key — one automatic send per source message — backs the idempotency keys.
import type { Principal } from '../auth/principal.ts';
import type { ServedDomains } from '../domains/served.ts';
import { AppError } from '../errors.ts';
import type { InboxService } from '../inboxes/service.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRepo } from '../store/messages.ts';
import { draftWith, type EngineConfig } from './engine.ts';
import type { MailReads } from './mail-reads.ts';
import type { WorkspaceMailer } from './mailer.ts';
import type { WorkspaceRepo } from './repo.ts';
import { type Check, decide, evaluateRules, type RuleContext } from './rules.ts';
import { fromRow, type WsMessage } from './source.ts';
import type { PolicyMode } from './tables.ts';

export interface ExecuteRequest {
  inboxId: string;
  messageId: string;
  text?: string | undefined;
  html?: string | undefined;
  draftId?: string | undefined;
}

export interface ExecuteResult {
  outcome: 'sent' | 'drafted' | 'blocked';
  mode: PolicyMode;
  reasons: string[];
  checks: Check[];
  inboxId: string;
  messageId: string;
  threadId: string | null;
  to: string;
  subject: string;
  text: string;
  draftId: string | null;
  sentMessageId: string | null;
  deliveries: Array<{ rcpt: string; state: string }>;
  actionId: string;
  engine: 'request' | 'draft' | 'builtin' | 'model';
}

export interface Resolved {
  inbox: InboxRow;
  source: WsMessage;
  thread: WsMessage[];
  ctx: RuleContext;
  subject: string;
  engine: ExecuteResult['engine'];
}

export interface ReplyDeps {
  repo: WorkspaceRepo;
  mail: MailReads;
  inboxes: Pick<InboxService, 'get'>;
  messages: Pick<MessageRepo, 'get'>;
  served: Pick<ServedDomains, 'isServed'>;
  /** Whether the outbound service has a relay for outside domains (the recipient_deliverable rule). */
  relayConfigured: () => boolean;
  mailer: WorkspaceMailer;
  now: () => number;
  /** The model chain as configured now (the AI service's links). */
  engine: () => EngineConfig;
}

export class ReplyExecutor {
  private readonly d: ReplyDeps;

  constructor(d: ReplyDeps) {
    this.d = d;
  }

  /** The stored message, its thread and the reply text, with everything the rules need; no side effect. */
  async resolve(p: Principal, req: ExecuteRequest, signal: AbortSignal): Promise<Resolved> {
    const d = this.d;
    const inbox = await d.inboxes.get(p, req.inboxId);
    const row = await d.messages.get(inbox.id, req.messageId);
    if (!row) throw new AppError('not_found', `no message ${req.messageId} in inbox ${inbox.id}`);
    const source = fromRow(row, inbox.address);
    if (source.direction === 'outbound')
      throw new AppError('validation_failed', `${req.messageId} was written by this inbox; reply to a received message`, {
        errors: [{ path: 'messageId', message: 'not an inbound message' }],
      });
    let thread = [source];
    if (source.threadId) {
      const rows = await d.mail.thread(inbox.id, source.threadId);
      thread = rows.filter((r) => r.received_at <= row.received_at).map((r) => fromRow(r, inbox.address));
      if (!thread.some((m) => m.id === source.id)) thread.push(source);
    }
    let text = req.text;
    let engine: ExecuteResult['engine'] = 'request';
    if (text === undefined && req.draftId) {
      const dr = await d.repo.draft(p.teamId, req.draftId);
      if (!dr || dr.message_id !== source.id) throw new AppError('not_found', `no draft ${req.draftId} for message ${source.id}`);
      text = dr.text;
      engine = 'draft';
    }
    let subject = /^re:/i.test(source.subject) ? source.subject : `Re: ${source.subject}`;
    if (text === undefined) {
      const dr = await draftWith(d.engine(), thread, [], 'auto', signal);
      text = dr.text;
      subject = dr.subject;
      engine = dr.engine;
    }
    const ctx: RuleContext = {
      source,
      thread,
      reply: { to: source.from, text, ...(req.html !== undefined ? { html: req.html } : {}), attachmentCount: 0 },
      knownDomains: await d.mail.knownDomains(inbox.id, row.id, row.received_at),
      isServedDomain: (dom) => d.served.isServed(dom),
      relayConfigured: d.relayConfigured(),
      sentToday: await d.repo.sentCounts(p.teamId, { threadId: source.threadId, messageId: row.id }, d.now()),
      settings: (await d.repo.policy(p.teamId)).settings,
    };
    return { inbox, source, thread, ctx, subject, engine };
  }

  /** `approvedByPerson`: a today-view approval; otherwise the reply is automatic and marked Auto-Submitted. */
  async execute(p: Principal, req: ExecuteRequest, r: Resolved, approvedByPerson = false): Promise<ExecuteResult> {
    const { repo, mailer } = this.d;
    const policy = await repo.policy(p.teamId);
    const checks = evaluateRules(r.ctx);
    const decision = decide(policy.mode, checks);
    const now = this.d.now();
    const base = {
      mode: policy.mode,
      checks,
      inboxId: r.inbox.id,
      messageId: r.source.id!,
      threadId: r.source.threadId,
      to: r.ctx.reply.to,
      subject: r.subject,
      text: r.ctx.reply.text,
      engine: r.engine,
    };
    const keepDraft = async (reasons: string[]) =>
      req.draftId ??
      (
        await repo.storeDraft(
          p,
          {
            inboxId: r.inbox.id,
            messageId: base.messageId,
            threadId: base.threadId,
            to: base.to,
            subject: base.subject,
            text: base.text,
            reasons,
          },
          now,
        )
      ).id;
    const notSent = async (outcome: 'drafted' | 'blocked', reasons: string[]): Promise<ExecuteResult> => {
      const draftId = await keepDraft(reasons);
      const a = await repo.logAction(
        p,
        {
          type: outcome === 'drafted' ? 'draft' : 'blocked',
          inboxId: base.inboxId,
          threadId: base.threadId,
          messageId: base.messageId,
          draftId,
          reasons,
        },
        now,
      );
      return { ...base, outcome, reasons, draftId, sentMessageId: null, deliveries: [], actionId: a.id };
    };
    if (decision.outcome !== 'sent') return notSent(decision.outcome, decision.reasons);

    // The natural key: claimed before the send, so a second request for the same message (any key, any
    // concurrency) finds it and cannot send again.
    if (!(await repo.claimSend(p.teamId, base.messageId, base.threadId, now))) {
      const prev = await repo.sendOf(p.teamId, base.messageId);
      return notSent('blocked', [
        `already_replied: a reply to ${base.messageId} was already ${prev?.state === 'sent' ? `sent (${prev.sent_message_id})` : 'being sent'}; one automatic reply per message`,
      ]);
    }
    let sent: Awaited<ReturnType<typeof mailer.reply>>;
    try {
      sent = await mailer.reply(p, {
        inboxId: base.inboxId,
        messageId: base.messageId,
        text: base.text,
        ...(req.html !== undefined ? { html: req.html } : {}),
        autoSubmitted: !approvedByPerson,
      });
    } catch (e) {
      await repo.releaseSend(p.teamId, base.messageId);
      await notSent('blocked', [`send_failed: ${(e as Error).message.slice(0, 300)}`]);
      throw e;
    }
    await repo.markSent(p.teamId, base.messageId, sent.messageId);
    if (req.draftId) await repo.decideDraft(p.teamId, req.draftId, 'sent', null, now);
    const a = await repo.logAction(
      p,
      {
        type: 'sent',
        inboxId: base.inboxId,
        threadId: base.threadId,
        messageId: base.messageId,
        draftId: req.draftId ?? null,
        reasons: decision.reasons,
      },
      now,
    );
    return {
      ...base,
      outcome: 'sent',
      reasons: decision.reasons,
      draftId: req.draftId ?? null,
      sentMessageId: sent.messageId,
      deliveries: sent.deliveries,
      actionId: a.id,
    };
  }
}
