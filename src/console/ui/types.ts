// The API shapes the console reads (README reference; CONTRACT §5, §9, §11, §16). Only the fields it shows.

export interface Address {
  name: string;
  address: string;
}

export interface Inbox {
  inboxId: string;
  address: string;
  label: string | null;
  ttlMinutes: number;
  createdAt: string;
  expiresAt: string;
  callbackUrl: string | null;
  messagesReceived: number;
}

export interface Verification {
  otp: string | null;
  primaryLink: string | null;
}

export interface MessageSummary {
  messageId: string;
  inboxId: string;
  from: Address | null;
  to: Address[];
  subject: string;
  receivedAt: string;
  size: number;
  attachmentCount: number;
  rawUrl: string;
  verification: Verification;
  via: string;
  threadId?: string | null;
  /** "outbound": the copy of a message this inbox sent; absent on servers before sending existed (all received). */
  direction?: 'inbound' | 'outbound';
  /** The read state POP3/IMAP use (\\Seen); absent on servers before it existed. */
  seen?: boolean;
}

export interface Attachment {
  attachmentId: string;
  filename: string | null;
  contentType: string;
  disposition: string;
  contentId?: string | null;
  /** An image the HTML shows by `cid:` (newer servers; older ones: inferred from disposition and the HTML). */
  inline?: boolean;
  size: number;
  url: string;
}

/** One recipient of a sent message (README "Sending and replying", delivery states). */
export interface Delivery {
  address: string;
  kind: 'to' | 'cc' | 'bcc';
  route: 'local' | 'relay';
  state: string;
  attempts: number;
  response: string | null;
  deliveredMessageId: string | null;
  nextAttemptAt: string | null;
}

export interface Message extends MessageSummary {
  date: string | null;
  text: string | null;
  /** Where `text` came from: a text/plain part, or derived from the HTML (newer servers; absent: a part, or none). */
  textSource?: 'part' | 'html' | null;
  html: string | null;
  headers: Array<{ name: string; value: string }>;
  attachments: Attachment[];
  /** Sent messages: each recipient's delivery. */
  deliveries?: Delivery[];
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** CONTRACT §9. */
export interface Thread {
  threadId: string;
  inboxId?: string;
  /** /v1/console/threads: the inbox each thread is in. */
  inbox?: { inboxId: string; address: string; label: string | null };
  subject: string;
  messageCount: number;
  participants: Array<Address | string>;
  firstMessageAt: string;
  lastMessageAt: string;
  snippet: string | null;
}

export interface ThreadDetail extends Thread {
  messages: MessageSummary[];
}

/** CONTRACT §11. */
export interface SearchHit extends MessageSummary {
  snippet: string | null;
  /** The address of the hit's inbox (newer servers). */
  inboxAddress?: string | null;
  score: number | null;
}

export interface SearchAnswer extends Page<SearchHit> {
  mode: string;
  semantic: boolean;
}

export interface CallbackAttempt {
  deliveryId: string;
  messageId: string;
  url: string;
  attempt: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  at: string;
  nextRetryAt: string | null;
  delivered: boolean;
}

export interface Me {
  team: { teamId: string; name: string };
  keyId: string;
  role: 'admin' | 'member';
  scope?: { labelPrefix: string | null; readOnly: boolean };
}

export interface Key {
  keyId: string;
  label: string;
  role: 'admin' | 'member';
  scope: { labelPrefix: string | null; readOnly: boolean };
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface AuditItem {
  id: number;
  at: string;
  actorKeyId: string | null;
  action: string;
  target: string | null;
  outcome: string;
  sourceIp: string | null;
}

export interface MessageCounts {
  received: number;
  receivedToday: number;
  verified: number;
  verifiedToday: number;
}

export interface CallbackCounts {
  delivered: number;
  pending: number;
  retrying: number;
  failed: number;
  failing: number;
}

/** GET /v1/console/summary (CONTRACT §16). */
export interface Summary {
  scope?: { labelPrefix: string | null };
  inboxes?: { total: number; withCallback: number };
  messages?: MessageCounts;
  callbacks?: CallbackCounts;
  topLabels?: Array<{ label: string; inboxes: number; messages: number }>;
  recentActivity?: Array<MessageSummary & { address: string; label: string | null }>;
}

/** GET /v1/console/inboxes/:id: only the counts are used (the lists come from their own routes). */
export interface InboxDetail {
  messages?: { counts: MessageCounts };
  callbacks?: { deliveries: CallbackCounts };
}

/** A finding of a message check (GET/POST …/messages/:id/checks). */
export interface CheckFinding {
  check: string;
  rule: string;
  severity: 'error' | 'warning' | 'info';
  title: string;
  detail: string;
  location?: { part?: 'html' | 'text' | 'headers' | 'envelope'; line?: number; column?: number; selector?: string };
  clients?: string[];
  evidence?: string;
  docs?: string;
  tags?: string[];
}

export interface CheckReport {
  messageId: string | null;
  checkedAt: string;
  cached?: boolean;
  checks: Record<
    string,
    { status: 'passed' | 'failed' | 'skipped' | 'error'; score?: number; reason?: string; durationMs: number; findings: CheckFinding[] }
  >;
  summary: { status: 'passed' | 'failed' | 'error'; errors: number; warnings: number; info: number; findings: number; durationMs: number };
}
