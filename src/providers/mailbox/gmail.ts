// The Gmail REST API with plain fetch against --gmail-api-base (a compatible on-prem server or a local fake can stand
// in). OAuth: an admin supplies a refresh token with its client id and secret at connect time; the access token is
// refreshed through --google-token-url when it is expired or the API answers 401, and the new one is resealed and
// stored (the `persist` callback).

import { AppError } from '../../errors.ts';
import { htmlToText } from '../../mail/extract/index.ts';
import { redact } from '../redact.ts';
import { pickHeaders, replyDraft } from './mime.ts';
import {
  type Addr,
  type AttachmentInfo,
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

export interface GmailSecret {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  accessToken?: string | null;
  /** ms since 1970 */
  expiresAt?: number | null;
}

export interface GmailEndpoints {
  apiBase: string;
  tokenUrl: string;
}

const TIMEOUT_MS = 15_000;
/** threads.get calls in flight at once while a page of threads is described. */
const PARALLEL = 5;

interface Part {
  mimeType?: string;
  filename?: string;
  headers?: Array<{ name: string; value: string }>;
  body?: { size?: number; data?: string; attachmentId?: string };
  parts?: Part[];
}
interface GMessage {
  id: string;
  threadId: string;
  labelIds?: string[];
  snippet?: string;
  internalDate?: string;
  payload?: Part;
}

const host = (u: string) => {
  try {
    return new URL(u).host;
  } catch {
    return u;
  }
};

async function call(url: string, init: RequestInit, what: string): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
  } catch (e) {
    throw new AppError(
      'unavailable',
      `cannot reach ${what} at ${host(url)}: ${(e as Error).message.slice(0, 200)}; retry later or check the URL setting`,
    );
  }
}

/** A new access token from the refresh token; a refused grant is the connect's fault (400), an outage a 503. */
export async function refreshAccess(tokenUrl: string, s: GmailSecret, now: number): Promise<{ accessToken: string; expiresAt: number }> {
  const body = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: s.refreshToken,
    client_id: s.clientId,
    client_secret: s.clientSecret,
  });
  const r = await call(
    tokenUrl,
    { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body },
    'the Google token endpoint',
  );
  const j = (await r.json().catch(() => ({}))) as {
    access_token?: string;
    expires_in?: number;
    error?: string;
    error_description?: string;
  };
  if (r.status >= 400 && r.status < 500)
    throw new AppError(
      'validation_failed',
      `the Google token endpoint (${host(tokenUrl)}) refused the refresh token: ${redact(`${j.error ?? r.status}${j.error_description ? ` (${j.error_description})` : ''}`, [s.clientSecret, s.refreshToken, s.accessToken]).slice(0, 300)}; check clientId, clientSecret and refreshToken, or connect again with a new refresh token`,
      { errors: [{ path: 'refreshToken', message: 'refused by the token endpoint' }] },
    );
  if (!r.ok || !j.access_token)
    throw new AppError('unavailable', `the Google token endpoint (${host(tokenUrl)}) answered ${r.status}; retry later`);
  return { accessToken: j.access_token, expiresAt: now + Math.max(60, j.expires_in ?? 3600) * 1000 };
}

const b64url = (s: string) => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
function header(p: Part | undefined, name: string): string {
  return p?.headers?.find((h) => h.name.toLowerCase() === name)?.value ?? '';
}
function addrs(v: string): Addr[] {
  const out: Addr[] = [];
  for (const m of v.matchAll(/(?:"?([^",<]*)"?\s*)?<([^>\s]+@[^>\s]+)>|([^\s,<>]+@[^\s,<>]+)/g))
    out.push({ name: (m[1] ?? '').trim(), address: (m[2] ?? m[3] ?? '').toLowerCase() });
  return out;
}
function walk(p: Part | undefined, acc: { text: string[]; html: string[]; att: AttachmentInfo[] }) {
  if (!p) return acc;
  if (p.parts?.length) for (const c of p.parts) walk(c, acc);
  else if (p.filename)
    acc.att.push({ filename: p.filename, contentType: p.mimeType ?? 'application/octet-stream', size: p.body?.size ?? 0 });
  else if (p.mimeType === 'text/plain' && p.body?.data) acc.text.push(b64url(p.body.data).toString('utf8'));
  else if (p.mimeType === 'text/html' && p.body?.data) acc.html.push(b64url(p.body.data).toString('utf8'));
  return acc;
}

export function gmailMessage(m: GMessage, me: string): MailMessage {
  const p = m.payload;
  const body = walk(p, { text: [], html: [], att: [] });
  const html = body.html.length ? body.html.join('\n') : null;
  const text = body.text.length ? body.text.join('\n') : html ? htmlToText(html) : (m.snippet ?? '');
  const from = addrs(header(p, 'from'))[0] ?? null;
  const dateHeader = Date.parse(header(p, 'date'));
  const date = Number.isFinite(dateHeader) ? dateHeader : Number(m.internalDate ?? NaN);
  return {
    id: m.id,
    threadId: m.threadId,
    from,
    to: addrs(header(p, 'to')),
    cc: addrs(header(p, 'cc')),
    subject: header(p, 'subject'),
    date: Number.isFinite(date) ? new Date(date).toISOString() : null,
    messageIdHeader: header(p, 'message-id') || null,
    inReplyTo: header(p, 'in-reply-to') || null,
    references: header(p, 'references').match(/<[^>]+>/g) ?? [],
    text,
    html,
    fromMe: (m.labelIds ?? []).includes('SENT') || from?.address === me.toLowerCase(),
    unread: (m.labelIds ?? []).includes('UNREAD'),
    headers: pickHeaders((p?.headers ?? []).map((h) => [h.name, h.value] as [string, string])),
    attachments: body.att,
  };
}

export class GmailMailbox implements MailboxProvider {
  readonly kind = 'gmail' as const;
  readonly accountId: string;
  readonly address: string;
  private secret: GmailSecret;
  private readonly ep: GmailEndpoints;
  private readonly now: () => number;
  private readonly persist: (s: GmailSecret) => Promise<void>;

  constructor(
    accountId: string,
    address: string,
    secret: GmailSecret,
    ep: GmailEndpoints,
    now: () => number,
    persist: (s: GmailSecret) => Promise<void>,
  ) {
    this.accountId = accountId;
    this.address = address;
    this.secret = secret;
    this.ep = ep;
    this.now = now;
    this.persist = persist;
  }

  private async refresh(): Promise<string> {
    const t = await refreshAccess(this.ep.tokenUrl, this.secret, this.now());
    this.secret = { ...this.secret, accessToken: t.accessToken, expiresAt: t.expiresAt };
    await this.persist(this.secret);
    return t.accessToken;
  }

  secrets(): Array<string | null | undefined> {
    return [this.secret.clientSecret, this.secret.refreshToken, this.secret.accessToken];
  }

  /** One API call; an expired token is refreshed first, a 401 refreshes once and retries. */
  async api<T>(path: string, init: RequestInit = {}): Promise<T> {
    const url = `${this.ep.apiBase}/gmail/v1/users/me/${path}`;
    let token =
      this.secret.accessToken && (this.secret.expiresAt ?? 0) > this.now() + 30_000 ? this.secret.accessToken : await this.refresh();
    const send = (t: string) =>
      call(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${t}` } }, 'the Gmail API');
    let r = await send(token);
    if (r.status === 401) {
      token = await this.refresh();
      r = await send(token);
    }
    if (r.status === 404)
      throw new AppError('not_found', `the Gmail API has no ${path.split('?')[0]} (take ids from svc_gmail_list_threads)`);
    if (r.status === 400) {
      const j = (await r.json().catch(() => ({}))) as { error?: { message?: string } };
      throw new AppError(
        'validation_failed',
        `the Gmail API refused the request: ${redact(j.error?.message ?? 'bad request', this.secrets()).slice(0, 300)}`,
      );
    }
    if (r.status === 401 || r.status === 403)
      throw new AppError(
        'forbidden',
        `the Gmail API refused account ${this.accountId} (${r.status}): connect it again with a refresh token that has the gmail.modify or gmail.compose scope`,
      );
    if (!r.ok) throw new AppError('unavailable', `the Gmail API at ${host(this.ep.apiBase)} answered ${r.status}; retry later`);
    return (await r.json()) as T;
  }

  async listThreads(q: ListQuery) {
    const qs = new URLSearchParams({ maxResults: String(Math.min(q.limit, 500)) });
    if (q.query) qs.set('q', q.query);
    if (q.folder) qs.set('labelIds', q.folder);
    if (q.cursor) qs.set('pageToken', q.cursor);
    const page = await this.api<{ threads?: Array<{ id: string; snippet?: string }>; nextPageToken?: string }>(`threads?${qs}`);
    const ids = page.threads ?? [];
    const items: ThreadSummary[] = new Array(ids.length);
    for (let i = 0; i < ids.length; i += PARALLEL)
      await Promise.all(
        ids.slice(i, i + PARALLEL).map(async (t, j) => {
          const meta = new URLSearchParams([
            ['format', 'metadata'],
            ...['From', 'To', 'Cc', 'Subject', 'Date'].map((h) => ['metadataHeaders', h]),
          ]);
          const full = await this.api<{ id: string; messages?: GMessage[] }>(`threads/${encodeURIComponent(t.id)}?${meta}`);
          const ms = (full.messages ?? []).map((m) => gmailMessage(m, this.address));
          items[i + j] = {
            threadId: t.id,
            subject: ms[0]?.subject ?? '',
            snippet: t.snippet ?? '',
            messageCount: ms.length,
            participants: participantsOf(ms),
            lastMessageAt: ms.at(-1)?.date ?? null,
            unread: ms.some((m) => m.unread),
            folder: q.folder ?? null,
          };
        }),
      );
    return { items, nextCursor: page.nextPageToken ?? null };
  }

  async readThread(threadId: string, maxMessages: number): Promise<ThreadDetail> {
    const t = await this.api<{ id: string; messages?: GMessage[] }>(`threads/${encodeURIComponent(threadId)}?format=full`);
    const all = (t.messages ?? []).map((m) => gmailMessage(m, this.address));
    const messages = all.slice(-maxMessages);
    const last = messages.at(-1);
    return {
      threadId: t.id,
      subject: all[0]?.subject ?? '',
      snippet: snippet(last?.text ?? ''),
      messageCount: all.length,
      participants: participantsOf(all),
      lastMessageAt: last?.date ?? null,
      unread: all.some((m) => m.unread),
      folder: null,
      messages,
      truncated: all.length > messages.length,
    };
  }

  async createDraft(d: DraftRequest): Promise<DraftResult> {
    const parent = d.threadId ? (await this.readThread(d.threadId, 1)).messages.at(-1) : undefined;
    const draft = await replyDraft(this.address, d, parent, new Date(this.now()));
    const raw = draft.raw.toString('base64url');
    const r = await this.api<{ id: string; message?: { id: string; threadId?: string } }>('drafts', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: { raw, ...(d.threadId ? { threadId: d.threadId } : {}) } }),
    });
    return {
      draftId: r.id,
      threadId: r.message?.threadId ?? d.threadId ?? null,
      to: draft.to,
      subject: draft.subject,
      location: 'gmail:drafts',
    };
  }

  async close(): Promise<void> {}
}
