// execute-reply (CONTRACT §13): the reply to one stored inbound message, decided by the team's policy through the
// one gate (`decide`), sent through the injected mailer, and always logged as an action (`sent`, `draft` or
// `blocked` with the reasons). A natural key — one automatic send per source message — backs the idempotency keys.
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { Services } from '../services.ts';
import { draftWith, type EngineConfig } from './engine.ts';
import { NO_MAILER } from './mailer.ts';
import { getDraft, getPolicy, logAction, sentCounts, storeDraft } from './repo.ts';
import { type Check, decide, evaluateRules, type RuleContext } from './rules.ts';
import { fromRow, knownDomains, loadThread, type WsMessage } from './source.ts';
import { type PolicyMode, wsDb } from './tables.ts';

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

/** The stored message, its thread and the reply text, with everything the rules need; no side effect. */
export async function resolveReply(
  s: Services,
  p: Principal,
  req: ExecuteRequest,
  ec: EngineConfig,
  signal: AbortSignal,
): Promise<Resolved> {
  const inbox = await s.inboxes.get(p, req.inboxId);
  const row = await s.messages.get(inbox.id, req.messageId);
  if (!row) throw new AppError('not_found', `no message ${req.messageId} in inbox ${inbox.id}`);
  const source = fromRow(row, inbox.address);
  if (source.direction === 'outbound')
    throw new AppError('validation_failed', `${req.messageId} was written by this inbox; reply to a received message`, {
      errors: [{ path: 'messageId', message: 'not an inbound message' }],
    });
  let thread = [source];
  if (source.threadId) {
    const rows = await loadThread(s.store.db, inbox.id, source.threadId);
    thread = rows.filter((r) => r.received_at <= row.received_at).map((r) => fromRow(r, inbox.address));
    if (!thread.some((m) => m.id === source.id)) thread.push(source);
  }
  let text = req.text;
  let engine: ExecuteResult['engine'] = 'request';
  if (text === undefined && req.draftId) {
    const d = await getDraft(wsDb(s), p.teamId, req.draftId);
    if (!d || d.message_id !== source.id) throw new AppError('not_found', `no draft ${req.draftId} for message ${source.id}`);
    text = d.text;
    engine = 'draft';
  }
  let subject = /^re:/i.test(source.subject) ? source.subject : `Re: ${source.subject}`;
  if (text === undefined) {
    const d = await draftWith(ec, thread, [], 'auto', signal);
    text = d.text;
    subject = d.subject;
    engine = d.engine;
  }
  const db = wsDb(s);
  const ctx: RuleContext = {
    source,
    thread,
    reply: { to: source.from, text, ...(req.html !== undefined ? { html: req.html } : {}), attachmentCount: 0 },
    knownDomains: await knownDomains(s.store.db, inbox.id, row.id, row.received_at),
    isServedDomain: (d) => s.served.isServed(d),
    sentToday: await sentCounts(db, p.teamId, { threadId: source.threadId, messageId: row.id }, s.clock.now()),
    settings: (await getPolicy(db, p.teamId)).settings,
  };
  return { inbox, source, thread, ctx, subject, engine };
}

/** `approvedByPerson`: a today-view approval; otherwise the reply is automatic and marked Auto-Submitted. */
export async function executeReply(
  s: Services,
  p: Principal,
  req: ExecuteRequest,
  r: Resolved,
  approvedByPerson = false,
): Promise<ExecuteResult> {
  const db = wsDb(s);
  const policy = await getPolicy(db, p.teamId);
  const checks = evaluateRules(r.ctx);
  const decision = decide(policy.mode, checks);
  const now = s.clock.now();
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
      await storeDraft(
        db,
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
    const a = await logAction(
      db,
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

  const mailer = s.workspaceMailer;
  if (!mailer) {
    await notSent('blocked', [`not_configured: ${NO_MAILER}`]);
    throw new AppError('not_configured', NO_MAILER);
  }
  // The natural key: inserted before the send, so a second request for the same message (any key, any
  // concurrency) finds it and cannot send again.
  const claimed = await db
    .insertInto('workspace_sends')
    .values({
      team_id: p.teamId,
      source_message_id: base.messageId,
      state: 'sending',
      sent_message_id: null,
      thread_id: base.threadId,
      at: now,
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 0) {
    const prev = await db
      .selectFrom('workspace_sends')
      .selectAll()
      .where('team_id', '=', p.teamId)
      .where('source_message_id', '=', base.messageId)
      .executeTakeFirst();
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
    await db.deleteFrom('workspace_sends').where('team_id', '=', p.teamId).where('source_message_id', '=', base.messageId).execute();
    await notSent('blocked', [`send_failed: ${(e as Error).message.slice(0, 300)}`]);
    throw e;
  }
  await db
    .updateTable('workspace_sends')
    .set({ state: 'sent', sent_message_id: sent.messageId })
    .where('team_id', '=', p.teamId)
    .where('source_message_id', '=', base.messageId)
    .execute();
  if (req.draftId)
    await db
      .updateTable('workspace_drafts')
      .set({ status: 'sent', decided_at: now })
      .where('team_id', '=', p.teamId)
      .where('id', '=', req.draftId)
      .execute();
  const a = await logAction(
    db,
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
