// Verify's queries: a message without its bodies (what verify considers), and the per-inbox mark of the message
// verify last handed out (CONTRACT §4: each result is handed out once).
import type { Kysely } from 'kysely';
import { type MessageRow, SUMMARY_COLUMNS } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';

const LIGHT_COLUMNS = [...SUMMARY_COLUMNS, 'extraction_json'] as const;

export interface VerifyMark {
  seq: number;
  messageId: string;
  /** When it was handed out (ms). */
  at: number;
}

export class VerifyRepo {
  private readonly db: Kysely<Database>;
  constructor(db: Kysely<Database>) {
    this.db = db;
  }

  /** The message without text, html and headers (read only to re-extract with a preset), or undefined. */
  async light(inboxId: string, id: string): Promise<MessageRow | undefined> {
    const light = await this.db
      .selectFrom('messages')
      .select(LIGHT_COLUMNS)
      .where('id', '=', id)
      .where('inbox_id', '=', inboxId)
      .executeTakeFirst();
    return light && { ...light, text_body: null, html_body: null, headers_json: '[]' };
  }

  /** The message verify last handed out on this inbox: its sequence, its id and when it was handed out. */
  async mark(inboxId: string): Promise<VerifyMark | undefined> {
    const r = await this.db
      .selectFrom('verify_marks')
      .select(['seq', 'message_id', 'updated_at'])
      .where('inbox_id', '=', inboxId)
      .executeTakeFirst();
    return r && { seq: r.seq, messageId: r.message_id, at: r.updated_at };
  }

  /** Remembers `m` as handed out; nothing when the inbox is gone meanwhile (deleted by another call). Run in the writer. */
  async setMark(inboxId: string, m: Pick<MessageRow, 'id' | 'seq'>, now: number): Promise<void> {
    const exists = await this.db.selectFrom('inboxes').select('id').where('id', '=', inboxId).executeTakeFirst();
    if (!exists) return;
    const row = { inbox_id: inboxId, message_id: m.id, seq: m.seq, updated_at: now };
    await this.db
      .insertInto('verify_marks')
      .values(row)
      .onConflict((oc) => oc.column('inbox_id').doUpdateSet({ message_id: row.message_id, seq: row.seq, updated_at: row.updated_at }))
      .execute();
  }
}
