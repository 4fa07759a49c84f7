// MIME fuzzing (fast-check): 10,000 mutated corpus messages through parse + extract with no crash and no hang, and
// 300 through the real SMTP → ingest worker → store path, each stored or cleanly rejected. The long form is
// test/stress/fuzz.stress.ts.
// @cluster
import { test } from 'node:test';
import { fuzzAnalyze, fuzzIngest } from '../../stress/fuzz-run.ts';

test('10,000 mutated messages through parse + extract: no crash, no hang', async () => {
  const r = await fuzzAnalyze(10_000, 42);
  console.log(
    `  10,000 messages (${Math.round(r.bytes / 1048576)} MB): slowest ${r.slowestMs} ms, ${r.parseErrors} stored raw as unparseable`,
  );
});

test('300 mutated messages through SMTP and ingest: each stored or cleanly rejected', async () => {
  const r = await fuzzIngest(300, 43);
  console.log(`  300 messages over SMTP: ${r.stored} stored, ${r.rejected.length} rejected ${JSON.stringify([...new Set(r.rejected)])}`);
});
