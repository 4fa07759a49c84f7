// Bounds on long-poll waits (GET …/wait, verify, open, the wait tools): each one holds a socket, a timer and a bus
// listener, and all of them answer at once when mail lands, so an unbounded number is a memory attack. Also the
// per-wake-up cache that builds a waited-for message's JSON once, however many waiters want it. Both are held by the
// server's one MailWaits (src/inboxes/wait.ts); nothing here is module state.
import type { SharedHolds } from '../auth/cluster-limits.ts';
import type { Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';

export interface WaiterLimits {
  maxWaitersPerKey: number;
  maxWaitersPerTeam: number;
  maxWaiters: number;
}

/** Who holds a wait: the API key (a token counts against the key that minted it) and its team. */
export interface WaiterOwner {
  key: string;
  team: string;
}

const RETRY_AFTER_SECONDS = 5;

/** Who a wait counts against: the key (a token counts against the key that minted it) and its team; else the IP. */
export function waitOwnerOf(p: Pick<Principal, 'keyId' | 'teamId'> | null, ip: string | null): WaiterOwner {
  return p ? { key: p.keyId, team: p.teamId } : { key: `ip:${ip ?? '?'}`, team: `ip:${ip ?? '?'}` };
}

/**
 * Counts open waits per key, per team and in all, and refuses one beyond a share: no key and no team can hold
 * every slot of the server (two read-only keys once held all 2,000), so others can still wait.
 */
export class WaiterGate {
  private readonly limits: WaiterLimits;
  private readonly byKey = new Map<string, number>();
  private readonly byTeam = new Map<string, number>();
  private total = 0;
  /** On a cluster: what the other instances hold (README "Scaling out"); null on one instance. */
  private readonly shared: SharedHolds | null;

  constructor(limits: WaiterLimits, shared: SharedHolds | null = null) {
    this.limits = limits;
    this.shared = shared;
  }

  /** Takes a waiter slot for `owner` or throws 429 naming the share that is full; returns the release function. */
  acquire(owner: WaiterOwner): () => void {
    const { maxWaitersPerKey, maxWaitersPerTeam, maxWaiters } = this.limits;
    const sh = this.shared;
    const mine = (this.byKey.get(owner.key) ?? 0) + (sh ? sh.others('wait-key', owner.key) : 0);
    const team = (this.byTeam.get(owner.team) ?? 0) + (sh ? sh.others('wait-team', owner.team) : 0);
    const total = this.total + (sh ? sh.others('wait-all', '') : 0);
    const headers = { 'Retry-After': String(RETRY_AFTER_SECONDS) };
    if (maxWaitersPerKey > 0 && mine >= maxWaitersPerKey)
      throw new AppError(
        'rate_limited',
        `this key already holds ${mine} open waits (the per-key cap, --max-waiters-per-key, is ${maxWaitersPerKey}); let some finish or cancel them, then retry in ${RETRY_AFTER_SECONDS} s`,
        { headers },
      );
    if (maxWaitersPerTeam > 0 && team >= maxWaitersPerTeam)
      throw new AppError(
        'rate_limited',
        `the keys of this team already hold ${team} open waits (the per-team share, --max-waiters-per-team, is ${maxWaitersPerTeam}); let some of the team's waits finish, then retry in ${RETRY_AFTER_SECONDS} s`,
        { headers },
      );
    if (maxWaiters > 0 && total >= maxWaiters)
      throw new AppError(
        'rate_limited',
        `the server already holds ${total} open waits (the server-wide cap, --max-waiters, is ${maxWaiters}); retry in ${RETRY_AFTER_SECONDS} s`,
        { headers },
      );
    this.byKey.set(owner.key, (this.byKey.get(owner.key) ?? 0) + 1);
    this.byTeam.set(owner.team, (this.byTeam.get(owner.team) ?? 0) + 1);
    this.total++;
    this.share(owner);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      drop(this.byKey, owner.key);
      drop(this.byTeam, owner.team);
      this.share(owner);
    };
  }

  /** Tells the other instances (at the next exchange) what this one holds of `owner`'s shares. */
  private share(owner: WaiterOwner): void {
    if (!this.shared) return;
    this.shared.set('wait-key', owner.key, this.byKey.get(owner.key) ?? 0);
    this.shared.set('wait-team', owner.team, this.byTeam.get(owner.team) ?? 0);
    this.shared.set('wait-all', '', this.total);
  }

  count(key?: string): number {
    return key === undefined ? this.total : (this.byKey.get(key) ?? 0);
  }

  teamCount(team: string): number {
    return this.byTeam.get(team) ?? 0;
  }
}

function drop(m: Map<string, number>, k: string): void {
  const n = (m.get(k) ?? 1) - 1;
  if (n <= 0) m.delete(k);
  else m.set(k, n);
}

/**
 * Builds a value once for everyone asking within a short window: when a message wakes a thousand waiters, its row
 * is read and its JSON made once, and every answer writes the same Buffer.
 */
export class OnceCache<T> {
  private readonly entries = new Map<string, Promise<T>>();
  private readonly keepMs: number;

  constructor(keepMs: number) {
    this.keepMs = keepMs;
  }

  get(key: string, make: () => Promise<T>): Promise<T> {
    let p = this.entries.get(key);
    if (p) return p;
    p = make();
    this.entries.set(key, p);
    const drop = () => {
      setTimeout(() => {
        if (this.entries.get(key) === p) this.entries.delete(key);
      }, this.keepMs).unref();
    };
    p.then(drop, drop);
    return p;
  }

  get size(): number {
    return this.entries.size;
  }
}
