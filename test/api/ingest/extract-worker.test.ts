// GET /v1/inboxes/:id/extract?service= extracts again with a preset; crafted mail can make that slow, so it runs
// in the ingest worker threads, not on the thread that answers HTTP and SMTP. Same result as on the main thread.
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { extractionOf, parsedFromRow, verifyResult } from '../../../src/agent/verify.ts';
import { analyze } from '../../../src/ingest/analyze.ts';
import { createAnalyzer } from '../../../src/ingest/analyzer.ts';
import { createLogger } from '../../../src/log.ts';
import { extractVerification } from '../../../src/mail/extract/index.ts';
import { PRESET_IDS } from '../../../src/mail/presets.ts';
import { json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { CORPUS } from '../../stress/mime-mutations.ts';

const log = createLogger({ level: 'silent', format: 'json' });

test('the worker pool extracts with a preset exactly as the main thread does, and counts the jobs it ran', async () => {
  const pool = createAnalyzer({ threads: 2, log });
  after(() => pool.close());
  const before = pool.workerJobs;
  let jobs = 0;
  for (const raw of CORPUS.slice(0, 20)) {
    const { parsed } = await analyze(raw, ['localhost']);
    for (const service of ['github', PRESET_IDS[PRESET_IDS.length - 1]!] as const) {
      const inline = extractVerification(parsed, { service, trustedHosts: ['localhost'] });
      const fallback = { ...inline, otp: 'fallback-was-used' };
      assert.deepEqual(await pool.extract(parsed, { service, trustedHosts: ['localhost'] }, fallback), inline);
      jobs++;
    }
  }
  assert.equal(pool.workerJobs - before, jobs, 'every extraction was answered by a worker thread');
});

let s: TestServer;
before(async () => {
  s = await startTestServer(['--ingest-threads', '1']);
});
after(() => s.stop());

test('GET …/extract?service= gives the main-thread answer, computed in a worker', async () => {
  const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  await sendMail(s.server.smtpPort, {
    from: 'GitHub <noreply@github.com>',
    to: inbox.address,
    subject: 'Your GitHub launch code',
    text: 'Here is your GitHub launch code: 48213907\nhttps://github.com/login/device?code=abc\n',
  });
  await json(await s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`));
  const analyzer = (s.server.parts.ingest as unknown as { analyzer: { workerJobs: number; threads: number } }).analyzer;
  assert.equal(analyzer.threads, 1);
  const jobsBefore = analyzer.workerJobs;
  const got = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/extract?service=github`));
  assert.equal(analyzer.workerJobs - jobsBefore, 1, 'the extraction ran in the worker');

  const services = s.server.services;
  const row = (await s.server.parts.messages.latest(inbox.inboxId))!;
  const inboxRow = (await services.inboxes.byAddress(inbox.address))!;
  const mainThread = verifyResult(services.baseUrl(), inboxRow, row, { service: 'github' });
  assert.deepEqual(got, JSON.parse(JSON.stringify(mainThread)));
  assert.deepEqual(
    extractionOf(row, 'github', [new URL(services.baseUrl()).hostname]),
    extractVerification(parsedFromRow(row), { service: 'github', trustedHosts: [new URL(services.baseUrl()).hostname] }),
  );
  assert.ok(got.verification.otp, 'the preset found the code');
});
