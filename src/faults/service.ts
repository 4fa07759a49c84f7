// Fault rules (issue 29): the rule sets of each scope (global, a label prefix, an inbox), an in-memory snapshot the
// SMTP listener asks at each stage (no database read per command; on PostgreSQL a version row is read once per
// connection and every second), the counters of the modes, the token buckets and the greylist, the local-part
// shortcuts, and the record of every fault that fired (an inbox's timeline, the team's fault log, the metrics).
import { isFullAdmin, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../log.ts';
import type { FaultEventRow, FaultRepo, FaultRuleRow, FaultRuleWithInbox, ScopeKey } from './repo.ts';
import {
  compileGlob,
  EARLY_STAGES,
  type FaultAction,
  type FaultRule,
  type FaultRuleInput,
  type FaultStage,
  type GlobBudget,
  MATCH_BUDGET_STEPS,
  MAX_DELAY_MS,
  MAX_RULES_PER_SCOPE,
  MAX_RULES_PER_TEAM,
  modeFires,
  normalizeRules,
  replyOf,
  STAGES,
  shortcutOf,
} from './rules.ts';

/** The recipient's inbox as the rules see it (null: no inbox has the address). */
export interface FaultInbox {
  id: string;
  teamId: string;
  label: string | null;
}

/** What the listener tells about the session at a stage. */
export interface FaultSession {
  id: string;
  client: string;
  sender: string | null;
  /** The recipients accepted so far in this transaction. */
  recipients: string[];
  /** At rcpt: the recipient being decided. */
  recipient?: string;
  /** The transaction (smtp-server's envelope object): rate limits per client count one token per transaction. */
  tx?: object;
}

/** What the listener does: wait, then reply with a code, drop the connection, or go on (throttled at DATA). */
export interface FaultOutcome {
  delayMs: number;
  reply: { code: number; message: string } | null;
  disconnect: boolean;
  throttleBytesPerSecond: number | null;
}

export type FaultTarget =
  | { kind: 'global' }
  | { kind: 'prefix'; labelPrefix: string }
  | { kind: 'inbox'; inbox: FaultInbox & { address: string } };

/** A rule as answered by the API. */
export interface FaultRuleView extends FaultRule {
  ruleId: string;
  scope: { kind: 'global' } | { kind: 'prefix'; labelPrefix: string } | { kind: 'inbox'; inboxId: string; address: string | null };
  fired: number;
  createdAt: string;
}

export interface TimelineItem {
  type: 'fault' | 'message';
  at: string;
  fault?: FaultEventView;
  message?: { messageId: string; subject: string | null; from: string | null; recipient: string | null };
}

export interface FaultEventView {
  eventId: string;
  inboxId: string | null;
  ruleId: string | null;
  source: 'rule' | 'shortcut';
  stage: string;
  action: string;
  code: number | null;
  reply: string | null;
  sender: string | null;
  recipient: string | null;
  client: string | null;
  at: string;
}

type Glob = ReturnType<typeof compileGlob>;

interface Compiled {
  id: string;
  teamId: string;
  scope: 'global' | 'prefix' | 'inbox';
  labelPrefix: string | null;
  inboxId: string | null;
  rule: FaultRule;
  recipient: Glob | null;
  sender: Glob | null;
  label: Glob | null;
}

interface SessionState {
  inboxes: Map<string, FaultInbox | null>;
  /** Shortcuts of accepted recipients that act at DATA or at the end of DATA. */
  pending: Array<{ stage: FaultStage; action: FaultAction; rcpt: string }>;
  /** Per-client rate limits: the rule ids that let this transaction through. */
  passed: Set<string>;
  tx: object | undefined;
}

/** A fault that fired, before it is stored. */
type Fired = Omit<FaultEventRow, 'id' | 'at'>;

const INBOX_CACHE_MS = 1000;
const MAX_CACHED = 10_000;
const MAX_BUCKETS = 10_000;
const MAX_GREYLIST = 50_000;
const MAX_QUEUED_EVENTS = 10_000;
/** Fault events are kept a day (README "Fault rules"). */
const EVENT_RETENTION_MS = 24 * 3600_000;

export class FaultService {
  private readonly repo: FaultRepo;
  private readonly inboxByAddress: (address: string) => Promise<FaultInbox | undefined>;
  private readonly recentMessages: (
    inboxId: string,
    since: number,
    limit: number,
  ) => Promise<Array<{ id: string; received_at: number; subject: string | null; from_address: string | null; rcpt: string | null }>>;
  private readonly shared: boolean;
  private readonly shortcuts: boolean;
  private readonly now: () => number;
  private readonly log: Logger;

  private byStage = new Map<FaultStage, Compiled[]>();
  private recipientRules = false;
  private loadedVersion = -1;
  private refreshing: Promise<void> | null = null;
  /** Calls waiting for the next read of the version row (see versionAfterNow), and whether one is in flight. */
  private versionWaiters: Array<{ resolve: (v: number) => void; reject: (e: unknown) => void }> = [];
  private versionReading = false;
  private timer: NodeJS.Timeout | null = null;
  /** Matches counted per rule id (per instance; README "Fault rules"). */
  private readonly counts = new Map<string, number>();
  private readonly fires = new Map<string, number>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly greylist = new Map<string, number>();
  private readonly sessions = new Map<string, SessionState>();
  private readonly inboxCache = new Map<string, { v: FaultInbox | null; at: number }>();
  private queue: FaultEventRow[] = [];
  private flushing: Promise<void> | null = null;
  private dropped = 0;
  private lastBudgetWarning = 0;
  /** Faults fired per `stage action`, for GET /metrics. */
  readonly fired = new Map<string, number>();

  constructor(d: {
    repo: FaultRepo;
    inboxByAddress: (address: string) => Promise<FaultInbox | undefined>;
    recentMessages: FaultService['recentMessages'];
    shared: boolean;
    shortcuts: boolean;
    now: () => number;
    log: Logger;
  }) {
    this.repo = d.repo;
    this.inboxByAddress = d.inboxByAddress;
    this.recentMessages = d.recentMessages;
    this.shared = d.shared;
    this.shortcuts = d.shortcuts;
    this.now = d.now;
    this.log = d.log;
  }

  /** Loads the rules; on a shared database re-reads them every second when their version changed. */
  async start(): Promise<void> {
    await this.reload();
    if (this.shared) {
      this.timer = setInterval(
        () => void this.freshen().catch((e: Error) => this.log.warn('could not re-read fault rules', { err: e })),
        1000,
      );
      this.timer.unref();
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  // ---- the API ----

  async setRules(p: Principal, target: FaultTarget, inputs: FaultRuleInput[]): Promise<FaultRuleView[]> {
    this.authorize(p, target);
    if (inputs.length > MAX_RULES_PER_SCOPE)
      throw new AppError(
        'validation_failed',
        `${inputs.length} fault rules given; a scope (global, one label prefix, one inbox) holds at most ${MAX_RULES_PER_SCOPE}`,
        { errors: [{ path: 'rules', message: `at most ${MAX_RULES_PER_SCOPE} rules per scope` }] },
      );
    const { rules, errors } = normalizeRules(inputs, target.kind === 'global' ? { kind: 'global' } : { kind: 'prefix', labelPrefix: '' });
    if (errors.length > 0) throw new AppError('validation_failed', `fault rule ${errors[0]!.path}: ${errors[0]!.message}`, { errors });
    const key = scopeKey(target);
    await this.repo.deleteOrphans();
    const others = await this.repo.countOthers(p.teamId, key);
    if (others + rules.length > MAX_RULES_PER_TEAM)
      throw new AppError(
        'conflict',
        `the team holds ${others} fault rules in other scopes; with these ${rules.length} it would pass the limit of ${MAX_RULES_PER_TEAM} per team. Delete rule sets you no longer need (DELETE /v1/faults?labelPrefix=…, DELETE /v1/inboxes/:id/faults)`,
      );
    const now = this.now();
    const rows: FaultRuleRow[] = rules.map((r, i) => ({
      id: newId('flt'),
      team_id: p.teamId,
      scope: key.scope,
      label_prefix: key.scope === 'prefix' ? key.labelPrefix : null,
      inbox_id: key.scope === 'inbox' ? key.inboxId : null,
      position: i,
      rule_json: JSON.stringify(r),
      created_at: now,
      created_by: p.keyId,
    }));
    await this.repo.replace(p.teamId, key, rows);
    await this.reload();
    const address = target.kind === 'inbox' ? target.inbox.address : null;
    return rows.map((r) => this.view({ ...r, address, inbox_label: null }));
  }

  async listRules(p: Principal, target?: FaultTarget): Promise<FaultRuleView[]> {
    const rows = await this.repo.ofTeam(p.teamId);
    const prefix = p.scope.labelPrefix;
    return rows
      .filter((r) => {
        if (target) {
          const k = scopeKey(target);
          if (r.scope !== k.scope) return false;
          if (k.scope === 'prefix' && r.label_prefix !== k.labelPrefix) return false;
          if (k.scope === 'inbox' && r.inbox_id !== k.inboxId) return false;
        }
        if (prefix === null || r.scope === 'global') return true;
        if (r.scope === 'prefix') return r.label_prefix!.startsWith(prefix);
        return r.inbox_label?.startsWith(prefix) === true;
      })
      .map((r) => this.view(r));
  }

  async clearRules(p: Principal, target: FaultTarget): Promise<number> {
    this.authorize(p, target);
    const n = await this.repo.clear(p.teamId, scopeKey(target));
    await this.reload();
    return n;
  }

  /** The inbox's faults and arrivals, newest `limit` of them since `since`, oldest first. */
  async timeline(inboxId: string, since: number, limit: number): Promise<{ items: TimelineItem[]; truncated: boolean }> {
    await this.flush();
    const [faults, messages] = await Promise.all([this.repo.ofInbox(inboxId, since, limit), this.recentMessages(inboxId, since, limit)]);
    const items: Array<TimelineItem & { ms: number }> = [
      ...faults.map((f) => ({ type: 'fault' as const, ms: Number(f.at), at: iso(f.at), fault: eventView(f) })),
      ...messages.map((m) => ({
        type: 'message' as const,
        ms: Number(m.received_at),
        at: iso(m.received_at),
        message: { messageId: m.id, subject: m.subject, from: m.from_address, recipient: m.rcpt },
      })),
    ];
    items.sort((a, b) => b.ms - a.ms || (a.type === b.type ? 0 : a.type === 'message' ? -1 : 1));
    const page = items.slice(0, limit).reverse();
    return {
      items: page.map(({ ms: _ms, ...i }) => i),
      truncated: items.length > limit || faults.length === limit || messages.length === limit,
    };
  }

  /** The team's fault log (also faults of no inbox, for an unscoped key), newest first. */
  async events(p: Principal, since: number, limit: number): Promise<FaultEventView[]> {
    await this.flush();
    return (await this.repo.ofTeamEvents(p.teamId, p.scope.labelPrefix, since, limit)).map(eventView);
  }

  private authorize(p: Principal, target: FaultTarget): void {
    if (target.kind === 'global' && !isFullAdmin(p))
      throw new AppError(
        'forbidden',
        p.scope.labelPrefix === null
          ? 'global fault rules need an unscoped admin key; set rules for a label prefix (labelPrefix) or an inbox instead'
          : `global fault rules need an unscoped admin key; this key may set rules with a labelPrefix starting with "${p.scope.labelPrefix}"`,
      );
    if (target.kind === 'prefix' && p.scope.labelPrefix !== null && !target.labelPrefix.startsWith(p.scope.labelPrefix))
      throw new AppError('forbidden', `labelPrefix "${target.labelPrefix}" is outside this key's label prefix "${p.scope.labelPrefix}"`);
  }

  private view(r: FaultRuleWithInbox): FaultRuleView {
    const rule = JSON.parse(r.rule_json) as FaultRule;
    const scope: FaultRuleView['scope'] =
      r.scope === 'global'
        ? { kind: 'global' }
        : r.scope === 'prefix'
          ? { kind: 'prefix', labelPrefix: r.label_prefix! }
          : { kind: 'inbox', inboxId: r.inbox_id!, address: r.address };
    return { ruleId: r.id, scope, ...rule, fired: this.fires.get(r.id) ?? 0, createdAt: iso(r.created_at) };
  }

  // ---- the snapshot ----

  /**
   * On a shared database: re-read the rules if another instance changed them. Each call waits for a read of the
   * version row sent after it was made (a read started before a change committed elsewhere must not answer for a
   * connection that came after it); calls made while a read is in flight share the next one, and the reloads they
   * may cause are shared.
   */
  async freshen(): Promise<void> {
    const v = await this.versionAfterNow();
    while (this.loadedVersion < v) {
      this.refreshing ??= this.reload().finally(() => {
        this.refreshing = null;
      });
      await this.refreshing;
    }
  }

  /**
   * The version row, read by a query sent after this call: one query serves every call made before it was sent, so
   * connections that arrive together (a burst of mail, one connection per message) cost one round trip, not one each.
   */
  private versionAfterNow(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.versionWaiters.push({ resolve, reject });
      if (!this.versionReading) this.readVersion();
    });
  }

  private readVersion(): void {
    const waiters = this.versionWaiters.splice(0);
    this.versionReading = true;
    this.repo
      .version()
      .then(
        (v) => {
          for (const w of waiters) w.resolve(v);
        },
        (e: unknown) => {
          for (const w of waiters) w.reject(e);
        },
      )
      .finally(() => {
        this.versionReading = false;
        if (this.versionWaiters.length > 0) this.readVersion();
      });
  }

  private async reload(): Promise<void> {
    const version = await this.repo.version();
    const rows = await this.repo.all();
    const byStage = new Map<FaultStage, Compiled[]>();
    for (const s of STAGES) byStage.set(s, []);
    const order = { inbox: 0, prefix: 1, global: 2 };
    // Two reloads may overlap (a change here, a refresh for another instance's): the older never replaces the newer.
    if (version < this.loadedVersion) return;
    const compiled = rows.map((r): Compiled => {
      const rule = JSON.parse(r.rule_json) as FaultRule;
      return {
        id: r.id,
        teamId: r.team_id,
        scope: r.scope,
        labelPrefix: r.label_prefix,
        inboxId: r.inbox_id,
        rule,
        recipient: rule.match.recipient ? compileGlob(rule.match.recipient) : null,
        sender: rule.match.sender ? compileGlob(rule.match.sender) : null,
        label: rule.match.label ? compileGlob(rule.match.label) : null,
      };
    });
    compiled.sort((a, b) => order[a.scope] - order[b.scope]);
    for (const c of compiled) byStage.get(c.rule.stage)!.push(c);
    this.byStage = byStage;
    this.recipientRules = compiled.some((c) => !EARLY_STAGES.includes(c.rule.stage));
    this.loadedVersion = version;
    const live = new Set(compiled.map((c) => c.id));
    for (const m of [this.counts, this.fires]) for (const k of m.keys()) if (!live.has(k)) m.delete(k);
    // Token buckets and greylist entries are keyed `<rule id>|…`: those of rules that are gone go too.
    for (const m of [this.buckets, this.greylist])
      for (const k of m.keys()) {
        const id = k.slice(0, k.indexOf('|'));
        if (id !== 'shortcut' && !live.has(id)) m.delete(k);
      }
  }

  // ---- the SMTP hook ----

  /** The session ended: its per-session state goes. */
  closed(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** What to do at this stage; null (at once, no promise) when no rule and no shortcut can apply. */
  decide(stage: FaultStage, s: FaultSession): FaultOutcome | null | Promise<FaultOutcome | null> {
    if (stage === 'connect' && this.shared) return this.freshen().then(() => this.decideNow(stage, s));
    if (stage === 'rcpt') {
      const rcpt = s.recipient!;
      const shortcut = this.shortcuts ? shortcutOf(rcpt) : null;
      if (!this.recipientRules && !shortcut) return null;
      return this.lookup(rcpt).then((inbox) => {
        this.state(s).inboxes.set(rcpt, inbox);
        return this.decideNow(stage, s, shortcut);
      });
    }
    if (this.byStage.get(stage)!.length === 0 && !this.sessions.get(s.id)?.pending.length) return null;
    return this.decideNow(stage, s);
  }

  private state(s: FaultSession): SessionState {
    let st = this.sessions.get(s.id);
    if (!st) this.sessions.set(s.id, (st = { inboxes: new Map(), pending: [], passed: new Set(), tx: s.tx }));
    if (st.tx !== s.tx) {
      // A new transaction (MAIL FROM): what the previous one's recipients were is no longer needed.
      st.tx = s.tx;
      st.passed.clear();
      st.pending = [];
      st.inboxes.clear();
    }
    return st;
  }

  private async lookup(address: string): Promise<FaultInbox | null> {
    const now = this.now();
    const hit = this.inboxCache.get(address);
    if (hit && now - hit.at < INBOX_CACHE_MS) return hit.v;
    let inbox = (await this.inboxByAddress(address)) ?? null;
    const plus = address.indexOf('+');
    const at = address.lastIndexOf('@');
    if (!inbox && plus > 0 && plus < at) inbox = (await this.inboxByAddress(address.slice(0, plus) + address.slice(at))) ?? null;
    if (this.inboxCache.size >= MAX_CACHED) this.inboxCache.clear();
    this.inboxCache.set(address, { v: inbox, at: now });
    return inbox;
  }

  private decideNow(stage: FaultStage, s: FaultSession, shortcut?: ReturnType<typeof shortcutOf>): FaultOutcome | null {
    const rules = this.byStage.get(stage)!;
    const st = stage === 'rcpt' || stage === 'data' || stage === 'end-of-data' ? this.state(s) : null;
    let out: FaultOutcome | null = null;
    const budget: GlobBudget = { steps: MATCH_BUDGET_STEPS, exhausted: false };
    const fire = (f: Fired, effect: Partial<FaultOutcome>): boolean => {
      out ??= { delayMs: 0, reply: null, disconnect: false, throttleBytesPerSecond: null };
      if (effect.delayMs) out.delayMs = Math.min(MAX_DELAY_MS, out.delayMs + effect.delayMs);
      if (effect.throttleBytesPerSecond)
        out.throttleBytesPerSecond = Math.min(out.throttleBytesPerSecond ?? Number.POSITIVE_INFINITY, effect.throttleBytesPerSecond);
      if (effect.reply) out.reply = effect.reply;
      if (effect.disconnect) out.disconnect = true;
      this.record(f);
      return Boolean(effect.reply || effect.disconnect);
    };
    for (const r of rules) {
      const targets = this.targets(r, stage, s, st, budget);
      if (!targets) continue;
      const effect = this.apply(r.id, r.rule.action, r.rule.mode, stage, s, st, r.rule.name ?? r.id);
      if (!effect) continue;
      let terminal = false;
      for (const t of targets)
        terminal =
          fire(this.fired_(r.teamId, t, r.id, 'rule', stage, r.rule.action, effect, s, t?.rcpt ?? s.recipient ?? null), effect) || terminal;
      if (terminal) return out;
    }
    if (budget.exhausted) this.budgetWarning(stage);
    // Shortcuts in the local part: at rcpt for this recipient, at data / end-of-data for those accepted before.
    const shortcuts: Array<{ action: FaultAction; rcpt: string }> = [];
    if (shortcut && stage === 'rcpt') {
      if (shortcut.stage === 'rcpt') shortcuts.push({ action: shortcut.action, rcpt: s.recipient! });
      else st!.pending.push({ stage: shortcut.stage, action: shortcut.action, rcpt: s.recipient! });
    }
    if (st && stage !== 'rcpt') for (const p of st.pending) if (p.stage === stage) shortcuts.push(p);
    for (const sc of shortcuts) {
      const effect = this.apply(`shortcut`, sc.action, { type: 'always' }, stage, { ...s, recipient: sc.rcpt }, st, `shortcut ${sc.rcpt}`);
      if (!effect) continue;
      const inbox = st?.inboxes.get(sc.rcpt) ?? null;
      const t = { rcpt: sc.rcpt, inbox };
      if (fire(this.fired_(inbox?.teamId ?? null, t, null, 'shortcut', stage, sc.action, effect, s, sc.rcpt), effect)) return out;
    }
    return out;
  }

  /**
   * Which recipients of the session the rule matches: null when none (or the session does not match); [null] for a
   * rule of an early stage (no recipient yet).
   */
  private targets(
    r: Compiled,
    stage: FaultStage,
    s: FaultSession,
    st: SessionState | null,
    budget: GlobBudget,
  ): Array<{ rcpt: string; inbox: FaultInbox | null } | null> | null {
    if (EARLY_STAGES.includes(stage)) {
      if (r.scope !== 'global') return null;
      return r.sender && !r.sender(s.sender ?? '', budget) ? null : [null];
    }
    // The cheap checks (scope, team) first: another team's rules cost no glob work on this team's mail.
    const rcpts = stage === 'rcpt' ? [s.recipient!] : s.recipients;
    const out: Array<{ rcpt: string; inbox: FaultInbox | null }> = [];
    for (const rcpt of rcpts) {
      const inbox = st!.inboxes.get(rcpt) ?? null;
      if (!this.matchesRecipient(r, rcpt, inbox, budget)) continue;
      out.push({ rcpt, inbox });
    }
    if (out.length === 0) return null;
    return r.sender && !r.sender(s.sender ?? '', budget) ? null : out;
  }

  private matchesRecipient(r: Compiled, rcpt: string, inbox: FaultInbox | null, budget: GlobBudget): boolean {
    if (r.scope === 'inbox' && inbox?.id !== r.inboxId) return false;
    if (r.scope === 'prefix' && !(inbox && inbox.teamId === r.teamId && inbox.label?.startsWith(r.labelPrefix!))) return false;
    if (r.scope === 'global' && inbox && inbox.teamId !== r.teamId) return false;
    if (r.recipient && !r.recipient(rcpt, budget)) return false;
    if (r.label && !(inbox?.label && r.label(inbox.label, budget))) return false;
    return true;
  }

  private budgetWarning(stage: FaultStage): void {
    const now = this.now();
    if (now - this.lastBudgetWarning < 60_000) return;
    this.lastBudgetWarning = now;
    this.log.warn('fault rules: glob matching for one SMTP command ran out of its budget; the remaining rules did not fire', {
      stage,
      steps: MATCH_BUDGET_STEPS,
    });
  }

  /** The effect of an action when its mode lets it fire, else null. Counters run synchronously: no lost updates. */
  private apply(
    id: string,
    a: FaultAction,
    mode: FaultRule['mode'],
    stage: FaultStage,
    s: FaultSession,
    st: SessionState | null,
    name: string,
  ): Partial<FaultOutcome> | null {
    const now = this.now();
    if (a.type === 'rate-limit') {
      if (a.per === 'client' && st?.passed.has(id)) return null;
      const key = `${id}|${a.per === 'client' ? s.client : s.recipient}`;
      let b = this.buckets.get(key);
      if (!b) {
        if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
        b = { tokens: a.limit, at: now };
      } else this.buckets.delete(key);
      this.buckets.set(key, b);
      b.tokens = Math.min(a.limit, b.tokens + ((now - b.at) / (a.windowSeconds * 1000)) * a.limit);
      b.at = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        if (a.per === 'client') st?.passed.add(id);
        return null;
      }
      const wait = Math.ceil(((1 - b.tokens) / a.limit) * a.windowSeconds);
      const text = a.text ?? `rate limit of ${a.limit} messages per ${a.windowSeconds} s reached; try again in ${wait} s`;
      return { reply: { code: a.code, message: replyOf(a.code, a.code === 452 ? '4.5.3' : '4.7.0', text, '') } };
    }
    if (a.type === 'greylist') {
      const key = `${id}|${(s.sender ?? '').toLowerCase()}|${s.recipient}|${s.client}`;
      const first = this.greylist.get(key);
      if (first === undefined) {
        if (this.greylist.size >= MAX_GREYLIST) this.greylist.delete(this.greylist.keys().next().value!);
        this.greylist.set(key, now);
      } else if (now - first >= a.retryAfterSeconds * 1000) return null;
      const left = Math.max(0, Math.ceil((a.retryAfterSeconds * 1000 - (now - (first ?? now))) / 1000));
      return { reply: { code: 451, message: `4.7.1 greylisted: try again in ${left} s` } };
    }
    const k = (this.counts.get(id) ?? 0) + 1;
    if (id !== 'shortcut') this.counts.set(id, k);
    if (!modeFires(mode, k)) return null;
    const why = `fault injected by inboxd (${name}, stage ${stage})`;
    switch (a.type) {
      case 'reply':
        return { reply: { code: a.code, message: replyOf(a.code, a.enhanced, a.text, why) } };
      case 'mailbox-full':
        return a.permanent
          ? { reply: { code: 552, message: '5.2.2 mailbox full' } }
          : { reply: { code: 452, message: '4.2.2 mailbox full; try again later' } };
      case 'disconnect':
        return { disconnect: true };
      case 'delay':
        return { delayMs: a.ms };
      case 'throttle':
        return { throttleBytesPerSecond: a.bytesPerSecond };
    }
  }

  private fired_(
    teamId: string | null,
    t: { rcpt: string; inbox: FaultInbox | null } | null,
    ruleId: string | null,
    source: 'rule' | 'shortcut',
    stage: FaultStage,
    a: FaultAction,
    effect: Partial<FaultOutcome>,
    s: FaultSession,
    rcpt: string | null,
  ): Fired {
    return {
      team_id: t?.inbox?.teamId ?? teamId,
      inbox_id: t?.inbox?.id ?? null,
      label: t?.inbox?.label ?? null,
      rule_id: ruleId,
      source,
      stage,
      action: a.type,
      code: effect.reply?.code ?? null,
      reply: effect.reply?.message ?? null,
      sender: s.sender,
      recipient: EARLY_STAGES.includes(stage) ? null : rcpt,
      client: s.client,
    };
  }

  // ---- the record of fired faults ----

  private record(f: Fired): void {
    const metric = `${f.stage} ${f.action}`;
    this.fired.set(metric, (this.fired.get(metric) ?? 0) + 1);
    if (f.rule_id) this.fires.set(f.rule_id, (this.fires.get(f.rule_id) ?? 0) + 1);
    if (this.queue.length >= MAX_QUEUED_EVENTS) {
      if (this.dropped++ % 1000 === 0) this.log.warn('fault events not recorded: the queue is full', { dropped: this.dropped });
      return;
    }
    this.queue.push({ ...f, id: newId('fev'), at: this.now() });
    if (!this.flushing) this.flushing = new Promise<void>((r) => setImmediate(r)).then(() => this.drain());
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, 500);
        await this.repo
          .insertEvents(batch)
          .catch((e: Error) => this.log.warn('could not record fault events', { err: e, n: batch.length }));
      }
    } finally {
      this.flushing = null;
    }
  }

  /** Deletes fault events older than a day (a periodic job); answers how many. */
  async prune(): Promise<number> {
    return this.repo.prune(this.now() - EVENT_RETENTION_MS);
  }

  /** Waits until the faults fired so far are stored. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}

function scopeKey(t: FaultTarget): ScopeKey {
  return t.kind === 'global'
    ? { scope: 'global' }
    : t.kind === 'prefix'
      ? { scope: 'prefix', labelPrefix: t.labelPrefix }
      : { scope: 'inbox', inboxId: t.inbox.id };
}

const iso = (ms: number) => new Date(Number(ms)).toISOString();

function eventView(f: FaultEventRow): FaultEventView {
  return {
    eventId: f.id,
    inboxId: f.inbox_id,
    ruleId: f.rule_id,
    source: f.source,
    stage: f.stage,
    action: f.action,
    code: f.code === null ? null : Number(f.code),
    reply: f.reply,
    sender: f.sender,
    recipient: f.recipient,
    client: f.client,
    at: iso(f.at),
  };
}
