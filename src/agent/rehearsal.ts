// The rehearsal signup page behind testUrl: an agent types an inboxd address, inboxd mails it a code and a magic
// link through the simulate path, and the page checks what the agent types or clicks back. Sessions live in memory
// on one instance; on a cluster (PostgreSQL) in the database (src/agent/rehearsal-repo.ts), so the signup, the code
// and the link may each reach another instance, and the lock-outs (wrong codes per signup, attempts per client
// address) count every instance's (README "Scaling out").
import crypto from 'node:crypto';
import type { SharedWindows } from '../auth/cluster-limits.ts';
import { safeEqual } from '../auth/secrets.ts';
import type { RehearsalRepo } from './rehearsal-repo.ts';

export interface RehearsalSession {
  id: string;
  address: string;
  inboxId: string;
  code: string;
  linkToken: string;
  expiresAt: number;
  done: boolean;
  /** Wrong codes typed so far; at MAX_WRONG_CODES the session is locked for good. */
  wrongCodes: number;
}

const MAX_SESSIONS = 1000;
const TTL_MS = 30 * 60_000;
/** A 6-digit code allows 1 in 200,000 guesses per session at this limit. */
export const MAX_WRONG_CODES = 5;
/** Per client IP and window: signups (each mails an inbox) and wrong codes or links (guessing across sessions). */
export const IP_LIMITS = { signup: 20, wrong: 20 } as const;
export const IP_WINDOW_MS = 10 * 60_000;
const MAX_TRACKED_IPS = 10_000;

type IpCounter = { windowStart: number; signup: number; wrong: number };

/** Where a cluster keeps them: the sessions' table and the shared windows of the per-address counts. */
export interface SharedRehearsals {
  repo: RehearsalRepo;
  windows: SharedWindows;
}

export class RehearsalStore {
  private readonly sessions = new Map<string, RehearsalSession>();
  private readonly perIp = new Map<string, IpCounter>();
  private readonly now: () => number;
  private readonly shared: SharedRehearsals | null;
  private lastPrune = 0;

  constructor(now: () => number, shared: SharedRehearsals | null = null) {
    this.now = now;
    this.shared = shared;
  }

  async start(address: string, inboxId: string): Promise<RehearsalSession> {
    if (this.shared) {
      const s = this.newSession(address, inboxId);
      await this.shared.repo.insert(s);
      if (this.now() - this.lastPrune > 60_000) {
        this.lastPrune = this.now();
        void this.shared.repo.prune(this.now()).catch(() => undefined);
      }
      return s;
    }
    this.prune();
    const s = this.newSession(address, inboxId);
    this.sessions.set(s.id, s);
    return s;
  }

  private newSession(address: string, inboxId: string): RehearsalSession {
    const s: RehearsalSession = {
      id: crypto.randomBytes(12).toString('hex'),
      address,
      inboxId,
      code: String(crypto.randomInt(0, 1_000_000)).padStart(6, '0'),
      linkToken: crypto.randomBytes(16).toString('hex'),
      expiresAt: this.now() + TTL_MS,
      done: false,
      wrongCodes: 0,
    };
    return s;
  }

  async get(id: string): Promise<RehearsalSession | undefined> {
    const s = this.shared ? await this.shared.repo.get(id) : this.sessions.get(id);
    return s && s.expiresAt > this.now() ? s : undefined;
  }

  async checkCode(id: string, code: string): Promise<'ok' | 'wrong' | 'unknown' | 'locked'> {
    const s = await this.get(id);
    if (!s) return 'unknown';
    if (s.wrongCodes >= MAX_WRONG_CODES) return 'locked';
    if (!safeEqual(code.replace(/[\s-]/g, ''), s.code)) {
      // Counted where the session is, so guesses sent to several instances add up.
      s.wrongCodes = this.shared ? await this.shared.repo.wrong(id) : s.wrongCodes + 1;
      return s.wrongCodes >= MAX_WRONG_CODES ? 'locked' : 'wrong';
    }
    if (this.shared) return (await this.shared.repo.done(id, MAX_WRONG_CODES)) ? 'ok' : 'locked';
    s.done = true;
    return 'ok';
  }

  async checkLink(id: string, token: string): Promise<'ok' | 'wrong' | 'unknown' | 'locked'> {
    const s = await this.get(id);
    if (!s) return 'unknown';
    if (s.wrongCodes >= MAX_WRONG_CODES) return 'locked';
    if (!safeEqual(token, s.linkToken)) return 'wrong';
    if (this.shared) return (await this.shared.repo.done(id, MAX_WRONG_CODES)) ? 'ok' : 'locked';
    s.done = true;
    return 'ok';
  }

  /**
   * Milliseconds until this client may try again when it has used up its `kind` allowance in the current window,
   * else 0. Does not count: call `count` for what happened.
   */
  blockedFor(ip: string | null, kind: 'signup' | 'wrong'): number {
    const c = this.counter(ip);
    return c[kind] >= IP_LIMITS[kind] ? c.windowStart + IP_WINDOW_MS - this.now() : 0;
  }

  /**
   * Counts one `kind` of this client. On a cluster the count is the database's, over every instance (fixed windows;
   * what other instances counted since this one last counted is seen at its next count: README "Scaling out").
   */
  async count(ip: string | null, kind: 'signup' | 'wrong'): Promise<void> {
    const c = this.counter(ip);
    c[kind]++;
    if (!this.shared) return;
    const n = await this.shared.windows.add(`rehearsal-${kind}`, ip ?? 'unknown', c.windowStart);
    if (n !== null && n > c[kind]) c[kind] = n;
  }

  private counter(ip: string | null): IpCounter {
    const key = ip ?? 'unknown';
    const now = this.now();
    let c = this.perIp.get(key);
    if (!c || c.windowStart + IP_WINDOW_MS <= now) {
      // On a cluster every instance must agree on the windows: fixed ones, not from this client's first attempt.
      const windowStart = this.shared ? Math.floor(now / IP_WINDOW_MS) * IP_WINDOW_MS : now;
      if (!c && this.perIp.size >= MAX_TRACKED_IPS) {
        for (const [k, v] of this.perIp) if (v.windowStart + IP_WINDOW_MS <= now) this.perIp.delete(k);
        if (this.perIp.size >= MAX_TRACKED_IPS) this.perIp.delete(this.perIp.keys().next().value!);
      }
      c = { windowStart, signup: 0, wrong: 0 };
      this.perIp.set(key, c);
    }
    return c;
  }

  private prune(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(id);
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
  }
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)} — inboxd rehearsal</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#111}label{display:block;margin:1rem 0 .25rem}input{font:inherit;padding:.5rem;width:100%;box-sizing:border-box}button{font:inherit;margin-top:1rem;padding:.5rem 1.25rem}.ok{color:#065f46}.err{color:#991b1b}.hint{color:#555;font-size:.9rem}</style></head>
<body><h1>${esc(title)}</h1>${body}</body></html>`;
}

export const signupForm = (error?: string) =>
  page(
    'Create your account',
    `${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}<p class="hint">A rehearsal signup form served by inboxd. Enter the address of an inboxd inbox; a verification code and a magic link are mailed to it.</p>
<form method="post" action="/v1/agent/test/signup"><label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="email" required><button type="submit">Sign up</button></form>`,
  );

export const codeForm = (s: RehearsalSession, error?: string) =>
  page(
    'Check your email',
    `${error ? `<p class="err" role="alert">${esc(error)}</p>` : ''}<p>If <b>${esc(s.address)}</b> is an inbox on this server, we sent it a verification code and a sign-in link.</p>
<form method="post" action="/v1/agent/test/confirm"><input type="hidden" name="session" value="${esc(s.id)}"><label for="code">Verification code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required><button type="submit">Verify</button></form>`,
  );

export const success = (s: RehearsalSession, how: string) =>
  page(
    'Verified',
    `<p class="ok" id="result" data-result="verified">${esc(s.address)} is verified (${esc(how)}). The rehearsal passed.</p>`,
  );

export const failure = (message: string) =>
  page(
    'Not verified',
    `<p class="err" id="result" data-result="failed">${esc(message)}</p><p><a href="/v1/agent/test">Start again</a></p>`,
  );
