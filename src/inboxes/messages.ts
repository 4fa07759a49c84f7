// The messages of an inbox as the API reads them: a message or an attachment by id (404 naming what is missing), a
// page of summaries, a message with its attachments and deliveries, the raw bytes and attachments out of the blob store (a missing blob is a clean 500 naming the
// message), a parse for structured extraction, and delete (its thread recounted in the same transaction). The
// inbox itself is resolved and scoped by InboxService before any of these is called.
import { AppError } from '../errors.ts';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Logger } from '../log.ts';
import { SEEN } from '../mail/flags.ts';
import { parseMessage } from '../mail/parse.ts';
import type { ParsedMessage } from '../mail/types.ts';
import type { RecipientState } from '../outbound/service.ts';
import { BlobMissingError, type BlobStore } from '../store/blobs.ts';
import type { InboxRow } from '../store/inboxes.ts';
import { type AttachmentRow, MessageRepo, type MessageRow, type MessageSummaryRow } from '../store/messages.ts';
import type { ThreadUpkeep } from '../threads/upkeep.ts';

export class MessageService {
  private readonly messages: MessageRepo;
  private readonly blobs: BlobStore;
  private readonly writer: IngestWriter;
  private readonly threads: ThreadUpkeep;
  private readonly log: Logger;
  private readonly deliveriesOf: (messageId: string) => Promise<RecipientState[]>;

  constructor(d: {
    messages: MessageRepo;
    blobs: BlobStore;
    writer: IngestWriter;
    /** Recounts (or removes) a message's thread when it goes (src/threads/). */
    threads: ThreadUpkeep;
    log: Logger;
    /** Each recipient's delivery state of a sent message (OutboundService.deliveriesOf, passed in by the wiring). */
    deliveriesOf: (messageId: string) => Promise<RecipientState[]>;
  }) {
    this.messages = d.messages;
    this.blobs = d.blobs;
    this.writer = d.writer;
    this.threads = d.threads;
    this.log = d.log;
    this.deliveriesOf = d.deliveriesOf;
  }

  /** The message of this inbox, or 404. */
  async get(inbox: InboxRow, id: string): Promise<MessageRow> {
    const msg = await this.messages.get(inbox.id, id);
    if (!msg) throw new AppError('not_found', `no message ${id} in inbox ${inbox.id}`);
    return msg;
  }

  /**
   * GET …/messages/:messageId: the message of this inbox (or 404), its attachments and, when it was sent from the
   * inbox, each recipient's delivery state.
   */
  async read(
    inbox: InboxRow,
    id: string,
  ): Promise<{ msg: MessageRow; attachments: AttachmentRow[]; deliveries?: RecipientState[] | undefined; labels: string[] }> {
    const msg = await this.get(inbox, id);
    const attachments = await this.attachments(msg.id);
    const labels = (await this.messages.labelsOf([msg.id])).get(msg.id) ?? [];
    // Sent mail: each recipient's state; received mail: the releases of it (POST …/release), when there are any.
    const deliveries = await this.deliveriesOf(msg.id);
    return { msg, attachments, deliveries: msg.direction === 'outbound' || deliveries.length > 0 ? deliveries : undefined, labels };
  }

  /**
   * GET …/attachments/:attachmentId: the attachment of this inbox's message (404 naming the message or the
   * attachment missing) and, with `withBytes`, its bytes opened from the blob store (see `open`).
   */
  async download(
    inbox: InboxRow,
    messageId: string,
    attachmentId: string,
    withBytes: boolean,
  ): Promise<{ msg: MessageRow; attachment: AttachmentRow; file?: Awaited<ReturnType<MessageService['open']>> | undefined }> {
    const msg = await this.get(inbox, messageId);
    const attachment = await this.attachment(msg, attachmentId);
    return { msg, attachment, file: withBytes ? await this.open(attachment.sha256, 'attachment', msg.id) : undefined };
  }

  /** Newest first; `beforeSeq` continues a page. */
  /** A page of the inbox's messages, newest first, each with its labels (README "Labels by rule"). */
  async list(inboxId: string, limit: number, beforeSeq?: number): Promise<Array<MessageSummaryRow & { labels: string[] }>> {
    const rows = await this.messages.list(inboxId, limit, beforeSeq);
    const labels = await this.messages.labelsOf(rows.map((r) => r.id));
    return rows.map((r) => ({ ...r, labels: labels.get(r.id) ?? [] }));
  }

  count(inboxId: string): Promise<number> {
    return this.messages.count(inboxId);
  }

  attachments(messageId: string): Promise<AttachmentRow[]> {
    return this.messages.attachments(messageId);
  }

  /** One attachment of the message, or 404. */
  async attachment(msg: MessageRow, id: string): Promise<AttachmentRow> {
    const a = await this.messages.attachment(msg.id, id);
    if (!a) throw new AppError('not_found', `no attachment ${id} in message ${msg.id}`);
    return a;
  }

  /**
   * Opens a blob for a raw answer. A blob missing from disk is a clean 500 naming the message (never a file path, and
   * never a connection cut halfway through a response), logged once with the message id.
   */
  async open(sha256: string, what: 'raw message' | 'attachment', messageId: string) {
    try {
      // The size of the bytes actually there, not the one recorded at ingest: Content-Length must match the stream.
      const { stream, size } = await this.blobs.open(sha256);
      return { body: stream, size };
    } catch (e) {
      if (!(e instanceof BlobMissingError)) throw e;
      this.log.error(`${what} missing from the blob store`, { messageId, sha256 });
      const where = this.blobs.locate
        ? `it should be ${this.blobs.locate(sha256)}; restore that object from a backup (or the bucket's versioning)`
        : 'check the data dir (its blobs/ folder) and restore it from a backup';
      throw new AppError('internal', `the ${what} of ${messageId} is missing from the blob store; ${where}`);
    }
  }

  /** The message parsed again from its raw bytes (structured extraction reads all of it, attachments included). */
  async parsed(inbox: InboxRow, id: string): Promise<{ row: MessageRow; parsed: ParsedMessage }> {
    const row = await this.get(inbox, id);
    return { row, parsed: await parseMessage(await this.blobs.get(row.raw_sha256)) };
  }

  /**
   * PATCH …/messages/:messageId: sets or clears the read state (`\\Seen`, the flag POP3 and IMAP set, migration 023)
   * of this inbox's message (404 when it is not there); answers the state now stored.
   */
  async markSeen(inbox: InboxRow, id: string, seen: boolean): Promise<boolean> {
    const msg = await this.get(inbox, id);
    await this.writer.run(() => this.messages.setFlags(inbox.id, [msg.id], seen ? SEEN : 0, seen ? 0 : SEEN));
    return seen;
  }

  /**
   * DELETE …/messages: every message of the inbox, as deleting each one does (threads recounted, blobs nothing else
   * uses collected), 500 per transaction so a large inbox never holds the writer long; answers how many went.
   */
  async clear(inbox: InboxRow): Promise<number> {
    let n = 0;
    for (;;) {
      const rows = await this.messages.list(inbox.id, 500);
      if (rows.length === 0) return n;
      const ids = rows.map((r) => r.id);
      const shas = await this.messages.blobsOf({ messageIds: ids });
      await this.writer.run(() =>
        this.threads.removing(
          rows.map((r) => r.thread_id),
          (trx) => new MessageRepo(trx).deleteByIds(ids),
        ),
      );
      await this.writer.collect(shas);
      n += ids.length;
    }
  }

  /** Removes the message and its blobs nothing else references; its thread is recounted in the same transaction. */
  async delete(inbox: InboxRow, msg: MessageRow): Promise<void> {
    const shas = await this.messages.blobsOf({ messageIds: [msg.id] });
    // An emptied thread goes with its last message.
    await this.writer.run(() => this.threads.removing([msg.thread_id], (trx) => new MessageRepo(trx).delete(inbox.id, msg.id)));
    await this.writer.collect(shas);
  }
}
