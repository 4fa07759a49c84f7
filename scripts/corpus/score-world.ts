// Scores the built-in structured-extraction engine on the world corpus (test/fixtures/world: tune/ and heldout/).
// Each .eml is parsed the way ingest parses mail (parseMessage) and handed to the built-in engine in-process with
// what the sandbox task gets (builtinInput); the comparison is the shared corpus' own scorer
// (test/fixtures/structured/score.mjs, results mode), so the rules are exactly the shared ones.
//
//   node scripts/corpus/score-world.ts [--part tune|heldout|all] [--json] [--only TEXT]
//
// Prints, per part: every file with its failing fields (expected vs got), files passed, and per-field accuracy
// (matched/total per preset field, required and optional counted apart). --json prints one JSON object instead.
// Exit 0 when the run completed (the figures are a measurement; test/unit/world-corpus.test.ts holds the floors),
// 1 when the corpus itself is broken (unreadable expected file, scorer error), 2 on a usage error.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinInput, builtinPreset, type PresetName } from '../../src/ai/builtin/index.ts';
import { INVOICE_SCHEMA, RECEIPT_SCHEMA, TWOFA_SCHEMA } from '../../src/ai/preset-schemas.ts';
import { compileSchema, validate } from '../../src/ai/schema.ts';
import { parseMessage } from '../../src/mail/parse.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WORLD_DIR = path.join(ROOT, 'test/fixtures/world');
export const SCORER = path.join(ROOT, 'test/fixtures/structured/score.mjs');
export const PARTS = ['tune', 'heldout'] as const;
export type Part = (typeof PARTS)[number];

export const PRESET_FIELDS: Record<PresetName, string[]> = {
  invoice: ['invoiceNumber', 'vendor', 'issueDate', 'dueDate', 'currency', 'total', 'subtotal', 'tax', 'lineItems', 'paymentUrl'],
  receipt: ['merchant', 'date', 'currency', 'total', 'orderNumber', 'subtotal', 'tax', 'items', 'paymentMethod'],
  '2fa': ['code', 'link', 'service', 'expiresInMinutes'],
};
const SCHEMAS: Record<PresetName, Record<string, unknown>> = { invoice: INVOICE_SCHEMA, receipt: RECEIPT_SCHEMA, '2fa': TWOFA_SCHEMA };
const validators = new Map<PresetName, ReturnType<typeof compileSchema>>();
export function presetValidator(p: PresetName): ReturnType<typeof compileSchema> {
  let v = validators.get(p);
  if (!v) validators.set(p, (v = compileSchema(SCHEMAS[p])));
  return v;
}

export interface Expected {
  file: string;
  preset: PresetName;
  language: string;
  requiredFields: string[];
  nullFields: string[];
  data: Record<string, unknown>;
  accept?: Record<string, unknown[]>;
  note?: string;
}

export interface FieldFailure {
  field: string;
  required: boolean;
  expected: unknown;
  accepted: unknown[];
  got: unknown;
}
export interface FileResult {
  file: string;
  preset: PresetName;
  language: string;
  ok: boolean;
  error: string | null;
  /** The engine's answer validates against the preset schema. */
  valid: boolean;
  failures: FieldFailure[];
}
export interface Tally {
  ok: number;
  total: number;
}
export interface PartScore {
  part: Part;
  files: Tally;
  required: Tally;
  optional: Tally;
  invalidAnswers: number;
  /** preset -> field -> {required, optional} tallies. */
  fields: Record<string, Record<string, { required: Tally; optional: Tally }>>;
  results: FileResult[];
}

export function readExpected(dir: string): Array<{ eml: string; exp: Expected }> {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => ({ eml: f, exp: JSON.parse(readFileSync(path.join(dir, f.replace(/\.eml$/, '.json')), 'utf8')) as Expected }));
}

interface ScorerReport {
  files: Array<{ file: string; ok: boolean; error: string | null; fields: Record<string, { required: boolean; ok: boolean }> }>;
}

export async function scorePart(part: Part, only?: string): Promise<PartScore> {
  const dir = path.join(WORLD_DIR, part);
  const cases = readExpected(dir).filter((c) => !only || c.eml.includes(only));
  const out = mkdtempSync(path.join(tmpdir(), `inboxd-world-${part}-`));
  try {
    const answers = new Map<string, Record<string, unknown> | null>();
    const errors = new Map<string, string>();
    for (const c of cases) {
      try {
        const msg = await parseMessage(readFileSync(path.join(dir, c.eml)));
        const data = builtinPreset(builtinInput(msg), c.exp.preset);
        answers.set(c.eml, data);
        writeFileSync(path.join(out, c.eml.replace(/\.eml$/, '.json')), JSON.stringify({ data }));
      } catch (e) {
        answers.set(c.eml, null);
        errors.set(c.eml, (e as Error).message);
      }
    }
    const reportFile = path.join(out, '_report.json');
    const args = [SCORER, dir, '--results', out, '--quiet', '--report', reportFile, ...(only ? ['--only', only] : [])];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
    if (r.status !== 0 && r.status !== 1) throw new Error(`score.mjs failed (exit ${r.status}): ${r.stderr || r.stdout}`);
    const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ScorerReport;
    const byFile = new Map(report.files.map((f) => [f.file, f]));

    const score: PartScore = {
      part,
      files: { ok: 0, total: 0 },
      required: { ok: 0, total: 0 },
      optional: { ok: 0, total: 0 },
      invalidAnswers: 0,
      fields: {},
      results: [],
    };
    for (const c of cases) {
      const rep = byFile.get(c.eml);
      if (!rep) throw new Error(`score.mjs did not report ${c.eml}`);
      const got = answers.get(c.eml) ?? null;
      const valid = got !== null && validate(presetValidator(c.exp.preset), got).ok;
      if (!valid) score.invalidAnswers++;
      const failures: FieldFailure[] = [];
      const perPreset = (score.fields[c.exp.preset] ??= {});
      for (const f of PRESET_FIELDS[c.exp.preset]) {
        const fr = rep.fields[f]!;
        const t = (perPreset[f] ??= { required: { ok: 0, total: 0 }, optional: { ok: 0, total: 0 } });
        const bucket = fr.required ? t.required : t.optional;
        const overall = fr.required ? score.required : score.optional;
        bucket.total++;
        overall.total++;
        if (fr.ok) {
          bucket.ok++;
          overall.ok++;
        } else {
          failures.push({
            field: f,
            required: fr.required,
            expected: c.exp.data[f] ?? null,
            accepted: c.exp.accept?.[f] ?? [],
            got: got ? (got[f] ?? null) : null,
          });
        }
      }
      score.files.total++;
      if (rep.ok) score.files.ok++;
      score.results.push({
        file: c.eml,
        preset: c.exp.preset,
        language: c.exp.language,
        ok: rep.ok,
        error: errors.get(c.eml) ?? null,
        valid,
        failures,
      });
    }
    return score;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const pct = (t: Tally) => (t.total ? `${((100 * t.ok) / t.total).toFixed(1)} %` : '-');
const frac = (t: Tally) => (t.total ? `${t.ok}/${t.total}` : '-');
const show = (v: unknown) => {
  const s = JSON.stringify(v ?? null);
  return s.length > 300 ? s.slice(0, 299) + '…' : s;
};

export function formatPart(s: PartScore): string {
  const lines: string[] = [`== ${s.part}`];
  for (const r of s.results) {
    if (r.ok && r.failures.length === 0) {
      lines.push(`ok   ${r.file}`);
      continue;
    }
    lines.push(`${r.ok ? 'ok  ' : 'FAIL'} ${r.file}  [${r.preset}, ${r.language}]${r.valid ? '' : '  (answer does not validate)'}`);
    if (r.error) lines.push(`    error: ${r.error}`);
    for (const f of r.failures) {
      const acc = f.accepted.length ? `  (also accepted: ${f.accepted.map((a) => JSON.stringify(a)).join(', ')})` : '';
      lines.push(`    ${f.field.padEnd(16)} ${f.required ? 'required' : 'optional'}  expected ${show(f.expected)}${acc}`);
      lines.push(`    ${''.padEnd(16)} ${''.padEnd(8)}  got      ${show(f.got)}`);
    }
  }
  lines.push('', `per field (${s.part}): required / optional`);
  for (const [preset, fields] of Object.entries(s.fields)) {
    for (const [f, t] of Object.entries(fields)) {
      lines.push(
        `  ${preset.padEnd(8)} ${f.padEnd(16)} required ${frac(t.required).padStart(7)}   optional ${frac(t.optional).padStart(7)}`,
      );
    }
  }
  lines.push(
    '',
    `${s.part}: files ${s.files.ok}/${s.files.total}, required ${s.required.ok}/${s.required.total} fields (${pct(s.required)}), ` +
      `optional ${s.optional.ok}/${s.optional.total} fields (${pct(s.optional)}), answers not validating ${s.invalidAnswers}`,
  );
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  let part: 'all' | Part = 'all';
  let json = false;
  let only: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') json = true;
    else if (a === '--part' || a.startsWith('--part=')) {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i];
      if (v !== 'all' && v !== 'tune' && v !== 'heldout') {
        process.stderr.write(`score-world: --part must be tune, heldout or all (got ${JSON.stringify(v ?? null)})\n`);
        return 2;
      }
      part = v;
    } else if (a === '--only') only = argv[++i];
    else if (a === '--help' || a === '-h') {
      process.stdout.write('usage: node scripts/corpus/score-world.ts [--part tune|heldout|all] [--json] [--only TEXT]\n');
      return 0;
    } else {
      process.stderr.write(`score-world: unknown argument ${a}; usage: [--part tune|heldout|all] [--json] [--only TEXT]\n`);
      return 2;
    }
  }
  const parts = part === 'all' ? [...PARTS] : [part];
  const scores: PartScore[] = [];
  try {
    for (const p of parts) scores.push(await scorePart(p, only));
  } catch (e) {
    process.stderr.write(`score-world: ${(e as Error).message}\n`);
    return 1;
  }
  if (json) process.stdout.write(JSON.stringify({ parts: scores }, null, 2) + '\n');
  else process.stdout.write(scores.map(formatPart).join('\n\n') + '\n');
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
