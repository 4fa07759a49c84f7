// Where each value of an extraction came from (`sources` of the answer, CONTRACT §12 as extended by issue 27).
// Spans are offsets into the answer's `sourceText`: the message's subject line, a newline, then the visible body
// lines the engine read (HTML rendered to text, or the text/plain part; quoted replies and a forward header dropped),
// joined by newlines — exactly `[view.subject, ...view.lines].join('\n')`. `sourceText.slice(span[0], span[1])`
// equals the source's `text`.
//
// An extractor says where it read a value with one call: `p.record(pointer, where)`, `where` being the whole view
// line it read (the subject counts as a line) or a structured origin ({from: 'jsonld', path: '$.identifier'}).

import { datesIn } from './dates.ts';
import { parseNumber } from './money.ts';
import type { MessageView } from './view.ts';

export type SourceKind = 'text' | 'jsonld' | 'xml' | 'header' | 'link' | 'model';

export interface Source {
  from: SourceKind;
  /** [start, end) in `sourceText` (from: "text" only). */
  span?: [number, number];
  /** The excerpt: `sourceText.slice(span[0], span[1])`, or the anchor text of a link. */
  text?: string;
  /** JSONPath in the JSON-LD block, element path in the XML attachment, header name, or link URL. */
  path?: string;
}
export type Sources = Record<string, Source>;

/** A structured origin, or the view line (full line, as in `view.lines` or the subject) a value was read from. */
export type Where = { line: string } | { from: Exclude<SourceKind, 'text'>; path?: string; text?: string };

/** Lines longer than this are cut to a window around the value. */
const MAX_EXCERPT = 240;

/** One JSON Pointer reference token (RFC 6901): "~" and "/" escaped. */
export const pointerToken = (prop: string): string => prop.replace(/~/g, '~0').replace(/\//g, '~1');

export function sourceTextOf(v: MessageView): string {
  return [v.subject, ...v.lines].join('\n');
}

/** The source text up to the end of the last span: every span reads back, and the unread tail (footers) is not sent. */
export function sourceTextFor(text: string, sources: Sources): string {
  let end = 0;
  for (const s of Object.values(sources)) if (s.span && s.span[1] > end) end = s.span[1];
  return text.slice(0, end);
}

export class Provenance {
  readonly text: string;
  readonly sources: Sources = {};
  private readonly starts = new Map<string, number>();

  constructor(v: MessageView) {
    this.text = sourceTextOf(v);
    let at = 0;
    for (const l of [v.subject, ...v.lines]) {
      if (!this.starts.has(l)) this.starts.set(l, at);
      at += l.length + 1;
    }
  }

  /** Records where the value at `pointer` (a JSON Pointer, "/lineItems/0/amount") was read; null/undefined: nowhere. */
  record(pointer: string, where: Where | null | undefined, value?: unknown): void {
    if (!where) return;
    if (!('line' in where)) {
      this.sources[pointer] = { ...where };
      return;
    }
    const start = this.starts.get(where.line);
    if (start === undefined) return;
    let s = start;
    let e = start + where.line.length;
    if (e - s > MAX_EXCERPT) {
      const hit = value === undefined ? null : findIn(where.line, value);
      const mid = hit ? Math.floor((hit[0] + hit[1]) / 2) : 0;
      s = start + Math.max(0, mid - MAX_EXCERPT / 2);
      e = Math.min(start + where.line.length, s + MAX_EXCERPT);
    }
    this.sources[pointer] = { from: 'text', span: [s, e], text: this.text.slice(s, e) };
  }

  /** Copies the sources recorded under `from` (and below it) to `to`: a custom schema's property reuses a preset's. */
  copy(other: Provenance, from: string, to: string): void {
    for (const [k, src] of Object.entries(other.sources)) {
      if (k === from || k.startsWith(`${from}/`)) this.sources[to + k.slice(from.length)] = src;
    }
  }
}

// ---- finding a value in text, in any common formatting (model answers, and excerpts of long lines) ----

export interface Token {
  start: number;
  end: number;
}

/**
 * Numbers in `text` with every reading of their separators ("1.234" is 1234 and 1.234; "1,5" is 1.5), and the
 * plain runs of digits inside a grouped one ("2 120.00" is 2120 or a quantity 2 and a price 120.00).
 */
export function numbersIn(text: string, limit = 20_000): Array<Token & { values: number[] }> {
  const out: Array<Token & { values: number[] }> = [];
  // 1,234.56 · 1 234,56 · 1'234.56 · 12,34,575.00 (Indian lakh)
  const grouped = /(?<![\d.,])(?:\d{1,2}(?:,\d{2}){1,6},\d{3}|\d{1,3}(?:[ ,.\u00a0\u202f'’]\d{3}){1,6})(?:[.,]\d+)?(?!\d)/g;
  const plainRe = /(?<!\d)\d+(?:[.,]\d+)?(?!\d)/g;
  for (const re of [grouped, plainRe]) {
    for (let m = re.exec(text); m !== null && out.length < limit; m = re.exec(text)) {
      const raw = m[0];
      const values = new Set<number>();
      const p = parseNumber(raw);
      if (p !== null) values.add(p);
      const plain = raw.replace(/[\s\u00a0\u202f'’]/g, '');
      if (/^\d+[.,]\d+$/.test(plain)) values.add(Number(plain.replace(',', '.')));
      if (/^\d{1,3}(?:[.,]\d{3})+$/.test(plain)) values.add(Number(plain.replace(/[.,]/g, '')));
      if (/^\d+$/.test(plain)) values.add(Number(plain));
      out.push({ start: m.index, end: m.index + raw.length, values: [...values].filter(Number.isFinite) });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Widens a span to its whole line (a window of 240 characters around it on a long line): the label comes with it. */
export function lineSpan(text: string, at: [number, number]): [number, number] {
  let s = text.lastIndexOf('\n', at[0] - 1) + 1;
  let e = text.indexOf('\n', at[1]);
  if (e < 0) e = text.length;
  if (e - s > MAX_EXCERPT) {
    const mid = Math.floor((at[0] + at[1]) / 2);
    s = Math.max(s, mid - MAX_EXCERPT / 2);
    e = Math.min(e, s + MAX_EXCERPT);
  }
  return [s, e];
}

export const round2 = (n: number): number => Math.round(n * 100) / 100;

/** [start, end) of the first rendering of `value` in `text`: a date in any written form, a number, or a string. */
export function findIn(text: string, value: unknown, monthFirst?: boolean): [number, number] | null {
  if (typeof value === 'number') {
    const want = round2(Math.abs(value));
    for (const t of numbersIn(text)) if (t.values.some((x) => round2(x) === want)) return [t.start, t.end];
    return null;
  }
  if (typeof value !== 'string' || value.trim() === '') return null;
  const iso = /^(\d{4}-\d{2}-\d{2})(?:$|T)/.exec(value)?.[1];
  if (iso) {
    for (const mf of monthFirst === undefined ? [false, true] : [monthFirst]) {
      for (const d of datesIn(text, mf)) if (d.iso === iso) return [d.index, d.end];
    }
  }
  const i = text.indexOf(value);
  if (i >= 0) return [i, i + value.length];
  const j = text.toLowerCase().indexOf(value.toLowerCase());
  // lower-casing can change lengths in a few scripts: only an excerpt that reads back as the value counts
  return j >= 0 && text.slice(j, j + value.length).toLowerCase() === value.toLowerCase() ? [j, j + value.length] : null;
}
