// Thread assignment, incrementally and inside the ingest writer's transaction (JWZ's idea without a second pass):
// every Message-ID a message has or refers to is kept per inbox in `thread_refs`, ids only referenced as "phantoms",
// so a reply whose parent arrives later (or a parent arriving after its reply) lands in the same thread; a message
// that links two threads merges them. Without a known link, a reply/forward subject joins the inbox's most recent
// thread with the same base subject. Every statement is compiled once and is an indexed point or range lookup.
import type { CompiledQuery, Kysely } from 'kysely';
import { newId } from '../lib/ids.ts';
import { MAX_PARTICIPANTS, mergeParticipants, participantList, type ThreadFields } from '../mail/threads.ts';
import type { Database } from '../store/schema.ts';
import { compileThreadQueries, type ThreadQueries, type ThreadRow } from './queries.ts';

export interface ThreadTarget {
  inboxId: string;
  teamId: string;
  /** The message_rows id. */
  messageId: string;
  receivedAt: number;
}

type Run = <R>(q: CompiledQuery) => Promise<R[]>;
type Hit = ThreadRow & { message_id: string; phantom: number };

/**
 * A batch of messages written in one transaction (PostgreSQL, src/ingest/writer.ts WriterBatch.shared): the refs of
 * every Message-ID the batch names are read once, for all its inboxes. A message uses that read unless an earlier
 * message of the batch wrote one of its ids or one of the threads found: then it asks the database (which sees the
 * batch's own writes), so the answer is the same as one lookup per message.
 */
export interface ThreadBatch {
  scratch: Map<string, unknown>;
  inboxIds: string[];
  refIds: string[];
}

interface BatchRefs {
  hits: Map<string, Hit[]>;
  touchedIds: Set<string>;
  touchedThreads: Set<string>;
}

const refKey = (inbox: string, id: string) => `${inbox}\u0000${id}`;

/**
 * Assigns threads inside a transaction. One instance per store: the statements are compiled on first use (with
 * whatever transaction comes first; a compiled query is plain SQL text and parameters).
 */
export class ThreadAssigner {
  private q: ThreadQueries | null = null;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * Puts the message into its thread (creating or merging threads as needed) and returns the thread id. Usually three
   * statements: the lookup of all its ids at once, the thread's insert or update, and the refs' upsert.
   */
  async assign(trx: Kysely<Database>, at: ThreadTarget, f: ThreadFields, batch: ThreadBatch | null = null): Promise<string> {
    const q = (this.q ??= compileThreadQueries(trx));
    const run: Run = async <R>(c: CompiledQuery) => (await trx.executeQuery<R>(c)).rows;
    const inbox = at.inboxId;
    const ids = f.own ? [f.own, ...f.parents] : f.parents;

    // An inbox the batch did not lock and read (found by its own statement: created after the batch's read) asks.
    const pre = ids.length > 0 && batch?.inboxIds.includes(inbox) ? await this.batchRefs(run, q, batch) : null;
    let hits: Hit[] | null = null;
    if (pre && ids.every((id) => !pre.touchedIds.has(refKey(inbox, id)))) {
      hits = ids.flatMap((id) => pre.hits.get(refKey(inbox, id)) ?? []);
      if (hits.some((h) => pre.touchedThreads.has(h.id))) hits = null;
    }
    if (!hits) {
      hits = [];
      if (ids.length > 0) {
        const values: Record<string, unknown> = { inbox };
        for (const [i, id] of ids.entries()) values[`m${i}`] = id;
        hits.push(...(await run<Hit>(q.lookup(ids.length)(values))));
      }
    }
    const thread = await this.place(run, q, at, f, ids, hits);
    if (pre) {
      for (const id of ids) pre.touchedIds.add(refKey(inbox, id));
      for (const h of hits) pre.touchedThreads.add(h.id);
      pre.touchedThreads.add(thread);
    }
    return thread;
  }

  /** The batch's refs, read on the first message that needs them (before any of the batch's thread writes). */
  private async batchRefs(run: Run, q: ThreadQueries, batch: ThreadBatch): Promise<BatchRefs> {
    const have = batch.scratch.get('threads') as BatchRefs | undefined;
    if (have) return have;
    const refs: BatchRefs = { hits: new Map(), touchedIds: new Set(), touchedThreads: new Set() };
    batch.scratch.set('threads', refs);
    if (batch.inboxIds.length > 0 && batch.refIds.length > 0)
      for (const h of await run<Hit & { inbox_id: string }>(q.lookupMany({ inboxes: batch.inboxIds, ids: batch.refIds }))) {
        const { inbox_id, ...hit } = h;
        const k = refKey(inbox_id, hit.message_id);
        const list = refs.hits.get(k);
        if (list) list.push(hit);
        else refs.hits.set(k, [hit]);
      }
    return refs;
  }

  private async place(run: Run, q: ThreadQueries, at: ThreadTarget, f: ThreadFields, ids: string[], hits: Hit[]): Promise<string> {
    const inbox = at.inboxId;
    const found = new Map<string, ThreadRow>();
    // Ids whose ref already points at a live thread need no write below (a merge repoints them).
    const linked = new Set<string>();
    let ownPhantom = false;
    let parentFound = false;
    for (const h of hits) {
      const { message_id, phantom, ...t } = h;
      if (!found.has(t.id)) found.set(t.id, t);
      linked.add(message_id);
      // Its own id already known: a reply to it came first (phantom), or the same message again.
      if (message_id === f.own) ownPhantom = phantom === 1;
      else parentFound = true;
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
      const root = ownPhantom && !parentFound;
      const participants = mergeParticipants(participantList(target.participants_json), f.participants);
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
    // The own id always (it becomes real), and every referenced id not yet pointing at a live thread.
    const write = ids.filter((id) => id === f.own || !linked.has(id));
    if (write.length > 0) {
      const values: Record<string, unknown> = { inbox, thread };
      for (const [i, id] of write.entries()) {
        values[`m${i}`] = id;
        values[`f${i}`] = id === f.own ? 0 : 1;
      }
      await run(q.upsert(write.length)(values));
    }
    return thread;
  }

  /** Moves `from`'s messages and refs into `into`, removes `from`, and returns `into` with the two combined. */
  private async merge(run: Run, q: ThreadQueries, into: ThreadRow, from: ThreadRow): Promise<ThreadRow> {
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
        mergeParticipants(participantList(into.participants_json), participantList(from.participants_json)),
      ),
      first_message_at: earlier.first_message_at,
      last_message_at: later.last_message_at,
      last_message_id: later.last_message_id,
    };
    // Written by assign's update, which adds the new message to it.
    return merged;
  }
}
