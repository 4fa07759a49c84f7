// MIME fuzzing, long form: 20,000 heavily mutated messages (512 KB header explosions, 400-deep multiparts) through
// parse + extract, and 2,000 through SMTP and ingest. Seed: INBOXD_STRESS_SEED.
import { test } from 'node:test';
import { fuzzAnalyze, fuzzIngest } from './fuzz-run.ts';
import { HEAVY } from './mime-mutations.ts';

const SEED = Number(process.env.INBOXD_STRESS_SEED ?? 20261122);

test('20,000 heavily mutated messages through parse + extract: no crash, no hang', { timeout: 20 * 60_000 }, async () => {
  const r = await fuzzAnalyze(20_000, SEED, HEAVY);
  console.log(
    `  20,000 messages (${Math.round(r.bytes / 1048576)} MB), seed ${SEED}: slowest ${r.slowestMs} ms, ${r.parseErrors} stored raw as unparseable`,
  );
});

test('2,000 heavily mutated messages through SMTP and ingest: each stored or cleanly rejected', { timeout: 20 * 60_000 }, async () => {
  const r = await fuzzIngest(2_000, SEED + 1, HEAVY);
  console.log(`  2,000 messages over SMTP: ${r.stored} stored, ${r.rejected.length} rejected ${JSON.stringify([...new Set(r.rejected)])}`);
});
