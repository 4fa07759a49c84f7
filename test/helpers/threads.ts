// Consistency of the thread tables with the messages, checked straight in the store after a test has done its work.
import assert from 'node:assert/strict';
import type BetterSqlite3 from 'better-sqlite3';
import { type Kysely, sql } from 'kysely';

export function assertThreadInvariants(db: BetterSqlite3.Database): void {
  const q = (sql: string) => db.prepare(sql).all();
  assert.deepEqual(
    q(`select t.id from threads t where t.message_count <> (select count(*) from message_rows m where m.thread_id = t.id)
       or t.last_message_id is not (select m.id from message_rows m where m.thread_id = t.id order by m.seq desc limit 1)
       or t.first_message_at <> (select min(m.received_at) from message_rows m where m.thread_id = t.id)`),
    [],
    'thread rows match their messages',
  );
  assert.deepEqual(
    q(`select m.id from message_rows m left join threads t on t.id = m.thread_id
       where m.inbox_id is not null and (t.id is null or t.inbox_id <> m.inbox_id)`),
    [],
    'every message of an inbox is in a live thread of that inbox',
  );
  assert.deepEqual(
    q(`select r.message_id from thread_refs r left join threads t on t.id = r.thread_id where t.id is null or t.inbox_id <> r.inbox_id`),
    [],
    'every remembered Message-ID points at a live thread of its inbox',
  );
  assert.deepEqual(q('select id from message_rows where inbox_id is null and thread_id is not null'), [], 'unclaimed mail has no thread');
}

/** The same checks through Kysely, on either engine (`is distinct from`: SQLite 3.39+ and PostgreSQL). */
export async function checkThreadInvariants(db: Kysely<never>): Promise<void> {
  const q = async (text: string) => (await sql.raw(text).execute(db as unknown as Kysely<unknown>)).rows;
  assert.deepEqual(
    await q(`select t.id from threads t where t.message_count <> (select count(*) from message_rows m where m.thread_id = t.id)
       or t.last_message_id is distinct from (select m.id from message_rows m where m.thread_id = t.id order by m.seq desc limit 1)
       or t.first_message_at <> (select min(m.received_at) from message_rows m where m.thread_id = t.id)`),
    [],
    'thread rows match their messages',
  );
  assert.deepEqual(
    await q(`select m.id from message_rows m left join threads t on t.id = m.thread_id
       where m.inbox_id is not null and (t.id is null or t.inbox_id <> m.inbox_id)`),
    [],
    'every message of an inbox is in a live thread of that inbox',
  );
  assert.deepEqual(
    await q(
      'select r.message_id from thread_refs r left join threads t on t.id = r.thread_id where t.id is null or t.inbox_id <> r.inbox_id',
    ),
    [],
    'every remembered Message-ID points at a live thread of its inbox',
  );
  assert.deepEqual(
    await q('select id from message_rows where inbox_id is null and thread_id is not null'),
    [],
    'unclaimed mail has no thread',
  );
}
