// Label rules (README "Labels by rule"): saved queries in the search language that add labels to arriving mail.
// CRUD per team, scoped like the team's other objects (a key with a label prefix sees and changes only the rules made
// under its prefix, and those apply only to inboxes inside it); at most --max-label-rules per team. Every team's
// compiled rules are held in memory (read at start, after each change here, and every 2 s when several instances
// share the database), so ingest evaluates them per message without a query (RuleLabeler).
import { labelInScope, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import type { RuleLabeler } from '../ingest/ingest.ts';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../log.ts';
import { normalizeLabel } from '../mail/labels.ts';
import type { SearchDoc } from '../search/text.ts';
import { type CompiledRule, compileRule, MessageFacts, matches } from './match.ts';
import type { LabelRuleRepo, LabelRuleRow } from './repo.ts';

/** Labels one rule adds. */
export const MAX_RULE_LABELS = 10;
/** Time all rules of a team may take on one message; past it the remaining rules are skipped (logged). */
export const RULES_TIME_BUDGET_MS = 50;
/** How often an instance re-reads the rules when the database is shared (changes made on another instance). */
export const REFRESH_MS = 2_000;

interface Cached {
  id: string;
  labelPrefix: string | null;
  rule: CompiledRule;
  labels: string[];
}

export interface RuleInput {
  name?: string | undefined;
  query: string;
  labels: string[];
}

export class LabelRuleService implements RuleLabeler {
  private readonly repo: LabelRuleRepo;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly maxRules: number;
  private readonly shared: boolean;
  private cache = new Map<string, Cached[]>();
  private timer: NodeJS.Timeout | null = null;
  private lastCutLog = 0;

  constructor(d: { repo: LabelRuleRepo; log: Logger; now: () => number; maxRules: number; shared: boolean }) {
    this.repo = d.repo;
    this.log = d.log;
    this.now = d.now;
    this.maxRules = d.maxRules;
    this.shared = d.shared;
  }

  async start(): Promise<void> {
    await this.reload();
    if (this.shared) {
      this.timer = setInterval(() => {
        this.reload().catch((e: Error) => this.log.warn('label rules could not be re-read; keeping the last ones', { err: e }));
      }, REFRESH_MS);
      this.timer.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async reload(): Promise<void> {
    const next = new Map<string, Cached[]>();
    for (const r of await this.repo.all()) {
      const c = this.compiled(r);
      if (!c) continue;
      const list = next.get(r.team_id);
      if (list) list.push(c);
      else next.set(r.team_id, [c]);
    }
    this.cache = next;
  }

  private async reloadTeam(teamId: string): Promise<void> {
    const list = (await this.repo.ofTeam(teamId)).flatMap((r) => this.compiled(r) ?? []);
    if (list.length > 0) this.cache.set(teamId, list);
    else this.cache.delete(teamId);
  }

  private compiled(r: LabelRuleRow): Cached | null {
    try {
      return { id: r.id, labelPrefix: r.label_prefix, rule: compileRule(r.query), labels: JSON.parse(r.labels_json) as string[] };
    } catch (e) {
      this.log.warn('a stored label rule does not compile any more; it is skipped', { ruleId: r.id, err: e as Error });
      return null;
    }
  }

  labelsFor(m: {
    teamId: string;
    inboxLabel: string | null;
    doc: SearchDoc;
    labels: ReadonlySet<string>;
  }): Array<{ label: string; ruleId: string }> {
    const rules = this.cache.get(m.teamId);
    if (!rules) return [];
    const facts = new MessageFacts(m.doc, m.inboxLabel, m.labels);
    const out: Array<{ label: string; ruleId: string }> = [];
    const t0 = performance.now();
    for (const [i, r] of rules.entries()) {
      if (r.labelPrefix !== null && !labelInScope({ labelPrefix: r.labelPrefix, readOnly: false }, m.inboxLabel)) continue;
      const hit = matches(r.rule, facts);
      if (hit === null || performance.now() - t0 > RULES_TIME_BUDGET_MS) {
        this.cut(m.teamId, rules.length - i, hit === null ? 'comparisons' : 'time');
        break;
      }
      if (hit) for (const label of r.labels) out.push({ label, ruleId: r.id });
    }
    return out;
  }

  private cut(teamId: string, skipped: number, budget: string): void {
    const now = this.now();
    if (now - this.lastCutLog < 10_000) return;
    this.lastCutLog = now;
    this.log.warn('label rules stopped at their budget for a message; the remaining rules were not applied', { teamId, skipped, budget });
  }

  async list(p: Principal): Promise<LabelRuleRow[]> {
    return (await this.repo.ofTeam(p.teamId)).filter((r) => this.maySee(p, r));
  }

  async create(p: Principal, input: RuleInput): Promise<LabelRuleRow> {
    const { query, labels } = this.checked(input);
    const now = this.now();
    const row: LabelRuleRow = {
      id: newId('lbr'),
      team_id: p.teamId,
      label_prefix: p.scope.labelPrefix,
      name: input.name?.trim() || query.slice(0, 200),
      query,
      labels_json: JSON.stringify(labels),
      created_at: now,
      updated_at: now,
    };
    if (!(await this.repo.insertCapped(row, this.maxRules)))
      throw new AppError(
        'conflict',
        `this team has ${this.maxRules} label rules, the most it may have (--max-label-rules); delete one (DELETE /v1/label-rules/:id) first`,
      );
    await this.reloadTeam(p.teamId);
    return row;
  }

  async update(p: Principal, id: string, input: Partial<RuleInput>): Promise<LabelRuleRow> {
    const old = await this.get(p, id);
    const { query, labels } = this.checked({
      query: input.query ?? old.query,
      labels: input.labels ?? (JSON.parse(old.labels_json) as string[]),
    });
    const set = {
      name: input.name?.trim() || (input.query !== undefined && old.name === old.query.slice(0, 200) ? query.slice(0, 200) : old.name),
      query,
      labels_json: JSON.stringify(labels),
      updated_at: this.now(),
    };
    await this.repo.update(p.teamId, id, set);
    await this.reloadTeam(p.teamId);
    return { ...old, ...set };
  }

  async delete(p: Principal, id: string): Promise<void> {
    await this.get(p, id);
    await this.repo.delete(p.teamId, id);
    await this.reloadTeam(p.teamId);
  }

  async get(p: Principal, id: string): Promise<LabelRuleRow> {
    const r = await this.repo.byId(p.teamId, id);
    if (!r || !this.maySee(p, r)) throw new AppError('not_found', `no label rule ${id} (GET /v1/label-rules lists yours)`);
    return r;
  }

  /** A key with a label prefix sees the rules made under that prefix (or a narrower one): the ones that apply only inside it. */
  private maySee(p: Principal, r: LabelRuleRow): boolean {
    const prefix = p.scope.labelPrefix;
    return prefix === null || r.label_prefix?.startsWith(prefix) === true;
  }

  private checked(input: RuleInput): { query: string; labels: string[] } {
    const query = input.query.trim();
    try {
      compileRule(query);
    } catch (e) {
      // The parser's message, said of this field (it names `q`, the search parameter).
      if (e instanceof AppError) {
        const message = e.message.replace(/^q: /, '');
        throw new AppError('validation_failed', `query: ${message}`, { errors: [{ path: 'query', message }] });
      }
      throw e;
    }
    const labels: string[] = [];
    for (const [i, raw] of input.labels.entries()) {
      const l = normalizeLabel(raw);
      if (!l)
        throw new AppError('validation_failed', `labels[${i}]: a label is 1-64 characters (no control characters)`, {
          errors: [{ path: `labels.${i}`, message: 'a label is 1-64 characters (no control characters)' }],
        });
      if (!labels.includes(l)) labels.push(l);
    }
    if (labels.length === 0 || labels.length > MAX_RULE_LABELS)
      throw new AppError('validation_failed', `labels: give 1 to ${MAX_RULE_LABELS} labels to add`, {
        errors: [{ path: 'labels', message: `1 to ${MAX_RULE_LABELS} labels` }],
      });
    return { query, labels };
  }
}
