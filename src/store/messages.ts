// Message and attachment rows: the reads of the API and the writes of ingest and deletion.
import type { Kysely, Selectable } from 'kysely';
import type { AttachmentTable, Database, MessageTable } from './schema.ts';

export type MessageRow = Selectable<MessageTable>;
export type AttachmentRow = Selectable<AttachmentTable>;
/** The list/summary columns: everything but the bodies and headers. */
export type MessageSummaryRow = Omit<MessageRow, 'text_body' | 'html_body' | 'headers_json' | 'extraction_json'>;

const SUMMARY_COLUMNS = [
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
] as const;

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

  /** Newest first, received after the given sequence number or time. */
  async after(inboxId: string, since: { seq?: number; time?: number }, limit: number): Promise<MessageSummaryRow[]> {
    let q = this.db.selectFrom('messages').select(SUMMARY_COLUMNS).where('inbox_id', '=', inboxId);
    if (since.seq !== undefined) q = q.where('seq', '>', since.seq);
    if (since.time !== undefined) q = q.where('received_at', '>', since.time);
    return q.orderBy('seq', 'desc').limit(limit).execute();
  }

  async get(inboxId: string, id: string): Promise<MessageRow | undefined> {
    return this.db.selectFrom('messages').selectAll().where('id', '=', id).where('inbox_id', '=', inboxId).executeTakeFirst();
  }

  async count(inboxId: string): Promise<number> {
    const r = await this.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('inbox_id', '=', inboxId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async latest(inboxId: string): Promise<MessageRow | undefined> {
    return this.db.selectFrom('messages').selectAll().where('inbox_id', '=', inboxId).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  }

  async attachments(messageId: string): Promise<AttachmentRow[]> {
    return this.db.selectFrom('attachments').selectAll().where('message_id', '=', messageId).orderBy('idx').execute();
  }

  async attachment(messageId: string, id: string): Promise<AttachmentRow | undefined> {
    return this.db.selectFrom('attachments').selectAll().where('message_id', '=', messageId).where('id', '=', id).executeTakeFirst();
  }

  /** Every blob the given messages reference (raw + attachments), for garbage collection after a delete. */
  async blobsOf(where: { inboxId: string } | { messageIds: string[] }): Promise<string[]> {
    const ids =
      'messageIds' in where
        ? where.messageIds
        : (await this.db.selectFrom('messages').select('id').where('inbox_id', '=', where.inboxId).execute()).map((r) => r.id);
    const shas = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      for (const r of await this.db.selectFrom('messages').select('raw_sha256').where('id', 'in', chunk).execute()) shas.add(r.raw_sha256);
      for (const r of await this.db.selectFrom('attachments').select('sha256').where('message_id', 'in', chunk).execute())
        shas.add(r.sha256);
    }
    return [...shas];
  }

  async isBlobReferenced(sha256: string): Promise<boolean> {
    const m = await this.db.selectFrom('messages').select('id').where('raw_sha256', '=', sha256).limit(1).executeTakeFirst();
    if (m) return true;
    const a = await this.db.selectFrom('attachments').select('id').where('sha256', '=', sha256).limit(1).executeTakeFirst();
    return a !== undefined;
  }

  async delete(inboxId: string, id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('messages').where('id', '=', id).where('inbox_id', '=', inboxId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async expiredUnclaimedIds(before: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('messages')
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
        .deleteFrom('messages')
        .where('id', 'in', ids.slice(i, i + 500))
        .execute();
  }
}
