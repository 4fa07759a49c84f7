// Message and attachment rows: the reads of the API and the writes of ingest and deletion.
import { type Kysely, type Selectable, sql } from 'kysely';
import type { AttachmentTable, Database, MessageTable } from './schema.ts';

/** A message as read through the `messages` view: its recipient row joined with the shared content. */
export type MessageRow = Selectable<MessageTable>;
export type AttachmentRow = Selectable<AttachmentTable>;
/** The list/summary columns: everything but the bodies and headers. */
export type MessageSummaryRow = Omit<MessageRow, 'text_body' | 'html_body' | 'headers_json' | 'extraction_json'>;

/** The summary columns (everything but bodies and headers). `satisfies` keeps the list in step with the type. */
export const SUMMARY_COLUMNS = [
  'id',
  'inbox_id',
  'rcpt',
  'seq',
  'received_at',
  'mail_from',
  'from_address',
  'from_name',
  'to_json',
  'cc_json',
  'subject',
  'date',
  'message_id_header',
  'in_reply_to',
  'references_json',
  'size',
  'raw_sha256',
  'attachment_count',
  'otp',
  'primary_link',
  'source',
  'direction',
  'thread_id',
  'flags',
] as const satisfies ReadonlyArray<keyof MessageSummaryRow>;

// Fails to compile when MessageSummaryRow gains a column that the list above lacks.
type Missing = Exclude<keyof MessageSummaryRow, (typeof SUMMARY_COLUMNS)[number]>;
const _complete: [Missing] extends [never] ? true : Missing = true;
void _complete;

export class MessageRepo {
  private readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  async list(inboxId: string, limit: number, beforeSeq?: number): Promise<MessageSummaryRow[]> {
    let q = this.db.selectFrom('messages').select(SUMMARY_COLUMNS).where('inbox_id', '=', inboxId);
    if (beforeSeq !== undefined) q = q.where('seq', '<', beforeSeq);
    return q.orderBy('seq', 'desc').limit(limit).execute();
  }

  /**
   * Newest first, received after the given sequence number or time. Received mail only: this is what waits, verify,
   * open, extract and check look at, and a sent message must never be handed out as the inbox's code.
   */
  async after(inboxId: string, since: { seq?: number; time?: number }, limit: number): Promise<MessageSummaryRow[]> {
    let q = this.db.selectFrom('messages').select(SUMMARY_COLUMNS).where('inbox_id', '=', inboxId).where('direction', '=', 'inbound');
    if (since.seq !== undefined) q = q.where('seq', '>', since.seq);
    if (since.time !== undefined) q = q.where('received_at', '>', since.time);
    return q.orderBy('seq', 'desc').limit(limit).execute();
  }

  /**
   * One POP3/IMAP folder of an inbox: received (`inbound`) or sent (`outbound`) mail, oldest first (ascending `seq`,
   * the IMAP UID), at most the newest `limit`.
   */
  async folder(inboxId: string, direction: 'inbound' | 'outbound', limit: number): Promise<MessageSummaryRow[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select(SUMMARY_COLUMNS)
      .where('inbox_id', '=', inboxId)
      .where('direction', '=', direction)
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse();
  }

  /** Sets the flag bits `add` and clears `remove` on these messages of the inbox (migration 023). */
  async setFlags(inboxId: string, ids: string[], add: number, remove: number): Promise<void> {
    const keep = 0x7fffffff & ~remove;
    for (let i = 0; i < ids.length; i += 500)
      await this.db
        .updateTable('message_rows')
        .set({ flags: sql<number>`(flags | ${add}) & ${keep}` })
        .where('inbox_id', '=', inboxId)
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
  }

  /** The labels of these message rows (migration 024), by message id; one query however many. */
  async labelsOf(ids: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (ids.length === 0) return out;
    const rows = await this.db
      .selectFrom('message_labels')
      .select(['message_id', 'label'])
      .where('message_id', 'in', ids)
      .orderBy('message_id')
      .orderBy('label')
      .execute();
    for (const r of rows) {
      const l = out.get(r.message_id);
      if (l) l.push(r.label);
      else out.set(r.message_id, [r.label]);
    }
    return out;
  }

  async get(inboxId: string, id: string): Promise<MessageRow | undefined> {
    return this.db.selectFrom('messages').selectAll().where('id', '=', id).where('inbox_id', '=', inboxId).executeTakeFirst();
  }

  async count(inboxId: string): Promise<number> {
    const r = await this.db
      .selectFrom('message_rows')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('inbox_id', '=', inboxId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  /** The newest received (inbound) message. */
  async latest(inboxId: string): Promise<MessageRow | undefined> {
    return this.db
      .selectFrom('messages')
      .selectAll()
      .where('inbox_id', '=', inboxId)
      .where('direction', '=', 'inbound')
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async attachments(messageId: string): Promise<AttachmentRow[]> {
    return this.db.selectFrom('attachments').selectAll().where('message_id', '=', messageId).orderBy('idx').execute();
  }

  async attachment(messageId: string, id: string): Promise<AttachmentRow | undefined> {
    return this.db.selectFrom('attachments').selectAll().where('message_id', '=', messageId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * Every blob the given messages reference (raw + attachments), for garbage collection after a delete. The raw's
   * sha256 is also the key of the shared content, which the collector removes once no message references it.
   */
  async blobsOf(where: { inboxId: string } | { messageIds: string[] }): Promise<string[]> {
    const shas = new Set<string>();
    const contents =
      'messageIds' in where
        ? await this.contentsOf(where.messageIds)
        : (
            await this.db.selectFrom('message_rows').select('content_sha256').distinct().where('inbox_id', '=', where.inboxId).execute()
          ).map((r) => r.content_sha256);
    for (let i = 0; i < contents.length; i += 500) {
      const chunk = contents.slice(i, i + 500);
      for (const c of chunk) shas.add(c);
      for (const r of await this.db.selectFrom('content_attachments').select('sha256').where('content_sha256', 'in', chunk).execute())
        shas.add(r.sha256);
    }
    return [...shas];
  }

  private async contentsOf(ids: string[]): Promise<string[]> {
    const out = new Set<string>();
    for (let i = 0; i < ids.length; i += 500)
      for (const r of await this.db
        .selectFrom('message_rows')
        .select('content_sha256')
        .where('id', 'in', ids.slice(i, i + 500))
        .execute())
        out.add(r.content_sha256);
    return [...out];
  }

  /** Deletes the shared contents among `shas` that no message references any more (attachment rows cascade). */
  async deleteOrphanContents(shas: string[]): Promise<number> {
    let n = 0;
    for (let i = 0; i < shas.length; i += 500) {
      const r = await this.db
        .deleteFrom('contents')
        .where('sha256', 'in', shas.slice(i, i + 500))
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('message_rows').select('id').whereRef('message_rows.content_sha256', '=', 'contents.sha256'))),
        )
        .executeTakeFirst();
      n += Number(r.numDeletedRows);
    }
    return n;
  }

  /** Whether a stored content (its raw) or any content's attachment still needs this blob. */
  async isBlobReferenced(sha256: string): Promise<boolean> {
    const c = await this.db.selectFrom('contents').select('sha256').where('sha256', '=', sha256).limit(1).executeTakeFirst();
    if (c) return true;
    const a = await this.db.selectFrom('content_attachments').select('id').where('sha256', '=', sha256).limit(1).executeTakeFirst();
    return a !== undefined;
  }

  async delete(inboxId: string, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('message_rows').where('id', '=', id).where('inbox_id', '=', inboxId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async expiredUnclaimedIds(before: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('message_rows')
      .select('id')
      .where('inbox_id', 'is', null)
      .where('received_at', '<', before)
      .limit(limit)
      .execute();
    return rows.map((r) => r.id);
  }

  async deleteByIds(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500)
      await this.db
        .deleteFrom('message_rows')
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
  }
}
