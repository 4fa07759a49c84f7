// Throughput of the verification extractor over the public corpus: parse+extract and extract alone.
// Loops the 60 .eml files until about 3 s have elapsed for each measurement.
//
//   node_modules/.bin/node scripts/bench/extract.ts [--seconds N]
//
// Prints a readable line per measurement and one JSON line at the end.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractVerification } from '../../src/mail/extract/index.ts';
import { parseMessage } from '../../src/mail/parse.ts';
import type { ParsedMessage } from '../../src/mail/types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(root, 'test/fixtures/corpus');
const secIdx = process.argv.indexOf('--seconds');
const seconds = secIdx > 0 ? Number(process.argv[secIdx + 1]) || 3 : 3;

const files = readdirSync(dir)
  .filter((f) => f.endsWith('.eml'))
  .sort();
const raws = files.map((f) => readFileSync(path.join(dir, f)));
const bytes = raws.reduce((n, b) => n + b.length, 0);

async function measure(
  name: string,
  one: (i: number) => Promise<void> | void,
): Promise<{ perSecond: number; messages: number; ms: number }> {
  // warm-up pass
  for (let i = 0; i < raws.length; i++) await one(i);
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < seconds * 1000) {
    for (let i = 0; i < raws.length; i++) await one(i);
    n += raws.length;
  }
  const ms = performance.now() - start;
  const perSecond = Math.round((n / ms) * 1000);
  process.stdout.write(
    `${name.padEnd(16)} ${perSecond.toLocaleString('en-US').padStart(8)} messages/s  (${n} messages in ${(ms / 1000).toFixed(2)} s, ${((ms * 1000) / n).toFixed(0)} µs each)\n`,
  );
  return { perSecond, messages: n, ms: Math.round(ms) };
}

const parsed: ParsedMessage[] = [];
for (const r of raws) parsed.push(await parseMessage(r));

process.stdout.write(`corpus: ${files.length} messages, ${(bytes / 1024).toFixed(0)} KiB, node ${process.version}\n`);
const full = await measure('parse+extract', async (i) => {
  extractVerification(await parseMessage(raws[i]!));
});
const only = await measure('extract only', (i) => {
  extractVerification(parsed[i]!);
});
process.stdout.write(
  JSON.stringify({
    bench: 'extract',
    corpus: files.length,
    node: process.version,
    parseAndExtractPerSecond: full.perSecond,
    extractPerSecond: only.perSecond,
    parseAndExtract: full,
    extract: only,
  }) + '\n',
);
