// Throughput of the built-in structured-extraction engine over the structured corpus (each file with its own
// preset): engine alone on parsed messages, and parse + engine. Loops the files for about 3 s per measurement.
//
//   node_modules/.bin/node scripts/bench/extract-structured.ts [--seconds N]
//
// Prints a readable line per measurement and one JSON line at the end.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinPreset, type PresetName } from '../../src/ai/builtin/index.ts';
import { parseMessage } from '../../src/mail/parse.ts';
import type { ParsedMessage } from '../../src/mail/types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(root, 'test/fixtures/structured');
const secIdx = process.argv.indexOf('--seconds');
const seconds = secIdx > 0 ? Number(process.argv[secIdx + 1]) || 3 : 3;

const files = readdirSync(dir)
  .filter((f) => f.endsWith('.eml'))
  .sort();
const raws = files.map((f) => readFileSync(path.join(dir, f)));
const presets = files.map(
  (f) => (JSON.parse(readFileSync(path.join(dir, f.replace(/\.eml$/, '.json')), 'utf8')) as { preset: PresetName }).preset,
);
const parsed: ParsedMessage[] = [];
for (const r of raws) parsed.push(await parseMessage(r));

async function measure(
  name: string,
  one: (i: number) => Promise<unknown> | unknown,
): Promise<{ perSecond: number; messages: number; ms: number }> {
  for (let i = 0; i < raws.length; i++) await one(i);
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < raws.length; i++) await one(i);
    n += raws.length;
  }
  const ms = performance.now() - start;
  const perSecond = Math.round((n / ms) * 1000);
  process.stdout.write(`${name.padEnd(22)} ${String(perSecond).padStart(7)} messages/s  (${n} messages in ${Math.round(ms)} ms)\n`);
  return { perSecond, messages: n, ms: Math.round(ms) };
}

const engine = await measure('builtin engine', (i) => builtinPreset(parsed[i]!, presets[i]!));
const full = await measure('parse + builtin engine', async (i) => builtinPreset(await parseMessage(raws[i]!), presets[i]!));
process.stdout.write(
  `${JSON.stringify({ bench: 'extract-structured', files: files.length, engineMessagesPerSecond: engine.perSecond, parseAndEngineMessagesPerSecond: full.perSecond })}\n`,
);
