// The IMAP mailbox (imapflow): any server — Dovecot, Exchange, Gmail over IMAP. Memory stays bounded on large
// folders: a page is one UID SEARCH (numbers only) and one UID FETCH of exactly the page's UIDs; a thread is read
// with a server-side SEARCH. Threads: Gmail's X-GM-THRID (or RFC 8474 THREADID) when the server has it, else the
// root of the References / In-Reply-To chain (its first id), else the message's own Message-ID; a message without
// any of them is a thread by its normalised subject. Drafts are APPENDed with \Draft to the \Drafts folder.
import type { FetchMessageObject, ImapFlow, SearchObject } from 'imapflow';
import { AppError } from '../../errors.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import { parseSubject } from '../../mail/threads.ts';
import { redact } from '../redact.ts';
import { attachmentsOf, isPage, isRef, type Key, keyOf, refsOf, type ThreadRef } from './imap-threads.ts';
import { messageFromRaw, replyDraft } from './mime.ts';
import {
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

export interface ImapConfig {
  host: string;
  port: number;
  secure: boolean;
  user: string;
  address: string;
  tlsInsecure: boolean;
  smtp: { host: string; port: number; secure: boolean; user: string | null } | null;
}
export interface ImapSecret {
  password: string;
  smtpPassword?: string | null;
}

const CONNECT_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 60_000;
/** Bytes of one message read for a thread view; attachments are listed from BODYSTRUCTURE, not read. */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/** imapflow (with its logger and charsets) is loaded on first use: a server without IMAP accounts never pays for it. */
export async function imapClient(c: ImapConfig, s: ImapSecret): Promise<ImapFlow> {
  const { ImapFlow } = await import('imapflow');
  return new ImapFlow({
    host: c.host,
    port: c.port,
    secure: c.secure,
    auth: { user: c.user, pass: s.password },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    ...(c.tlsInsecure ? { tls: { rejectUnauthorized: false } } : {}),
    clientInfo: { name: 'inboxd' },
  });
}

/** An imapflow failure as the API error it is: refused login → 400, unreachable → 503; never the password. */
export function imapError(e: unknown, c: Pick<ImapConfig, 'host' | 'port' | 'user'>, secret?: ImapSecret): AppError {
  if (e instanceof AppError) return e;
  const err = e as { authenticationFailed?: boolean; responseText?: string; code?: string; message?: string };
  const where = `${c.host}:${c.port}`;
  // The server's own words are quoted, without a password it echoes (cut out before the text is shortened).
  const quote = (t: string) => redact(t, [secret?.password, secret?.smtpPassword]).slice(0, 200);
  if (err.authenticationFailed)
    return new AppError(
      'validation_failed',
      `the IMAP server ${where} refused the login of ${c.user}${err.responseText ? ` (${quote(err.responseText)})` : ''}: check user and password`,
      { errors: [{ path: 'password', message: 'IMAP login failed' }] },
    );
  const why = quote(String(err.code ?? err.message ?? 'unknown error'));
  return new AppError(
    'unavailable',
    `cannot reach the IMAP server ${where}: ${why}; check host, port and TLS (secure) and that the server is running`,
  );
}

export class ImapMailbox implements MailboxProvider {
  readonly kind = 'imap' as const;
  readonly accountId: string;
  readonly address: string;
  private readonly cfg: ImapConfig;
  private readonly secret: ImapSecret;
  private client: ImapFlow | null = null;
  private readonly now: () => number;

  constructor(accountId: string, cfg: ImapConfig, secret: ImapSecret, now: () => number) {
    this.accountId = accountId;
    this.cfg = cfg;
    this.secret = secret;
    this.address = cfg.address;
    this.now = now;
  }

  secrets(): Array<string | null | undefined> {
    return [this.secret.password, this.secret.smtpPassword];
  }

  private async open(): Promise<ImapFlow> {
    if (this.client?.usable) return this.client;
    const c = await imapClient(this.cfg, this.secret);
    c.on('error', () => undefined); // socket errors after connect surface as failed commands
    try {
      await c.connect();
    } catch (e) {
      c.close();
      throw imapError(e, this.cfg, this.secret);
    }
    this.client = c;
    return c;
  }

  private async run<T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> {
    const c = await this.open();
    try {
      return await fn(c);
    } catch (e) {
      if (e instanceof AppError) throw e;
      const err = e as { serverResponseCode?: string; responseText?: string; code?: string };
      if (err.serverResponseCode === 'NONEXISTENT' || /doesn't exist|not exist|unknown mailbox/i.test(err.responseText ?? ''))
        throw new AppError(
          'not_found',
          `no such folder on ${this.cfg.host}:${this.cfg.port}: ${redact(err.responseText ?? '', this.secrets())}`.trim(),
        );
      throw imapError(e, this.cfg, this.secret);
    }
  }

  private get gm(): boolean {
    const caps = this.client?.capabilities;
    return Boolean(caps?.has('X-GM-EXT-1') || caps?.has('OBJECTID'));
  }

  async listThreads(q: ListQuery) {
    const folder = q.folder ?? 'INBOX';
    return this.run(async (c) => {
      const mb = await c.mailboxOpen(folder, { readOnly: true });
      const validity = String(mb.uidValidity);
      const page = decodeCursor(q.cursor, isPage);
      if (page && page.v !== validity)
        throw new AppError('conflict', `the folder ${folder} was recreated on the server (UIDVALIDITY changed): list again without cursor`);
      const criteria: SearchObject = q.query ? (c.capabilities.has('X-GM-EXT-1') ? { gmraw: q.query } : { text: q.query }) : { all: true };
      if (page) criteria.uid = page.b > 1 ? `1:${page.b - 1}` : '0';
      const uids = page && page.b <= 1 ? [] : (await c.search(criteria, { uid: true })) || [];
      uids.sort((a, b) => a - b);
      const chosen = uids.slice(-q.limit);
      const threads = new Map<string, { key: Key; ms: Array<FetchMessageObject & { refs: string[] }> }>();
      if (chosen.length) {
        const query = { uid: true, envelope: true, flags: true, internalDate: true, threadId: this.gm, headers: ['references'] };
        for await (const m of c.fetch(chosen, query, { uid: true })) {
          const { references } = refsOf(m.headers);
          const key = keyOf(m, this.gm, references);
          const id = encodeCursor({ f: folder, k: key } satisfies ThreadRef);
          const t = threads.get(id) ?? { key, ms: [] };
          t.ms.push({ ...m, refs: references });
          threads.set(id, t);
        }
      }
      const items: ThreadSummary[] = [...threads.entries()]
        .map(([id, t]) => {
          t.ms.sort((a, b) => a.uid - b.uid);
          const last = t.ms.at(-1)!;
          const addrs = t.ms.map((m) => ({
            from: m.envelope?.from?.[0] ? { name: '', address: m.envelope.from[0].address ?? '' } : null,
            to: (m.envelope?.to ?? []).map((a) => ({ name: '', address: a.address ?? '' })),
            cc: (m.envelope?.cc ?? []).map((a) => ({ name: '', address: a.address ?? '' })),
          }));
          const date = last.envelope?.date ?? last.internalDate;
          return {
            threadId: id,
            subject: t.ms[0]!.envelope?.subject ?? '',
            snippet: '',
            messageCount: t.ms.length,
            participants: participantsOf(addrs),
            lastMessageAt: date ? new Date(date).toISOString() : null,
            unread: t.ms.some((m) => !m.flags?.has('\\Seen')),
            folder,
            maxUid: last.uid,
          };
        })
        .sort((a, b) => b.maxUid - a.maxUid)
        .map(({ maxUid: _u, ...t }) => t);
      const lowest = chosen[0];
      return { items, nextCursor: uids.length > chosen.length && lowest !== undefined ? encodeCursor({ v: validity, b: lowest }) : null };
    });
  }

  async readThread(threadId: string, maxMessages: number): Promise<ThreadDetail> {
    let ref: ThreadRef;
    try {
      ref = decodeCursor(threadId, isRef)!;
    } catch {
      throw new AppError(
        'not_found',
        `no thread ${threadId.slice(0, 80)} in this IMAP mailbox (take threadId from svc_gmail_list_threads)`,
      );
    }
    return this.run(async (c) => {
      await c.mailboxOpen(ref.f, { readOnly: true });
      const k = ref.k;
      const criteria: SearchObject =
        'g' in k
          ? { threadId: k.g }
          : 'r' in k
            ? { or: [{ header: { 'message-id': k.r } }, { header: { references: k.r } }, { header: { 'in-reply-to': k.r } }] }
            : { subject: k.s || '' };
      const uids = ((await c.search(criteria, { uid: true })) || []).sort((a, b) => a - b);
      const chosen = uids.slice(-maxMessages);
      const messages: MailMessage[] = [];
      if (chosen.length) {
        const query = {
          uid: true,
          flags: true,
          envelope: true,
          internalDate: true,
          bodyStructure: true,
          source: { maxLength: MAX_SOURCE_BYTES },
        };
        const fetched: FetchMessageObject[] = [];
        for await (const m of c.fetch(chosen, query, { uid: true })) fetched.push(m);
        fetched.sort((a, b) => a.uid - b.uid);
        for (const m of fetched) {
          if (!m.source?.length) continue;
          // A subject thread's SEARCH matches substrings: keep only the messages whose base subject is the key.
          if ('s' in k && parseSubject(m.envelope?.subject ?? '').base.toLowerCase() !== k.s) continue;
          messages.push(
            await messageFromRaw(m.source, {
              id: `${ref.f}:${m.uid}`,
              threadId,
              me: this.address,
              unread: !m.flags?.has('\\Seen'),
              receivedAt: m.internalDate ? new Date(m.internalDate) : null,
              attachments: attachmentsOf(m.bodyStructure),
            }),
          );
        }
      }
      if (!messages.length) throw new AppError('not_found', `no thread ${threadId.slice(0, 80)} in folder ${ref.f}`);
      const last = messages.at(-1)!;
      return {
        threadId,
        subject: messages[0]!.subject,
        snippet: snippet(last.text),
        messageCount: uids.length,
        participants: participantsOf(messages),
        lastMessageAt: last.date,
        unread: messages.some((m) => m.unread),
        folder: ref.f,
        messages,
        truncated: uids.length > chosen.length,
      };
    });
  }

  /** The \Drafts folder (SPECIAL-USE), else one named Drafts; created when missing. */
  private async draftsFolder(c: ImapFlow): Promise<string> {
    const list = await c.list();
    const found = list.find((l) => l.specialUse === '\\Drafts') ?? list.find((l) => l.name.toLowerCase() === 'drafts');
    if (found) return found.path;
    await c.mailboxCreate('Drafts');
    return 'Drafts';
  }

  async createDraft(d: DraftRequest): Promise<DraftResult> {
    const parent = d.threadId ? (await this.readThread(d.threadId, 1)).messages.at(-1) : undefined;
    const draft = await replyDraft(this.address, d, parent, new Date(this.now()));
    return this.run(async (c) => {
      const folder = await this.draftsFolder(c);
      const r = await c.append(folder, draft.raw, ['\\Draft', '\\Seen'], new Date(this.now()));
      const uid = r ? r.uid || null : null;
      return {
        draftId: uid ? `${folder}:${uid}` : draft.messageId,
        threadId: d.threadId ?? null,
        to: draft.to,
        subject: draft.subject,
        location: folder,
      };
    });
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = null;
    if (c?.usable) await c.logout().catch(() => c.close());
    else c?.close();
  }
}
