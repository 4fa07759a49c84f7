// The threads capability's service: reads of threads for the API and the console (an inbox's threads, one thread and
// its messages, the recent threads across a key's inboxes), and the upkeep ingest and message deletes call. It runs no
// query itself: the reads are ThreadRepo's (src/threads/repo.ts); thread assignment's statements stay in
// src/threads/queries.ts and claim/delete upkeep in src/threads/upkeep.ts, which are query modules already.
import type { Kysely } from 'kysely';
import type { MessageSummaryRow } from '../store/messages.ts';
import type { Database } from '../store/schema.ts';
import { type ActivityCursor, type ConsoleThreadRow, ThreadRepo, type ThreadRow } from './repo.ts';
import { ThreadUpkeep } from './upkeep.ts';

export type { ActivityCursor, ConsoleThreadRow, ThreadRow } from './repo.ts';

export class ThreadService {
  private readonly repo: ThreadRepo;
  /** Claim and delete upkeep (src/threads/upkeep.ts). */
  readonly upkeep: ThreadUpkeep;

  constructor(db: Kysely<Database>, now: () => number) {
    this.repo = new ThreadRepo(db);
    this.upkeep = new ThreadUpkeep(db, now);
  }

  /** An inbox's threads, newest activity first. */
  list(inboxId: string, limit: number, before?: ActivityCursor): Promise<ThreadRow[]> {
    return this.repo.list(inboxId, limit, before);
  }

  get(inboxId: string, threadId: string): Promise<ThreadRow | undefined> {
    return this.repo.get(inboxId, threadId);
  }

  /** The thread's messages, oldest first, after the given inbox sequence number. */
  messages(inboxId: string, threadId: string, limit: number, afterSeq?: number): Promise<MessageSummaryRow[]> {
    return this.repo.messages(inboxId, threadId, limit, afterSeq);
  }

  /** Threads of every inbox of the team within the label prefix, newest activity first, with their inbox. */
  recent(teamId: string, labelPrefix: string | null, limit: number, before?: ActivityCursor): Promise<ConsoleThreadRow[]> {
    return this.repo.recent(teamId, labelPrefix, limit, before);
  }
}
