// The rehearsal page's signups on a cluster (PostgreSQL, migration 028): the RehearsalStore's queries
// (src/agent/rehearsal.ts). Wrong codes are counted by the database, so guesses sent to several instances add up.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { RehearsalSession } from './rehearsal.ts';

interface RehearsalRow {
  id: string;
  address: string;
  inbox_id: string;
  code: string;
  link_token: string;
  expires_at: number;
  done: number;
  wrong_codes: number;
}

type RehearsalTables = { rehearsal_sessions: RehearsalRow };

export class RehearsalRepo {
  private readonly db: Kysely<Database & RehearsalTables>;
  constructor(db: Kysely<Database>) {
    this.db = db.withTables<RehearsalTables>();
  }

  async insert(s: RehearsalSession): Promise<void> {
    await this.db
      .insertInto('rehearsal_sessions')
      .values({
        id: s.id,
        address: s.address,
        inbox_id: s.inboxId,
        code: s.code,
        link_token: s.linkToken,
        expires_at: s.expiresAt,
        done: s.done ? 1 : 0,
        wrong_codes: s.wrongCodes,
      })
      .execute();
  }

  async get(id: string): Promise<RehearsalSession | undefined> {
    const r = await this.db.selectFrom('rehearsal_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    return (
      r && {
        id: r.id,
        address: r.address,
        inboxId: r.inbox_id,
        code: r.code,
        linkToken: r.link_token,
        expiresAt: Number(r.expires_at),
        done: Number(r.done) === 1,
        wrongCodes: Number(r.wrong_codes),
      }
    );
  }

  /** One more wrong code for the signup; answers how many it has had. */
  async wrong(id: string): Promise<number> {
    const r = await this.db
      .updateTable('rehearsal_sessions')
      .set((eb) => ({ wrong_codes: eb('wrong_codes', '+', 1) }))
      .where('id', '=', id)
      .returning('wrong_codes')
      .executeTakeFirst();
    return Number(r?.wrong_codes ?? 0);
  }

  /** Marks the signup done unless it was locked meanwhile (`maxWrong` wrong codes); false when it was. */
  async done(id: string, maxWrong: number): Promise<boolean> {
    const r = await this.db
      .updateTable('rehearsal_sessions')
      .set({ done: 1 })
      .where('id', '=', id)
      .where('wrong_codes', '<', maxWrong)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Forgets expired signups. */
  async prune(now: number): Promise<void> {
    await this.db.deleteFrom('rehearsal_sessions').where('expires_at', '<=', now).execute();
  }
}
