// Label rules match arriving mail in process, without the index: a rule's query (the search language, parsed by
// src/search/query.ts) is evaluated against the message's search document (the same words the index gets, made in
// the analysis worker), once per message, under an operation budget. Text terms match whole words (a phrase: its
// words in a row), as the index does; `label:` matches the inbox's label or a label the message already carries.

import { lexemes } from '../search/pg-text.ts';
import { type Atom, type ParsedQuery, parseQuery, queryError } from '../search/query.ts';
import type { SearchDoc } from '../search/text.ts';
import { segmentCjkQuery } from '../search/text.ts';

/** Word comparisons one message's rule evaluation may spend (all rules together); past it the rest are skipped. */
export const MATCH_BUDGET = 2_000_000;

type Fields = 'subject' | 'sender' | 'rcpts' | 'body' | 'files';
const ANY: Fields[] = ['subject', 'sender', 'rcpts', 'body', 'files'];
const FIELD_OF: Record<string, Fields[]> = { any: ANY, from: ['sender'], to: ['rcpts'], subject: ['subject'] };

type CompiledTerm =
  | { kind: 'words'; fields: Fields[]; words: string[]; negated: boolean }
  | { kind: 'label'; label: string; negated: boolean }
  | { kind: 'has'; flag: string; negated: boolean };

export interface CompiledRule {
  groups: CompiledTerm[][];
}

/** Parses and checks a rule's query (400 naming the problem); before:/after: are refused (they would never change). */
export function compileRule(query: string): CompiledRule {
  const parsed: ParsedQuery = parseQuery(query, Date.now());
  const groups = parsed.groups.map((g) => g.map((t) => term(t.atom, t.negated, t.pos)));
  return { groups };
}

function term(a: Atom, negated: boolean, pos: number): CompiledTerm {
  switch (a.kind) {
    case 'text':
      return { kind: 'words', fields: FIELD_OF[a.field] ?? ANY, words: lexemes(segmentCjkQuery(a.text)), negated };
    case 'label':
      return { kind: 'label', label: a.label.trim().toLowerCase(), negated };
    case 'has':
      return { kind: 'has', flag: a.what === 'attachment' ? 'xatt' : a.what === 'code' ? 'xcode' : 'xlink', negated };
    default:
      throw queryError('before: and after: cannot be used in a label rule: it matches each message as it arrives', pos);
  }
}

/** One arriving message, as rules see it: its search document's words (made on first use), its labels so far. */
export class MessageFacts {
  private readonly doc: SearchDoc;
  private readonly index = new Map<Fields, Map<string, number[]>>();
  readonly inboxLabel: string | null;
  readonly labels: ReadonlySet<string>;
  private readonly flags: Set<string>;
  /** Comparisons left (MATCH_BUDGET); shared by every rule evaluated for this message. */
  budget = MATCH_BUDGET;

  constructor(doc: SearchDoc, inboxLabel: string | null, labels: ReadonlySet<string>) {
    this.doc = doc;
    this.inboxLabel = inboxLabel?.toLowerCase() ?? null;
    this.labels = labels;
    this.flags = new Set(doc.flags.split(' ').filter(Boolean));
  }

  hasFlag(flag: string): boolean {
    return this.flags.has(flag);
  }

  /** word → positions in the field, built once per field. */
  private positions(field: Fields): Map<string, number[]> {
    let m = this.index.get(field);
    if (!m) {
      m = new Map();
      const words = lexemes(this.doc[field]);
      this.budget -= words.length;
      for (let i = 0; i < words.length; i++) {
        const w = words[i]!;
        const list = m.get(w);
        if (list) list.push(i);
        else m.set(w, [i]);
      }
      this.index.set(field, m);
    }
    return m;
  }

  /** The words in a row in one of the fields. */
  hasWords(fields: Fields[], words: string[]): boolean {
    if (words.length === 0) return false;
    for (const f of fields) {
      const m = this.positions(f);
      const first = m.get(words[0]!);
      if (!first) continue;
      if (words.length === 1) return true;
      const rest = words.slice(1).map((w) => m.get(w));
      if (rest.some((r) => r === undefined)) continue;
      this.budget -= rest.reduce((n, r) => n + r!.length, 0);
      const sets = rest.map((r) => new Set(r));
      for (const p of first) {
        this.budget -= words.length;
        if (this.budget < 0) return false;
        if (sets.every((s, i) => s.has(p + i + 1))) return true;
      }
    }
    return false;
  }
}

function holds(t: CompiledTerm, f: MessageFacts): boolean {
  let v: boolean;
  if (t.kind === 'words') v = f.hasWords(t.fields, t.words);
  else if (t.kind === 'label') v = f.inboxLabel === t.label || f.labels.has(t.label);
  else v = f.hasFlag(t.flag);
  return t.negated ? !v : v;
}

/** Does the rule match? Null when the budget ran out before it could say. */
export function matches(rule: CompiledRule, f: MessageFacts): boolean | null {
  for (const group of rule.groups) {
    if (!group.some((t) => holds(t, f))) return f.budget < 0 ? null : false;
  }
  return f.budget < 0 ? null : true;
}
