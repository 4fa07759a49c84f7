// The table of open MCP sessions, shared fairly: a key and a team may each hold only a share of it (one read-only
// key once opened all 1,000 sessions in 7 s and locked everyone out, admin included), and when the table is full
// the least recently used session with no call in flight is closed to make room for a new one.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AppError } from '../errors.ts';

export interface SessionLimits {
  mcpMaxSessions: number;
  mcpMaxSessionsPerKey: number;
  mcpMaxSessionsPerTeam: number;
}

export interface SessionOwner {
  keyId: string;
  teamId: string;
}

export interface Session extends SessionOwner {
  id: string;
  /** The client accepted only JSON at initialize: answers are JSON, and progress travels on the GET stream. */
  jsonOnly: boolean;
  /** The tool sets the session sees, decided at initialize (null: every tool). Persisted on PostgreSQL. */
  toolsets: string[] | null;
  transport: StreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
  /** POST requests in flight (a call that is waiting keeps its session from being reclaimed). */
  busy: number;
  /** GET streams of the session open on this instance (where progress relayed from other instances goes). */
  streams: number;
}

/** Room taken for a session while its initialize runs; `open` files the session under it, `release` gives it back. */
export interface Slot {
  open(s: Omit<Session, 'busy' | 'lastSeen' | 'streams'>): void;
  release(): void;
}

const RETRY_AFTER_SECONDS = 5;

export class SessionTable {
  private readonly limits: SessionLimits;
  private readonly sessions = new Map<string, Session>();
  private readonly releases = new Map<string, () => void>();
  private readonly byKey = new Map<string, number>();
  private readonly byTeam = new Map<string, number>();
  private total = 0;
  /** Sessions closed to make room (diagnostics, tests). */
  reclaimed = 0;

  constructor(limits: SessionLimits) {
    this.limits = limits;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  get size(): number {
    return this.sessions.size;
  }

  values(): IterableIterator<Session> {
    return this.sessions.values();
  }

  /** Forgets a session (closed by its client, the idle sweep or a reclaim) and gives its room back. */
  delete(id: string): void {
    this.sessions.delete(id);
    this.releases.get(id)?.();
    this.releases.delete(id);
  }

  /**
   * Takes room for a new session of `owner`: 429 beyond the key's or the team's share; when the table is full, the
   * least recently used idle session is closed first, and 503 only when every session has a call in flight.
   */
  reserve(owner: SessionOwner): Slot {
    const { mcpMaxSessions, mcpMaxSessionsPerKey, mcpMaxSessionsPerTeam } = this.limits;
    const mine = this.byKey.get(owner.keyId) ?? 0;
    const team = this.byTeam.get(owner.teamId) ?? 0;
    if (mcpMaxSessionsPerKey > 0 && mine >= mcpMaxSessionsPerKey) throw capRefusal('key', mine, this.limits);
    if (mcpMaxSessionsPerTeam > 0 && team >= mcpMaxSessionsPerTeam) throw capRefusal('team', team, this.limits);
    if (this.total >= mcpMaxSessions && !this.reclaimOne()) throw capRefusal('total', this.total, this.limits);
    this.byKey.set(owner.keyId, mine + 1);
    this.byTeam.set(owner.teamId, team + 1);
    this.total++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.total--;
      drop(this.byKey, owner.keyId);
      drop(this.byTeam, owner.teamId);
    };
    return {
      open: (s) => {
        if (released) return void s.transport.close();
        this.sessions.set(s.id, { ...s, busy: 0, streams: 0, lastSeen: Date.now() });
        this.releases.set(s.id, release);
      },
      release,
    };
  }

  /** Closes the least recently used session with no call in flight; false when there is none. */
  private reclaimOne(): boolean {
    let lru: Session | undefined;
    for (const s of this.sessions.values()) if (s.busy === 0 && (!lru || s.lastSeen < lru.lastSeen)) lru = s;
    if (!lru) return false;
    this.delete(lru.id);
    this.reclaimed++;
    void lru.transport.close();
    return true;
  }
}

/** The answer when a cap is full (`held` sessions): 429 for a key's or team's share, 503 when every session is busy. */
export function capRefusal(cap: 'key' | 'team' | 'total', held: number, limits: SessionLimits): AppError {
  const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
  const advice =
    'end sessions you no longer use (DELETE /mcp with their Mcp-Session-Id) or call tools statelessly (POST /mcp without a session)';
  if (cap === 'key')
    return new AppError(
      'rate_limited',
      `this key already holds ${held} open MCP sessions (the per-key cap, --mcp-max-sessions-per-key, is ${limits.mcpMaxSessionsPerKey}); ${advice}`,
      { headers },
    );
  if (cap === 'team')
    return new AppError(
      'rate_limited',
      `the keys of this team already hold ${held} open MCP sessions (the per-team share, --mcp-max-sessions-per-team, is ${limits.mcpMaxSessionsPerTeam}); ${advice}`,
      { headers },
    );
  return new AppError(
    'unavailable',
    `all ${held} MCP sessions (--mcp-max-sessions) have a call in flight; retry in ${RETRY_AFTER_SECONDS} s, or call tools statelessly (POST /mcp without a session)`,
    { headers },
  );
}

function drop(m: Map<string, number>, k: string): void {
  const n = (m.get(k) ?? 1) - 1;
  if (n <= 0) m.delete(k);
  else m.set(k, n);
}
