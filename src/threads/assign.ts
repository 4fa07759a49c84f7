// Thread assignment, incrementally and inside the ingest writer's transaction (JWZ's idea without a second pass):
// every Message-ID a message has or refers to is kept per inbox in `thread_refs`, ids only referenced as "phantoms",
// so a reply whose parent arrives later (or a parent arriving after its reply) lands in the same thread; a message
// that links two threads merges them. Without a known link, a reply/forward subject joins the inbox's most recent
// thread with the same base subject. Every statement is compiled once and is an indexed point or range lookup.
import type { CompiledQuery, Kysely } from 'kysely';
import { newId } from '../lib/ids.ts';
import { linksOf, MAX_PARTICIPANTS, mergeParticipants, parseSubject, participantsOf } from '../mail/threads.ts';
import { precompile } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';

/** What threading needs from one message, computed once per message (not per recipient, not in the transaction). */
export interface ThreadFields {
  own: string | null;
  parents: string[];
  subject: string;
  key: string;
  reply: boolean;
  participants: string[];
}

/** From the stored (serialised) content columns of a message. */
export function threadFieldsOf(c: {
  message_id_header: string | null;
  in_reply_to: string | null;
  references_json: string;
  subject: string;
  from_address: string | null;
  to_json: string;
  cc_json: string;
}): ThreadFields {
  let refs: string[] = [];
  try {
    const v: unknown = JSON.parse(c.references_json);
    if (Array.isArray(v)) refs = v.filter((x): x is string => typeof x === 'string');
  } catch {
    // a message stored without parsed references threads by its other headers
  }
  const { own, parents } = linksOf(c.message_id_header, c.in_reply_to, refs);
  const s = parseSubject(c.subject);
  return {
    own,
    parents,
    subject: c.subject,
    key: s.key,
    reply: s.reply,
    participants: participantsOf(c.from_address, c.to_json, c.cc_json),
  };
}

export interface ThreadTarget {
  inboxId: string;
  teamId: string;
  /** The message_rows id. */
  messageId: string;
  receivedAt: number;
}

interface ThreadRow {
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

function compile(db: Kysely<Database>) {
  return {
    ref: precompile(['inbox', 'mid'], (p) =>
      db
        .selectFrom('thread_refs')
        .select(['thread_id', 'phantom'])
        .where('inbox_id', '=', p.inbox)
        .where('message_id', '=', p.mid)
        .compile(),
    ),
    thread: precompile(['id'], (p) => db.selectFrom('threads').select(THREAD_COLUMNS).where('id', '=', p.id).compile()),
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
    ),
    update: precompile(THREAD_COLUMNS, (p) => {
      const { id, ...set } = p;
      return db
        .updateTable('threads')
        .set(set as never)
        .where('id', '=', id)
        .compile();
    }),
    setOwn: precompile(['inbox', 'mid', 'thread'], (p) =>
      db
        .insertInto('thread_refs')
        .values({ inbox_id: p.inbox, message_id: p.mid, thread_id: p.thread, phantom: 0 })
        .onConflict((oc) => oc.columns(['inbox_id', 'message_id']).doUpdateSet({ thread_id: p.thread, phantom: 0 }))
        .compile(),
    ),
    setPhantom: precompile(['inbox', 'mid', 'thread'], (p) =>
      db
        .insertInto('thread_refs')
        .values({ inbox_id: p.inbox, message_id: p.mid, thread_id: p.thread, phantom: 1 })
        .onConflict((oc) => oc.columns(['inbox_id', 'message_id']).doUpdateSet({ thread_id: p.thread }))
        .compile(),
    ),
    moveMessages: precompile(['from', 'to'], (p) =>
      db.updateTable('message_rows').set({ thread_id: p.to }).where('thread_id', '=', p.from).compile(),
    ),
    moveRefs: precompile(['from', 'to'], (p) =>
      db.updateTable('thread_refs').set({ thread_id: p.to }).where('thread_id', '=', p.from).compile(),
    ),
    drop: precompile(['id'], (p) => db.deleteFrom('threads').where('id', '=', p.id).compile()),
  };
}

type Queries = ReturnType<typeof compile>;
type Run = <R>(q: CompiledQuery) => Promise<R[]>;

/**
 * Assigns threads inside a transaction. One instance per store: the statements are compiled on first use (with
 * whatever transaction comes first; a compiled query is plain SQL text and parameters).
 */
export class ThreadAssigner {
  private q: Queries | null = null;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Puts the message into its thread (creating or merging threads as needed) and returns the thread id. */
  async assign(trx: Kysely<Database>, at: ThreadTarget, f: ThreadFields): Promise<string> {
    const q = (this.q ??= compile(trx));
    const run: Run = async <R>(c: CompiledQuery) => (await trx.executeQuery<R>(c)).rows;
    const inbox = at.inboxId;
    const found = new Map<string, ThreadRow>();
    const load = async (threadId: string): Promise<ThreadRow | undefined> =>
      found.get(threadId) ?? (await run<ThreadRow>(q.thread({ id: threadId })))[0];

    // Its own id already known: a reply to it came first (phantom), or the same message again.
    let ownPhantom = false;
    if (f.own) {
      const r = (await run<{ thread_id: string; phantom: number }>(q.ref({ inbox, mid: f.own })))[0];
      const t = r && (await load(r.thread_id));
      if (t) {
        found.set(t.id, t);
        ownPhantom = r.phantom === 1;
      }
    }
    // Ids whose ref already points at a live thread need no write below (a merge repoints them).
    const linked = new Set<string>();
    for (const mid of f.parents) {
      const r = (await run<{ thread_id: string }>(q.ref({ inbox, mid })))[0];
      const t = r && (await load(r.thread_id));
      if (!t) continue;
      found.set(t.id, t);
      linked.add(mid);
    }

    let target: ThreadRow | undefined;
    if (found.size === 0) {
      if (f.reply && f.key) target = (await run<ThreadRow>(q.bySubject({ inbox, key: f.key })))[0];
    } else {
      const all = [...found.values()];
      // The biggest thread stays (fewest rows move); the others' messages and refs move into it.
      const keep = all.reduce((a, b) =>
        b.message_count > a.message_count || (b.message_count === a.message_count && b.first_message_at < a.first_message_at) ? b : a,
      );
      target = keep;
      for (const other of all) if (other !== keep) target = await this.merge(run, q, target, other);
    }

    if (!target) {
      const id = newId('thr');
      await run(
        q.insert({
          id,
          inbox_id: inbox,
          team_id: at.teamId,
          subject: f.subject,
          base_subject: f.key,
          message_count: 1,
          participants_json: JSON.stringify(f.participants.slice(0, MAX_PARTICIPANTS)),
          first_message_at: at.receivedAt,
          last_message_at: at.receivedAt,
          last_message_id: at.messageId,
          created_at: this.now(),
        }),
      );
      target = { id } as ThreadRow;
    } else {
      // The parent of messages already here, itself a reply to nothing known: it is the root, its subject names the thread.
      const root = ownPhantom && linked.size === 0;
      const participants = mergeParticipants(JSON.parse(target.participants_json) as string[], f.participants);
      const newest = at.receivedAt >= target.last_message_at;
      await run(
        q.update({
          id: target.id,
          subject: root ? f.subject : target.subject,
          base_subject: root ? f.key : target.base_subject,
          message_count: target.message_count + 1,
          participants_json: JSON.stringify(participants),
          first_message_at: Math.min(target.first_message_at, at.receivedAt),
          last_message_at: newest ? at.receivedAt : target.last_message_at,
          last_message_id: newest ? at.messageId : target.last_message_id,
        }),
      );
    }

    const thread = target.id;
    if (f.own) await run(q.setOwn({ inbox, mid: f.own, thread }));
    for (const mid of f.parents) if (!linked.has(mid)) await run(q.setPhantom({ inbox, mid, thread }));
    return thread;
  }

  /** Moves `from`'s messages and refs into `into`, removes `from`, and returns `into` with the two combined. */
  private async merge(run: Run, q: Queries, into: ThreadRow, from: ThreadRow): Promise<ThreadRow> {
    await run(q.moveMessages({ from: from.id, to: into.id }));
    await run(q.moveRefs({ from: from.id, to: into.id }));
    await run(q.drop({ id: from.id }));
    // The conversation began in the thread with the earliest message: it keeps naming the merged one.
    const earlier = from.first_message_at < into.first_message_at ? from : into;
    const later = from.last_message_at > into.last_message_at ? from : into;
    const merged: ThreadRow = {
      id: into.id,
      subject: earlier.subject,
      base_subject: earlier.base_subject,
      message_count: into.message_count + from.message_count,
      participants_json: JSON.stringify(
        mergeParticipants(JSON.parse(into.participants_json) as string[], JSON.parse(from.participants_json) as string[]),
      ),
      first_message_at: earlier.first_message_at,
      last_message_at: later.last_message_at,
      last_message_id: later.last_message_id,
    };
    // Written by assign's update, which adds the new message to it.
    return merged;
  }
}
