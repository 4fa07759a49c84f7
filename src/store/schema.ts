// The typed shape of every table, for Kysely. Timestamps are epoch milliseconds (INTEGER), booleans 0/1.
import type { Generated } from 'kysely';

export interface TeamTable {
  id: string;
  name: string;
  plan: string;
  created_at: number;
  billing_customer_id: string | null;
}

export interface OAuthClientTable {
  id: string;
  team_id: string;
  name: string;
  created_at: number;
  created_by_key: string | null;
}

export interface AccessTokenTable {
  id: string;
  key_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  /** Narrows the key's label scope for this token (a run's label); null = the key's own scope. */
  label_prefix: Generated<string | null>;
}

export interface ApiKeyTable {
  id: string;
  team_id: string;
  label: string;
  role: 'admin' | 'member';
  /** sha256 hex of the secret; the secret itself is never stored. */
  secret_hash: string;
  /** First characters of the secret, shown to people to tell keys apart. */
  secret_prefix: string;
  scope_label_prefix: string | null;
  scope_read_only: number;
  client_id: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface AuditEventTable {
  id: Generated<number>;
  team_id: string | null;
  at: number;
  actor_key_id: string | null;
  action: string;
  target: string | null;
  outcome: string;
  source_ip: string | null;
  detail: string | null;
}

export interface InboxTable {
  id: string;
  team_id: string;
  address: string;
  label: string | null;
  service: string | null;
  ttl_minutes: number;
  expires_at: number;
  callback_url: string | null;
  callback_secret: string | null;
  created_at: number;
  created_by_key: string | null;
  message_seq: Generated<number>;
  /** Checks run on every arrival (JSON list of check names; migration 025), null for none. */
  checks_json: Generated<string | null>;
}

/**
 * The `messages` view (migration 004): one row per (message, recipient), joined with its shared content. Read
 * through it; write `message_rows` and `contents`.
 */
export interface MessageTable {
  id: string;
  /** Null while the mail is unclaimed (no inbox owns the address yet). */
  inbox_id: string | null;
  rcpt: string;
  seq: number;
  received_at: number;
  mail_from: string | null;
  from_address: string | null;
  from_name: string | null;
  to_json: string;
  cc_json: string;
  subject: string;
  date: number | null;
  message_id_header: string | null;
  in_reply_to: string | null;
  references_json: string;
  size: number;
  raw_sha256: string;
  text_body: string | null;
  html_body: string | null;
  headers_json: string;
  attachment_count: number;
  otp: string | null;
  primary_link: string | null;
  extraction_json: string;
  source: string;
  /** 'inbound' (received) or 'outbound' (the sender's copy of a sent message, migration 011). */
  direction: 'inbound' | 'outbound';
  /** The message's thread (migration 012); null while the mail is unclaimed. */
  thread_id: string | null;
  /** IMAP system flags kept per message, a bit set (migration 023, src/inboxes/flags.ts); bit 1 = \Seen. */
  flags: number;
}

/** The `attachments` view: a content's attachment rows, once per message that references the content. */
export interface AttachmentTable {
  id: string;
  message_id: string;
  idx: number;
  filename: string | null;
  content_type: string;
  disposition: string;
  content_id: string | null;
  size: number;
  sha256: string;
}

/** Per (message, recipient): the envelope and where it was delivered; the rest lives in `contents`. */
export interface MessageRowTable {
  id: string;
  inbox_id: string | null;
  rcpt: string;
  seq: number;
  received_at: number;
  mail_from: string | null;
  source: string;
  content_sha256: string;
  direction: Generated<'inbound' | 'outbound'>;
  /** Set in the ingest transaction (or at claim) for mail of an inbox (migration 012). */
  thread_id: Generated<string | null>;
  /** IMAP system flags (migration 023): 1 \Seen, 2 \Deleted, 4 \Flagged, 8 \Answered, 16 \Draft. */
  flags: Generated<number>;
  /** SMTP session facts as JSON (`SessionRecord`, src/store/session-facts.ts); null when not received over SMTP (migration 026). */
  session_json: Generated<string | null>;
}

/** A label on a message row (migration 024): from its plus address, its X-Tags header or a label rule. */
export interface MessageLabelTable {
  message_id: string;
  label: string;
  source: 'plus' | 'header' | 'rule';
  rule_id: string | null;
}

/** Everything parsed from one raw message, stored once however many recipients it had; keyed by the raw's sha256. */
export interface ContentTable {
  sha256: string;
  from_address: string | null;
  from_name: string | null;
  to_json: string;
  cc_json: string;
  subject: string;
  date: number | null;
  message_id_header: string | null;
  in_reply_to: string | null;
  references_json: string;
  size: number;
  text_body: string | null;
  html_body: string | null;
  headers_json: string;
  attachment_count: number;
  otp: string | null;
  primary_link: string | null;
  extraction_json: string;
}

export interface ContentAttachmentTable {
  id: string;
  content_sha256: string;
  idx: number;
  filename: string | null;
  content_type: string;
  disposition: string;
  content_id: string | null;
  size: number;
  sha256: string;
}

export interface CounterTable {
  team_id: string;
  name: string;
  value: number;
}

export interface CallbackDeliveryTable {
  id: string;
  inbox_id: string;
  team_id: string;
  message_id: string;
  event: string;
  url: string;
  secret: string;
  /** The JSON body, fixed when the delivery is made so every retry sends the same bytes. */
  payload: string;
  state: 'pending' | 'delivered' | 'failed' | 'gone' | 'refused';
  attempts: number;
  /** Null once the delivery is finished. */
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
  /** host:port of `url` (see targetHost), the unit of callback concurrency; set on every pending row. */
  target_host: string | null;
}

export interface CallbackAttemptTable {
  id: Generated<number>;
  delivery_id: string;
  inbox_id: string;
  attempt: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  at: number;
  next_retry_at: number | null;
  delivered: number;
}

export interface RunTable {
  id: string;
  team_id: string;
  created_by_key: string | null;
  label: string;
  goal: string;
  status: 'active' | 'succeeded' | 'failed' | 'abandoned';
  services_json: string;
  steps_json: string;
  metadata_json: string;
  notes: string | null;
  ttl_minutes: number;
  retention_minutes: number | null;
  version: number;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

export interface RunEventTable {
  id: Generated<number>;
  run_id: string;
  at: number;
  type: string;
  step_id: string | null;
  /** Dedupe key for events recorded from the store (inbox:<id>, msg:<id>, code:<id>); null otherwise. */
  ref: string | null;
  data_json: string;
}

export interface Database {
  teams: TeamTable;
  api_keys: ApiKeyTable;
  audit_events: AuditEventTable;
  inboxes: InboxTable;
  messages: MessageTable;
  attachments: AttachmentTable;
  message_rows: MessageRowTable;
  message_labels: MessageLabelTable;
  contents: ContentTable;
  content_attachments: ContentAttachmentTable;
  counters: CounterTable;
  oauth_clients: OAuthClientTable;
  access_tokens: AccessTokenTable;
  callback_deliveries: CallbackDeliveryTable;
  callback_attempts: CallbackAttemptTable;
  webhook_tokens: WebhookTokenTable;
  verify_marks: VerifyMarkTable;
  runs: RunTable;
  run_events: RunEventTable;
  segment_blobs: SegmentBlobTable;
  domains: DomainTable;
  outbound_deliveries: OutboundDeliveryTable;
  threads: ThreadTable;
  thread_refs: ThreadRefTable;
  search_fts: SearchFtsTable;
  search_pending: SearchPendingTable;
  search_vectors: SearchVectorTable;
  search_embed_state: SearchEmbedStateTable;
}

/** A conversation in one inbox (migration 012, src/threads/). Counts and times follow its messages. */
export interface ThreadTable {
  id: string;
  inbox_id: string;
  team_id: string;
  /** Subject of its root message as written. */
  subject: string;
  /** Lower-cased base subject (src/mail/threads.ts parseSubject): what subject fallback compares. */
  base_subject: string;
  message_count: number;
  /** JSON array of lower-cased addresses (senders and recipients), at most 50. */
  participants_json: string;
  first_message_at: number;
  last_message_at: number;
  /** The newest message (its text gives the snippet). */
  last_message_id: string | null;
  created_at: number;
}

/** Message-ID → thread per inbox, for ids seen as a message's own (phantom 0) or only referenced (phantom 1). */
export interface ThreadRefTable {
  inbox_id: string;
  message_id: string;
  thread_id: string;
  phantom: number;
}

/** Where a blob's bytes are in the segment files (migration 010, src/store/segments.ts). */
export interface SegmentBlobTable {
  sha256: string;
  segment: number;
  offset: number;
  length: number;
}

/** Used tokens of signed provider webhooks, kept until the replay window has passed (migration 006). */
export interface WebhookTokenTable {
  provider: string;
  token: string;
  expires_at: number;
}

/** The message verify last handed out, per inbox (migration 005). */
export interface VerifyMarkTable {
  inbox_id: string;
  message_id: string;
  seq: number;
  updated_at: number;
}

/** A custom mail domain of a team (migration 013, src/domains/). */
export interface DomainTable {
  id: string;
  team_id: string;
  name: string;
  status: 'pending' | 'verified';
  verification_token: string;
  dkim_selector: string;
  /** base64 DER (SubjectPublicKeyInfo): the `p=` of the DKIM record. */
  dkim_public_key: string;
  /** PEM, or sealed (src/lib/sealed.ts). Never leaves the server. */
  dkim_private_key: string;
  signing_ready: Generated<number>;
  checks_json: string | null;
  created_at: number;
  created_by_key: string | null;
  verified_at: number | null;
  checked_at: number | null;
}

/** One recipient of a sent message (migration 011, src/outbound/). */
export interface OutboundDeliveryTable {
  id: string;
  /** The sender's copy (direction 'outbound') in the sending inbox. */
  message_id: string;
  inbox_id: string;
  team_id: string;
  rcpt: string;
  kind: 'to' | 'cc' | 'bcc';
  /** local: stored by inboxd itself; relay: handed to --smtp-relay. */
  route: 'local' | 'relay';
  mail_from: string;
  raw_sha256: string;
  /** The sending address's domain, for DKIM. */
  sender_domain: string;
  state: 'queued' | 'sent' | 'failed';
  attempts: number;
  /** The relay's last answer (or the error), e.g. "550 5.1.1 no such user". */
  response: string | null;
  /** When the next attempt is due; null once the delivery is finished. */
  next_attempt_at: number | null;
  /** For a local recipient: the id of the copy stored for it. */
  local_message_id: string | null;
  created_at: number;
  updated_at: number;
}

/** Full-text rows of messages (migration 014, src/search/): contentless FTS5, rowid = message_rows.rowid. */
export interface SearchFtsTable {
  rowid: number;
  scope: string;
  subject: string;
  sender: string;
  rcpts: string;
  body: string;
  files: string;
  label: string;
}

/** Message rows (by rowid) still to be written into search_fts: claimed mail, and mail older than the index. */
export interface SearchPendingTable {
  rid: number;
}

/** One int8 vector per content for semantic search (migration 014). */
export interface SearchVectorTable {
  content_sha256: string;
  model: string;
  vec: Uint8Array;
}

/** How far each embeddings model got through `contents` (by rowid); its vector size once known. */
export interface SearchEmbedStateTable {
  model: string;
  dim: number | null;
  last_rowid: number;
}
