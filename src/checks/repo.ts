// The checks capability's queries: reports by message (the last one, GET …/checks) and by content + data version +
// options (the cache), and which checks an inbox runs on arrival. CheckService (src/checks/service.ts) is the one caller.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { CheckReport } from './report.ts';

export interface CheckReportTable {
  id: string;
  message_id: string;
  inbox_id: string;
  content_sha256: string;
  data_version: string;
  options_key: string;
  report_json: string;
  created_at: number;
}

export type CheckTables = { check_reports: CheckReportTable };

/** Reports kept per message: the newest few (one per set of options asked recently). */
const KEEP_PER_MESSAGE = 5;

export class CheckRepo {
  private readonly db: Kysely<Database & CheckTables>;

  constructor(db: Kysely<Database>) {
    this.db = db.withTables<CheckTables>();
  }

  /** The newest report of a message, or undefined. */
  async last(messageId: string): Promise<CheckReport | undefined> {
    const r = await this.db
      .selectFrom('check_reports')
      .select('report_json')
      .where('message_id', '=', messageId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return r ? (JSON.parse(r.report_json) as CheckReport) : undefined;
  }

  /** A report of this content under these versions and options (any message with the same bytes), or undefined. */
  async cached(contentSha256: string, dataVersion: string, optionsKey: string): Promise<CheckReport | undefined> {
    const r = await this.db
      .selectFrom('check_reports')
      .select('report_json')
      .where('content_sha256', '=', contentSha256)
      .where('data_version', '=', dataVersion)
      .where('options_key', '=', optionsKey)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return r ? (JSON.parse(r.report_json) as CheckReport) : undefined;
  }

  /** Stores a message's report and drops its older ones beyond the newest few. */
  async save(row: CheckReportTable): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('check_reports').values(row).execute();
      const old = await trx
        .selectFrom('check_reports')
        .select('id')
        .where('message_id', '=', row.message_id)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(KEEP_PER_MESSAGE)
        .limit(100)
        .execute();
      if (old.length > 0)
        await trx
          .deleteFrom('check_reports')
          .where(
            'id',
            'in',
            old.map((o) => o.id),
          )
          .execute();
    });
  }

  /** The on-arrival checks of these inboxes (only those that have some). */
  async arrivalChecks(inboxIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (inboxIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('inboxes')
      .select(['id', 'checks_json'])
      .where('id', 'in', inboxIds)
      .where('checks_json', 'is not', null)
      .execute();
    for (const r of rows) if (r.checks_json) out.set(r.id, JSON.parse(r.checks_json) as string[]);
    return out;
  }
}
