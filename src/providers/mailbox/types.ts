// The mailbox adapter interface (CONTRACT §15): every svc_gmail_* tool talks to a MailboxProvider and never knows
// whether inboxd's own inboxes, an IMAP server or the Gmail API is behind it.

export type MailboxKind = 'local' | 'imap' | 'gmail';

export interface Addr {
  name: string;
  address: string;
}

export interface AttachmentInfo {
  filename: string | null;
  contentType: string;
  size: number;
}

/** One message as every adapter gives it: bodies as text, attachments listed (never their content). */
export interface MailMessage {
  id: string;
  threadId: string;
  from: Addr | null;
  to: Addr[];
  cc: Addr[];
  subject: string;
  /** ISO 8601; the Date header, else when the server received it. */
  date: string | null;
  messageIdHeader: string | null;
  inReplyTo: string | null;
  references: string[];
  text: string;
  /** Kept for the verification extractor (links); never returned by the tools. */
  html: string | null;
  /** Written by the mailbox owner (Sent, Gmail's SENT label, an inboxd inbox's own send). */
  fromMe: boolean;
  unread: boolean;
  /** The headers triage looks at, lower-case names (list-id, list-unsubscribe, precedence, auto-submitted, …). */
  headers: Record<string, string>;
  attachments: AttachmentInfo[];
}

export interface ThreadSummary {
  threadId: string;
  subject: string;
  snippet: string;
  /** Messages of the thread that the listing saw (IMAP: within the page's window). */
  messageCount: number;
  participants: string[];
  lastMessageAt: string | null;
  unread: boolean;
  /** The folder, Gmail label or inbox the thread was listed from. */
  folder: string | null;
}

export interface ThreadDetail extends ThreadSummary {
  messages: MailMessage[];
  /** More messages exist than were returned (the oldest were left out). */
  truncated: boolean;
}

export interface ListQuery {
  query?: string | undefined;
  folder?: string | undefined;
  cursor?: string | undefined;
  limit: number;
}

export interface DraftRequest {
  threadId?: string | undefined;
  to: string[];
  cc: string[];
  subject?: string | undefined;
  text: string;
  html?: string | undefined;
  inReplyTo?: string | undefined;
}

export interface DraftResult {
  draftId: string;
  threadId: string | null;
  to: string[];
  subject: string;
  /** Where it was put: the IMAP folder, `gmail:drafts`, or `inboxd:workspace_drafts`. */
  location: string;
}

export interface MailboxProvider {
  readonly kind: MailboxKind;
  /** `local` or the connected account's id (pac_…). */
  readonly accountId: string;
  /** The mailbox owner's address (null for the local mailbox: each inbox is its own). */
  readonly address: string | null;
  listThreads(q: ListQuery): Promise<{ items: ThreadSummary[]; nextCursor: string | null }>;
  readThread(threadId: string, maxMessages: number): Promise<ThreadDetail>;
  createDraft(d: DraftRequest): Promise<DraftResult>;
  /** Ends the connection, if the adapter keeps one. */
  close(): Promise<void>;
  /** The credentials it holds, to cut out of server error text (src/providers/redact.ts). */
  secrets?(): Array<string | null | undefined>;
}

export const lower = (a: string | null | undefined): string => (a ?? '').trim().toLowerCase();

/** The sender and recipients of some messages, lower-case, without duplicates, at most 50. */
export function participantsOf(ms: Array<Pick<MailMessage, 'from' | 'to' | 'cc'>>): string[] {
  const out = new Set<string>();
  for (const m of ms)
    for (const a of [m.from, ...m.to, ...m.cc]) {
      const v = lower(a?.address);
      if (v && out.size < 50) out.add(v);
    }
  return [...out];
}

export function snippet(text: string, max = 160): string {
  const lines = text.split(/\r?\n/).filter((l) => !l.trimStart().startsWith('>'));
  const s = lines.join(' ').replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
