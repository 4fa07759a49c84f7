// MCP sessions any instance of a cluster can serve (issue 33, README "Scaling out"). On PostgreSQL a session is a row
// of `mcp_sessions` (src/auth/mcp-session-repo.ts): every request of a session reads it back in the one statement
// that also marks it used, and an instance that has no transport for it yet builds one from the row (the protocol
// version, client info and capabilities given at initialize) — the transports here are a cache. What must reach
// another instance travels as a signal on the LISTEN/NOTIFY bus (src/events/pg-bus.ts): progress of a call for the
// GET stream held elsewhere, and the end of a session (DELETE, the idle sweep, a reclaim) so every instance closes
// its transport and its GET stream. Caps are counted over the cluster when a session opens.
import type { JSONRPCNotification } from '@modelcontextprotocol/sdk/types.js';
import type { McpSessionRepo, McpSessionRow, SessionCaps } from '../auth/mcp-session-repo.ts';
import type { Logger } from '../log.ts';
import { capRefusal, type Session, type SessionOwner } from './sessions.ts';

/** The bus's side channel (PgEventBus.signal / onSignal). */
export interface Signals {
  signal(payload: string): void;
  onSignal(listener: (payload: string) => void): () => void;
}

type Signal = { t: 'end'; s: string } | { t: 'note'; s: string; n: Omit<JSONRPCNotification, 'jsonrpc'> };

/** A transport unused here this long (no call, no GET stream) is dropped from the cache; the session lives on. */
const CACHE_IDLE_MS = 5 * 60_000;

export class ClusterSessions {
  private readonly repo: McpSessionRepo;
  private readonly signals: Signals;
  private readonly caps: SessionCaps;
  private readonly now: () => number;
  private readonly log: Logger;
  /** Transports of sessions served on this instance (any instance may serve any session). */
  private readonly live = new Map<string, Session>();
  private readonly off: () => void;
  private touches: Array<{
    id: string;
    keyId: string;
    call: boolean;
    resolve: (r: McpSessionRow | undefined) => void;
    reject: (e: unknown) => void;
  }> = [];
  /** Session id → calls finished since the last statement. */
  private readonly ends = new Map<string, number>();
  private stopped = false;
  /** Sessions closed to make room (diagnostics, tests). */
  reclaimed = 0;

  constructor(d: { repo: McpSessionRepo; signals: Signals; caps: SessionCaps; now: () => number; log: Logger }) {
    this.repo = d.repo;
    this.signals = d.signals;
    this.caps = d.caps;
    this.now = d.now;
    this.log = d.log;
    this.off = this.signals.onSignal((p) => this.heard(p));
  }

  /** The transport of session `id` on this instance, if it has one. */
  get(id: string): Session | undefined {
    return this.live.get(id);
  }

  get size(): number {
    return this.live.size;
  }

  /** Files a new session over the cluster, or throws 429 (a share is full) / 503 (every session is busy). */
  async open(row: McpSessionRow): Promise<void> {
    const r = await this.repo.open(row, this.caps);
    if (!r.ok) throw capRefusal(r.cap, r.held, this.caps);
    if (r.reclaimed) {
      this.reclaimed++;
      this.ended(r.reclaimed);
    }
  }

  /** Keeps the transport of a session served here. */
  keep(s: Omit<Session, 'busy' | 'lastSeen' | 'streams'>): Session {
    const session = { ...s, busy: 0, streams: 0, lastSeen: this.now() };
    this.live.set(s.id, session);
    return session;
  }

  /** Drops a transport from this instance's cache (it closed); the session itself lives on in the database. */
  forget(id: string, s: Session): void {
    if (this.live.get(id) === s) this.live.delete(id);
  }

  /**
   * The row of session `id` of `owner`, marked used (and one more call in flight when `call`), or undefined: one
   * statement for all the requests of a tick.
   */
  touch(id: string, owner: SessionOwner, call: boolean): Promise<McpSessionRow | undefined> {
    return new Promise((resolve, reject) => {
      this.touches.push({ id, keyId: owner.keyId, call, resolve, reject });
      if (this.touches.length === 1) setImmediate(() => void this.flushTouches());
    });
  }

  /** A call of the session is over (off the answer's path; the ends of a tick share one statement). */
  done(id: string): void {
    if (this.stopped) return;
    this.ends.set(id, (this.ends.get(id) ?? 0) + 1);
    if (this.ends.size === 1 && this.ends.get(id) === 1) setImmediate(() => void this.flushEnds());
  }

  private async flushTouches(): Promise<void> {
    const batch = this.touches;
    this.touches = [];
    // One row per session and key: concurrent requests of one session add their calls up.
    const asks = new Map<string, { id: string; keyId: string; calls: number }>();
    for (const t of batch) {
      const k = `${t.id}\0${t.keyId}`;
      const a = asks.get(k) ?? { id: t.id, keyId: t.keyId, calls: 0 };
      a.calls += t.call ? 1 : 0;
      asks.set(k, a);
    }
    try {
      const rows = new Map((await this.repo.touch([...asks.values()], this.now())).map((r) => [r.id, r]));
      for (const t of batch) {
        const r = rows.get(t.id);
        t.resolve(r && r.key_id === t.keyId ? r : undefined);
      }
    } catch (e) {
      for (const t of batch) t.reject(e);
    }
  }

  private async flushEnds(): Promise<void> {
    const ends = [...this.ends].map(([id, calls]) => ({ id, calls }));
    this.ends.clear();
    if (this.stopped) return;
    await this.repo.done(ends, this.now()).catch((e) => this.log.warn('could not mark MCP calls finished', { err: e as Error }));
  }

  /** Ends a session everywhere (DELETE). */
  async end(id: string): Promise<void> {
    await this.repo.end(id);
    this.ended(id);
  }

  /**
   * A notification for the session's GET stream: sent here when this instance holds it, else announced to the
   * others (the one holding it sends it).
   */
  notify(id: string, note: Omit<JSONRPCNotification, 'jsonrpc'>): void {
    const s = this.live.get(id);
    if (s && s.streams > 0) return void s.server.notification(note as never).catch(() => undefined);
    this.signals.signal(JSON.stringify({ t: 'note', s: id, n: note } satisfies Signal));
  }

  /** Ends the sessions idle for `idleMs` over the cluster, and drops transports unused here for a while. */
  async sweep(idleMs: number): Promise<void> {
    const now = this.now();
    try {
      for (const id of await this.repo.expire(now - idleMs)) this.ended(id);
    } catch (e) {
      this.log.warn('could not sweep idle MCP sessions (retried in a minute)', { err: e as Error });
    }
    for (const s of [...this.live.values()])
      if (s.busy === 0 && s.streams === 0 && now - s.lastSeen > CACHE_IDLE_MS) {
        this.live.delete(s.id);
        void s.transport.close();
      }
  }

  /** Closes every transport here (shutdown); the sessions stay open for the other instances. */
  closeAll(): void {
    this.stopped = true;
    this.off();
    for (const s of [...this.live.values()]) void s.transport.close();
    this.live.clear();
  }

  /** Open sessions over the cluster. */
  count(): Promise<number> {
    return this.repo.count();
  }

  private ended(id: string): void {
    this.signals.signal(JSON.stringify({ t: 'end', s: id } satisfies Signal));
    this.closeHere(id);
  }

  private closeHere(id: string): void {
    const s = this.live.get(id);
    if (!s) return;
    this.live.delete(id);
    void s.transport.close();
  }

  private heard(payload: string): void {
    let m: Signal;
    try {
      m = JSON.parse(payload) as Signal;
    } catch {
      return;
    }
    if (m.t === 'end') this.closeHere(m.s);
    else if (m.t === 'note') {
      const s = this.live.get(m.s);
      if (s && s.streams > 0) void s.server.notification(m.n as never).catch(() => undefined);
    }
  }
}
