// inboxd's own inboxes as a mailbox: no account, no configuration, and exactly the key's view — a key scoped to a
// label prefix sees only the threads of its labels' inboxes (the same checks as the inbox and thread reads). A
// `folder` is an inbox id (inb_…) or a label prefix inside the key's scope; a query is the search language of
// svc_search_messages. Drafts are inboxd workspace drafts (drf_…), never sent.
import type { Principal } from '../../auth/principal.ts';
import { AppError } from '../../errors.ts';
import type { InboxService } from '../../inboxes/service.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import { messageText } from '../../mail/inline.ts';
import { participantList, snippetOf } from '../../mail/threads.ts';
import type { SearchCursor, SearchService } from '../../search/service.ts';
import type { MessageRepo, MessageRow } from '../../store/messages.ts';
import type { ThreadRow, ThreadService } from '../../threads/service.ts';
import type { WorkspaceService } from '../../workspace/service.ts';
import type { LocalMailboxRepo } from './local-repo.ts';
import { bodyText, draftAddresses, pickHeaders } from './mime.ts';
import {
  type Addr,
  type DraftRequest,
  type DraftResult,
  type ListQuery,
  type MailboxProvider,
  type MailMessage,
  participantsOf,
  snippet,
  type ThreadDetail,
  type ThreadSummary,
} from './types.ts';

const iso = (ms: number) => new Date(ms).toISOString();
type Activity = { t: number; i: string };
const isActivity = (v: unknown): v is Activity =>
  typeof v === 'object' && v !== null && Number.isInteger((v as Activity).t) && typeof (v as Activity).i === 'string';
const isSearch = (v: unknown): v is { q: SearchCursor } =>
  typeof v === 'object' && v !== null && typeof (v as { q: unknown }).q === 'object';

function summary(r: ThreadRow): ThreadSummary {
  return {
    threadId: r.id,
    subject: r.subject,
    snippet: snippetOf(messageText(r.last_text, r.last_html).text),
    messageCount: r.message_count,
    participants: participantList(r.participants_json),
    lastMessageAt: iso(r.last_message_at),
    unread: false,
    folder: r.inbox_id,
  };
}

function addrList(json: string): Addr[] {
  try {
    return (JSON.parse(json) as Addr[]).map((a) => ({ name: a.name ?? '', address: (a.address ?? '').toLowerCase() }));
  } catch {
    return [];
  }
}

/** What the local mailbox reads and writes through: the inbox, thread, message and search services, its own reads. */
export interface LocalMailboxDeps {
  inboxes: Pick<InboxService, 'get'>;
  threads: Pick<ThreadService, 'list' | 'recent' | 'get'>;
  messages: Pick<MessageRepo, 'get' | 'attachments'>;
  search: Pick<SearchService, 'search'>;
  repo: LocalMailboxRepo;
  /** Where its drafts go: inboxd workspace drafts. */
  drafts: Pick<WorkspaceService, 'storeDraft'>;
  now: () => number;
}

export class LocalMailbox implements MailboxProvider {
  readonly kind = 'local' as const;
  readonly accountId = 'local';
  readonly address = null;
  private readonly d: LocalMailboxDeps;
  private readonly p: Principal;

  constructor(d: LocalMailboxDeps, p: Principal) {
    this.d = d;
    this.p = p;
  }

  async listThreads(q: ListQuery) {
    const { d, p } = this;
    const prefix = p.scope.labelPrefix;
    if (q.query) return this.search(q);
    if (q.folder?.startsWith('inb_')) {
      const inbox = await d.inboxes.get(p, q.folder);
      const before = decodeCursor(q.cursor, isActivity);
      const rows = await d.threads.list(inbox.id, q.limit + 1, before && { at: before.t, id: before.i });
      return this.page(rows, q.limit);
    }
    // A folder outside the key's label scope shows nothing (existence is not revealed).
    if (q.folder !== undefined && prefix !== null && !q.folder.startsWith(prefix)) return { items: [], nextCursor: null };
    const before = decodeCursor(q.cursor, isActivity);
    const rows = await d.threads.recent(p.teamId, q.folder ?? prefix, q.limit + 1, before && { at: before.t, id: before.i });
    return this.page(rows, q.limit);
  }

  private page(rows: ThreadRow[], limit: number) {
    const shown = rows.slice(0, limit);
    const last = shown.at(-1);
    return {
      items: shown.map(summary),
      nextCursor: rows.length > limit && last ? encodeCursor({ t: last.last_message_at, i: last.id } satisfies Activity) : null,
    };
  }

  /** Threads of the messages the search finds, in the order of their best hit. */
  private async search(q: ListQuery) {
    const { d, p } = this;
    const inboxId = q.folder?.startsWith('inb_') ? (await d.inboxes.get(p, q.folder)).id : undefined;
    const label = inboxId === undefined ? q.folder : undefined;
    if (label !== undefined && p.scope.labelPrefix !== null && !label.startsWith(p.scope.labelPrefix))
      return { items: [], nextCursor: null };
    const cursor = decodeCursor(q.cursor, isSearch)?.q;
    const r = await d.search.search({
      scope: { teamId: p.teamId, labelPrefix: label ?? p.scope.labelPrefix, inboxId },
      q: q.query!,
      mode: 'keyword',
      limit: q.limit,
      cursor,
      now: d.now(),
    });
    const seen = new Set<string>();
    const items: ThreadSummary[] = [];
    for (const h of r.rows) {
      const tid = h.row.thread_id;
      if (!tid || !h.row.inbox_id || seen.has(tid)) continue;
      seen.add(tid);
      const t = await d.threads.get(h.row.inbox_id, tid);
      if (t) items.push(summary(t));
    }
    return { items, nextCursor: r.next ? encodeCursor({ q: r.next }) : null };
  }

  private async inboxOfThread(threadId: string) {
    const inboxId = await this.d.repo.inboxOfThread(this.p.teamId, threadId);
    const notFound = () =>
      new AppError('not_found', `no thread ${threadId.slice(0, 80)} in the local mailbox (svc_gmail_list_threads lists them)`);
    if (!inboxId) throw notFound();
    try {
      return await this.d.inboxes.get(this.p, inboxId);
    } catch {
      throw notFound();
    }
  }

  private async message(r: MessageRow): Promise<MailMessage> {
    const atts = await this.d.messages.attachments(r.id);
    let headers: Array<[string, string]> = [];
    try {
      headers = JSON.parse(r.headers_json) as Array<[string, string]>;
    } catch {
      // a message stored without headers still reads
    }
    const refs = (() => {
      try {
        return JSON.parse(r.references_json) as string[];
      } catch {
        return [];
      }
    })();
    return {
      id: r.id,
      threadId: r.thread_id ?? '',
      from: r.from_address ? { name: r.from_name ?? '', address: r.from_address.toLowerCase() } : null,
      to: addrList(r.to_json),
      cc: addrList(r.cc_json),
      subject: r.subject,
      date: iso(r.date ?? r.received_at),
      messageIdHeader: r.message_id_header,
      inReplyTo: r.in_reply_to,
      references: refs,
      text: bodyText(r.text_body, r.html_body),
      html: r.html_body,
      fromMe: r.direction === 'outbound',
      unread: false,
      headers: pickHeaders(headers),
      attachments: atts.map((a) => ({ filename: a.filename, contentType: a.content_type, size: a.size })),
    };
  }

  async readThread(threadId: string, maxMessages: number): Promise<ThreadDetail> {
    const inbox = await this.inboxOfThread(threadId);
    const t = await this.d.threads.get(inbox.id, threadId);
    if (!t) throw new AppError('not_found', `no thread ${threadId} in the local mailbox`);
    const messages: MailMessage[] = [];
    for (const id of await this.d.repo.threadMessageIds(inbox.id, threadId, maxMessages)) {
      const row = await this.d.messages.get(inbox.id, id);
      if (row) messages.push(await this.message(row));
    }
    return {
      ...summary(t),
      snippet: snippet(messages.at(-1)?.text ?? ''),
      participants: participantsOf(messages).length ? participantsOf(messages) : participantList(t.participants_json),
      messages,
      truncated: t.message_count > messages.length,
    };
  }

  async createDraft(d: DraftRequest): Promise<DraftResult> {
    const thread = d.threadId ? await this.readThread(d.threadId, 20) : null;
    const parent = thread ? ([...thread.messages].reverse().find((m) => !m.fromMe) ?? thread.messages.at(-1)) : undefined;
    const to = d.to.length || !parent ? d.to : [parent.from?.address ?? ''].filter(Boolean);
    if (!to.length)
      throw new AppError('validation_failed', 'a draft needs recipients: give `to` or a threadId to reply in', {
        errors: [{ path: 'to', message: 'required without threadId' }],
      });
    draftAddresses([...to, ...d.cc], 'to');
    const subject = d.subject ?? (parent ? (/^re\s*:/i.test(parent.subject) ? parent.subject : `Re: ${parent.subject}`) : '');
    const row = await this.d.drafts.storeDraft(this.p, {
      inboxId: thread?.folder ?? null,
      messageId: parent?.id ?? null,
      threadId: d.threadId ?? null,
      to: to.join(', '),
      subject,
      text: d.text,
      reasons: ['svc_workspace_execute_gmail_draft'],
    });
    return { draftId: row.id, threadId: d.threadId ?? null, to, subject, location: 'inboxd:workspace_drafts' };
  }

  async close(): Promise<void> {}
}
