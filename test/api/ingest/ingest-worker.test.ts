// The ingest analysis worker threads: the same result as analysis on the main thread, and a message that takes too
// long costs only its worker — it is replaced, that one message is stored raw, and the messages behind it are
// analysed as usual. (The bare-CR header that once stalled the parser for seconds is fixed in parse.ts, so "too
// long" is made here with a short limit and a large message: a 48 MB base64 part takes ~0.85 s, the limit is 0.3 s,
// while a corpus message takes ~10 ms — ~100 ms as the first one in a fresh worker, which is what the messages
// queued behind the slow one get: a 0.1 s limit failed them on a loaded machine.)
// not @cluster: the analysis worker threads of one process, no server
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { analyze, forStorage } from '../../../src/ingest/analyze.ts';
import { createAnalyzer } from '../../../src/ingest/analyzer.ts';
import { createLogger } from '../../../src/log.ts';
import { CORPUS } from '../../stress/mime-mutations.ts';

const logs: string[] = [];
const log = createLogger({ level: 'warn', format: 'json', write: (l) => logs.push(l) });
const pool = createAnalyzer({ threads: 2, timeoutMs: 1500, log });
after(() => pool.close());

test('workers give the same analysis as the main thread for the whole corpus', async () => {
  assert.equal(pool.threads, 2);
  const results = await Promise.all(CORPUS.map((raw) => pool.analyze(raw, ['localhost'])));
  for (const [i, raw] of CORPUS.entries()) {
    // Workers send back what ingest stores (the row's columns, serialised, and the attachments).
    const inline = forStorage(await analyze(raw, ['localhost']));
    assert.deepEqual(results[i], inline, `corpus message ${i}`);
    for (const a of results[i]!.attachments) assert.ok(Buffer.isBuffer(a.content));
  }
});

test('a message that takes too long is stored raw and its worker replaced; the queue behind it goes on', async () => {
  const strict = createAnalyzer({ threads: 1, timeoutMs: 300, log });
  after(() => strict.close());
  const slow = Buffer.from(
    'Subject: big\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=a.bin\r\n\r\n' +
      Buffer.alloc(48 * 1024 * 1024, 7)
        .toString('base64')
        .replace(/.{76}/g, '$&\r\n') +
      '\r\n',
  );
  const t0 = performance.now();
  const [stuck, ...others] = await Promise.all([strict.analyze(slow, []), ...CORPUS.slice(0, 10).map((raw) => strict.analyze(raw, []))]);
  const ms = performance.now() - t0;
  assert.match(stuck!.parseError ?? '', /took more than 300 ms/);
  assert.equal(stuck!.content.subject, '');
  assert.match(stuck!.rawSha256, /^[0-9a-f]{64}$/);
  for (const [i, a] of others.entries()) assert.deepEqual(a, forStorage(await analyze(CORPUS[i]!, [])));
  assert.ok(logs.some((l) => l.includes('ingest worker replaced')));
  console.log(`  slow message given up after ${Math.round(ms)} ms (limit 300 ms); 10 queued messages analysed normally`);
  // the pool still works
  assert.equal((await strict.analyze(CORPUS[0]!, [])).parseError, null);
});

test('workers start with the first session or job, stop after a quiet spell, and start again for the next job', async () => {
  const logsBefore = logs.length;
  const lazy = createAnalyzer({ threads: 2, timeoutMs: 1500, idleStopMs: 300, log });
  after(() => lazy.close());
  // An idle server holds no worker isolate.
  assert.equal(lazy.running, 0);
  lazy.warm(); // a mail session opened
  assert.equal(lazy.running, 2);
  const raw = CORPUS[0]!;
  const expected = forStorage(await analyze(raw, ['localhost']));
  assert.deepEqual(await lazy.analyze(raw, ['localhost']), expected);
  const jobsBefore = lazy.workerJobs;
  // Quiet: the workers stop (checked at least every idleStopMs / 2).
  const t0 = performance.now();
  while (lazy.running > 0 && performance.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 50));
  assert.equal(lazy.running, 0, 'the idle workers stopped');
  assert.ok(performance.now() - t0 >= 200, 'not before the quiet spell');
  // The next job starts them again and is answered by a worker, not the fallback.
  assert.deepEqual(await lazy.analyze(raw, ['localhost']), expected);
  assert.equal(lazy.running, 2);
  assert.equal(lazy.workerJobs, jobsBefore + 1);
  assert.ok(!logs.slice(logsBefore).some((l) => l.includes('replaced')), 'a worker stopped while idle is not taken for a crash');
});
