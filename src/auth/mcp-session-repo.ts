// The MCP sessions of a cluster (issue 33): one row per open session in `mcp_sessions` (migration 027), so any
// instance serves any request of a session. Used on PostgreSQL only (on SQLite one instance keeps them in memory,
// src/mcp/sessions.ts). Caps are counted over every instance, under one advisory lock so two instances opening
// sessions at once cannot both take the last place.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../store/schema.ts';

export interface McpSessionRow {
  id: string;
  key_id: string;
  team_id: string;
  protocol_version: string;
  client_json: string;
  capabilities_json: string;
  subscriptions_json: string;
  toolsets_json: string | null;
  json_only: number;
  busy: number;
  created_at: number;
  last_seen: number;
}

type SessionTables = { mcp_sessions: McpSessionRow };

export interface SessionCaps {
  mcpMaxSessions: number;
  mcpMaxSessionsPerKey: number;
  mcpMaxSessionsPerTeam: number;
}

/** What `open` decided: filed (and the session it closed to make room, if any), or which cap refused it. */
export type OpenOutcome = { ok: true; reclaimed: string | null } | { ok: false; cap: 'key' | 'team' | 'total'; held: number };

/** Any constant: the lock taken while counting and filing a new session (transaction-scoped, released at commit). */
const OPEN_LOCK = 0x1b0d_0027;

export class McpSessionRepo {
  private readonly db: Kysely<Database & SessionTables>;
  constructor(db: Kysely<Database>) {
    this.db = db.withTables<SessionTables>();
  }

  /**
   * Files `row` unless the key's or the team's share is full; when the whole table is full, the least recently used
   * session with no call in flight is deleted first (its id is returned so every instance closes it).
   */
  open(row: McpSessionRow, caps: SessionCaps): Promise<OpenOutcome> {
    return this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(${OPEN_LOCK})`.execute(tx);
      const c = await tx
        .selectFrom('mcp_sessions')
        .select([
          sql<string>`count(*) filter (where key_id = ${row.key_id})`.as('mine'),
          sql<string>`count(*) filter (where team_id = ${row.team_id})`.as('team'),
          sql<string>`count(*)`.as('total'),
        ])
        .executeTakeFirstOrThrow();
      const mine = Number(c.mine);
      const team = Number(c.team);
      const total = Number(c.total);
      if (caps.mcpMaxSessionsPerKey > 0 && mine >= caps.mcpMaxSessionsPerKey) return { ok: false, cap: 'key', held: mine };
      if (caps.mcpMaxSessionsPerTeam > 0 && team >= caps.mcpMaxSessionsPerTeam) return { ok: false, cap: 'team', held: team };
      let reclaimed: string | null = null;
      if (total >= caps.mcpMaxSessions) {
        const lru = await tx
          .selectFrom('mcp_sessions')
          .select('id')
          .where('busy', '<=', 0)
          .orderBy('last_seen')
          .limit(1)
          .executeTakeFirst();
        if (!lru) return { ok: false, cap: 'total', held: total };
        await tx.deleteFrom('mcp_sessions').where('id', '=', lru.id).execute();
        reclaimed = lru.id;
      }
      await tx.insertInto('mcp_sessions').values(row).execute();
      return { ok: true, reclaimed };
    });
  }

  /**
   * The sessions asked for, each marked used at `now` with `calls` more calls in flight, in one statement (the
   * requests of one tick share it); a session that is gone, or is another key's, is not in the answer.
   */
  async touch(asks: ReadonlyArray<{ id: string; keyId: string; calls: number }>, now: number): Promise<McpSessionRow[]> {
    const r = await sql<McpSessionRow>`
      update mcp_sessions as m set last_seen = ${now}, busy = m.busy + v.calls
      from unnest(${asks.map((a) => a.id)}::text[], ${asks.map((a) => a.keyId)}::text[], ${asks.map((a) => a.calls)}::int[]) as v(id, key_id, calls)
      where m.id = v.id and m.key_id = v.key_id
      returning m.*`.execute(this.db);
    return r.rows;
  }

  /** Calls of these sessions finished (`calls` each), in one statement. */
  async done(ends: ReadonlyArray<{ id: string; calls: number }>, now: number): Promise<void> {
    await sql`
      update mcp_sessions as m set last_seen = ${now}, busy = greatest(m.busy - v.calls, 0)
      from unnest(${ends.map((e) => e.id)}::text[], ${ends.map((e) => e.calls)}::int[]) as v(id, calls)
      where m.id = v.id`.execute(this.db);
  }

  /** Ends a session; true when it was still open. */
  async end(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('mcp_sessions').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Ends the sessions last used before `before`; answers their ids. */
  async expire(before: number): Promise<string[]> {
    const rows = await this.db.deleteFrom('mcp_sessions').where('last_seen', '<', before).returning('id').execute();
    return rows.map((r) => r.id);
  }

  /** Open sessions over the cluster (diagnostics, tests). */
  async count(): Promise<number> {
    const r = await this.db.selectFrom('mcp_sessions').select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
