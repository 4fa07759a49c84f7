// Mail access for the POP3 and IMAP edges (src/pop3/, src/imap/): log in with an inbox address and an API key or token
// (the key's team and label scope decide, exactly as for the REST routes), read a folder (received mail = INBOX, the
// sender's copies = Sent), the raw bytes, the flags (migration 023) and delete through the message service. The edges
// know nothing of storage; they call this.
import type { Principal } from '../auth/principal.ts';
import { labelInScope } from '../auth/principal.ts';
import type { InboxEvent } from '../events/bus.ts';
import type { IngestWriter } from '../ingest/writer.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { InboxRow } from '../store/inboxes.ts';
import type { MessageRepo, MessageSummaryRow } from '../store/messages.ts';
import type { MessageService } from './messages.ts';
import type { InboxService } from './service.ts';

export type Folder = 'inbox' | 'sent';

export interface MailLogin {
  inbox: InboxRow;
  principal: Principal;
  /** A read-only key: no flag changes, no deletes. */
  readOnly: boolean;
}

/** What a refused login says (the same for an unknown key, an unknown address and another team's inbox). */
export const LOGIN_REFUSED = 'invalid credentials: the user is an inbox address, the password an inboxd API key or token that may read it';

export class MailAccess {
  private readonly authenticate: (secret: string) => Promise<Principal | null>;
  private readonly inboxes: InboxService;
  private readonly messageService: MessageService;
  private readonly messages: MessageRepo;
  private readonly blobs: BlobStore;
  private readonly writer: IngestWriter;
  private readonly subscribe: (inboxId: string, fn: (e: InboxEvent) => void) => () => void;
  private readonly now: () => number;
  /** The newest messages a folder shows (older ones stay reachable over REST). */
  readonly folderLimit: number;

  constructor(d: {
    authenticate: (secret: string) => Promise<Principal | null>;
    inboxes: InboxService;
    messageService: MessageService;
    messages: MessageRepo;
    blobs: BlobStore;
    writer: IngestWriter;
    subscribe: (inboxId: string, fn: (e: InboxEvent) => void) => () => void;
    now: () => number;
    folderLimit?: number;
  }) {
    this.authenticate = d.authenticate;
    this.inboxes = d.inboxes;
    this.messageService = d.messageService;
    this.messages = d.messages;
    this.blobs = d.blobs;
    this.writer = d.writer;
    this.subscribe = d.subscribe;
    this.now = d.now;
    this.folderLimit = d.folderLimit ?? 50_000;
  }

  /** The inbox at `address` when `secret` is a key or token whose team and label scope hold it; else null. */
  async login(address: string, secret: string): Promise<MailLogin | null> {
    if (!secret || secret.length > 512 || !address || address.length > 320) return null;
    const p = await this.authenticate(secret);
    if (!p) return null;
    const inbox = await this.inboxes.byAddress(address.trim().toLowerCase());
    if (!inbox || inbox.team_id !== p.teamId || !labelInScope(p.scope, inbox.label) || inbox.expires_at <= this.now()) return null;
    return { inbox, principal: p, readOnly: p.scope.readOnly };
  }

  /** The inbox again (null once deleted or expired): a session checks it before it acts. */
  async current(inbox: InboxRow): Promise<InboxRow | null> {
    const now = await this.inboxes.byAddress(inbox.address);
    return now && now.id === inbox.id && now.expires_at > this.now() ? now : null;
  }

  /** Oldest first; a message's `seq` is its IMAP UID. */
  folder(inbox: InboxRow, folder: Folder): Promise<MessageSummaryRow[]> {
    return this.messages.folder(inbox.id, folder === 'inbox' ? 'inbound' : 'outbound', this.folderLimit);
  }

  /** The raw message, or null when it is gone (deleted meanwhile). */
  async raw(inbox: InboxRow, id: string): Promise<Buffer | null> {
    const row = await this.messages.get(inbox.id, id);
    if (!row) return null;
    return this.blobs.get(row.raw_sha256);
  }

  /** The stored text and HTML of a message (IMAP SEARCH BODY/TEXT), or null when gone. */
  async bodies(inbox: InboxRow, id: string): Promise<{ text: string; headers: string } | null> {
    const row = await this.messages.get(inbox.id, id);
    if (!row) return null;
    return { text: `${row.text_body ?? ''}\n${row.html_body ?? ''}`, headers: row.headers_json };
  }

  async setFlags(login: MailLogin, ids: string[], add: number, remove: number): Promise<void> {
    if (login.readOnly || ids.length === 0) return;
    await this.writer.run(() => this.messages.setFlags(login.inbox.id, ids, add, remove));
  }

  /** Deletes messages the way DELETE …/messages/:messageId does (blobs collected, threads recounted); how many went. */
  async delete(login: MailLogin, ids: string[]): Promise<number> {
    if (login.readOnly) return 0;
    let n = 0;
    for (const id of ids) {
      const msg = await this.messages.get(login.inbox.id, id);
      if (!msg) continue;
      await this.messageService.delete(login.inbox, msg);
      n++;
    }
    return n;
  }

  /** Called on each event of the inbox (new received mail, the inbox deleted) until the returned function is called. */
  watch(inboxId: string, fn: (e: InboxEvent) => void): () => void {
    return this.subscribe(inboxId, fn);
  }
}
