// The statements of thread assignment (src/threads/assign.ts), compiled once (see store/prepared.ts); the lookup and
// the refs' upsert once per number of ids. Each is an indexed point or range lookup.
import { type Kysely, sql } from 'kysely';
import { precompile } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';

/** The columns of a thread that assignment reads and writes. */
export interface ThreadRow {
  id: string;
  subject: string;
  base_subject: string;
  message_count: number;
  participants_json: string;
  first_message_at: number;
  last_message_at: number;
  last_message_id: string | null;
}

const THREAD_COLUMNS = [
  'id',
  'subject',
  'base_subject',
  'message_count',
  'participants_json',
  'first_message_at',
  'last_message_at',
  'last_message_id',
] as const;

export function compileThreadQueries(db: Kysely<Database>) {
  return {
    bySubject: precompile(['inbox', 'key'], (p) =>
      db
        .selectFrom('threads')
        .select(THREAD_COLUMNS)
        .where('inbox_id', '=', p.inbox)
        .where('base_subject', '=', p.key)
        .orderBy('last_message_at', 'desc')
        .limit(1)
        .compile(),
    ),
    insert: precompile(
      [
        'id',
        'inbox_id',
        'team_id',
        'subject',
        'base_subject',
        'message_count',
        'participants_json',
        'first_message_at',
        'last_message_at',
        'last_message_id',
        'created_at',
      ],
      (p) =>
        db
          .insertInto('threads')
          .values(p as never)
          .compile(),
      // A new id; refs and message rows name it without a foreign key.
      { deferrable: 'append' },
    ),
    update: precompile(
      THREAD_COLUMNS,
      (p) => {
        const { id, ...set } = p;
        return db
          .updateTable('threads')
          .set(set as never)
          .where('id', '=', id)
          .compile();
      },
      { deferrable: true },
    ),
    moveMessages: precompile(['from', 'to'], (p) =>
      db.updateTable('message_rows').set({ thread_id: p.to }).where('thread_id', '=', p.from).compile(),
    ),
    moveRefs: precompile(['from', 'to'], (p) =>
      db.updateTable('thread_refs').set({ thread_id: p.to }).where('thread_id', '=', p.from).compile(),
    ),
    drop: precompile(['id'], (p) => db.deleteFrom('threads').where('id', '=', p.id).compile()),
    /** Refs of many ids in many inboxes with their (live) threads (a batch's, src/threads/assign.ts ThreadBatch). */
    lookupMany: precompile(['inboxes', 'ids'], (p) =>
      db
        .selectFrom('thread_refs as r')
        .innerJoin('threads as t', 't.id', 'r.thread_id')
        .select(['r.inbox_id', 'r.message_id', 'r.phantom'])
        .select(THREAD_COLUMNS.map((c) => `t.${c}` as const))
        .where(sql<boolean>`r.inbox_id = any(${p.inboxes}::text[]) and r.message_id = any(${p.ids}::text[])`)
        .compile(),
    ),
    /** Refs of n ids with their (live) threads, in one statement; one compiled form per n (at most 1 + MAX_PARENT_IDS). */
    lookup: perArity((n) => {
      const ids = keys('m', n);
      return precompile(['inbox', ...ids], (p) =>
        db
          .selectFrom('thread_refs as r')
          .innerJoin('threads as t', 't.id', 'r.thread_id')
          .select(['r.message_id', 'r.phantom'])
          .select(THREAD_COLUMNS.map((c) => `t.${c}` as const))
          .where('r.inbox_id', '=', p.inbox!)
          .where(
            'r.message_id',
            'in',
            ids.map((k) => p[k]!),
          )
          .compile(),
      );
    }),
    /**
     * Points n ids at a thread in one statement. An own id (phantom 0) stays or becomes real; a referenced one keeps
     * what it was (a real message's id stays real).
     */
    upsert: perArity((n) => {
      const ids = keys('m', n);
      const flags = keys('f', n);
      return precompile(
        ['inbox', 'thread', ...ids, ...flags],
        (p) =>
          db
            .insertInto('thread_refs')
            .values(
              ids.map((k, i) => ({
                inbox_id: p.inbox!,
                message_id: p[k]!,
                thread_id: p.thread!,
                phantom: p[flags[i]!] as unknown as number,
              })),
            )
            .onConflict((oc) =>
              oc.columns(['inbox_id', 'message_id']).doUpdateSet({
                thread_id: sql.ref('excluded.thread_id'),
                phantom: sql`case when excluded.phantom = 0 then 0 else thread_refs.phantom end`,
              }),
            )
            .compile(),
        { deferrable: true },
      );
    }),
  };
}

const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/** Compiles a statement for n values on first use and keeps it. */
function perArity<F>(make: (n: number) => F): (n: number) => F {
  const cache = new Map<number, F>();
  return (n) => {
    let f = cache.get(n);
    if (!f) cache.set(n, (f = make(n)));
    return f;
  };
}

export type ThreadQueries = ReturnType<typeof compileThreadQueries>;
