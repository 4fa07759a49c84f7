// The budget of PNG renderings (src/render/service.ts) with the browser replaced: one rendering at a time, the
// queue's cap (503 + Retry-After), a caller that leaves the queue gives up its place, the time budget (422, the
// browser's signal aborted), no chromium configured (501), and the cid: parts handed to the browser with images on
// and none with images off.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import { silentLogger } from '../../src/log.ts';
import type { Rendered, RenderJob } from '../../src/render/chromium.ts';
import { RenderService } from '../../src/render/service.ts';
import type { InboxRow } from '../../src/store/inboxes.ts';

const inbox = { id: 'inb_1' } as InboxRow;
const html = '<p><img src="cid:Logo@x"><img src="cid:missing@x"><img src="https://t.example/p.gif"></p>';
const messages = {
  get: async (_inbox: string, id: string) => (id === 'msg_1' ? ({ id, html_body: html, text_body: null } as never) : undefined),
  attachments: async () => [{ content_id: '<logo@x>', content_type: 'image/png', size: 3, sha256: 'abc' }] as never,
};
const blobs = { get: async () => Buffer.from('png') };
const opts = { width: 400, images: 'on' as const, theme: 'light' as const };
const done: Rendered = { png: Buffer.from('x'), width: 400, height: 10, truncated: false, blocked: 0 };

function service(
  render: (exe: string, job: RenderJob) => Promise<Rendered>,
  o: { queue?: number; timeoutMs?: number; chromium?: string } = {},
) {
  return new RenderService({
    chromium: 'chromium' in o ? o.chromium : '/usr/bin/chromium',
    timeoutMs: o.timeoutMs ?? 5000,
    queue: o.queue ?? 1,
    messages,
    blobs,
    log: silentLogger,
    compare: async () => ({ differentPixels: 0, totalPixels: 0 }),
    render,
  });
}

const status = (e: unknown) => (e instanceof AppError ? e.status : e);

test('cid: parts go to the browser with images on (served under the render origin), none with images off', async () => {
  const jobs: RenderJob[] = [];
  const s = service(async (_e, job) => (jobs.push(job), done));
  await s.message(inbox, 'msg_1', opts, new AbortController().signal);
  await s.message(inbox, 'msg_1', { ...opts, images: 'off' }, new AbortController().signal);
  assert.match(jobs[0]!.html, /src="http:\/\/inboxd-render\.invalid\/cid\/0"/);
  assert.match(jobs[0]!.html, /cid:missing@x/, 'a reference without a part stays as it was');
  assert.deepEqual([...jobs[0]!.parts.keys()], ['/cid/0']);
  assert.equal(jobs[1]!.parts.size, 0);
  assert.match(jobs[1]!.html, /cid:Logo@x/);
  await assert.rejects(s.message(inbox, 'msg_2', opts, new AbortController().signal), (e) => status(e) === 404);
});

test('one at a time; the queue holds --render-queue more; one more is 503 with Retry-After', async () => {
  let running = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  const s = service(
    (_e, _job) =>
      new Promise((resolve) => {
        running++;
        most = Math.max(most, running);
        gates.push(() => {
          running--;
          resolve(done);
        });
      }),
    { queue: 1 },
  );
  const sig = new AbortController().signal;
  const a = s.message(inbox, 'msg_1', opts, sig);
  await new Promise((r) => setTimeout(r, 10));
  const b = s.message(inbox, 'msg_1', opts, sig);
  await new Promise((r) => setTimeout(r, 10));
  const c = s.message(inbox, 'msg_1', opts, sig);
  await assert.rejects(c, (e) => e instanceof AppError && e.status === 503 && Number(e.headers['Retry-After']) >= 1);
  assert.equal(s.queued(), 1);
  gates.shift()!();
  await a;
  await new Promise((r) => setTimeout(r, 10));
  gates.shift()!();
  await b;
  assert.equal(most, 1, 'never two browsers at once');
});

test('a caller that goes away while queued leaves the queue', async () => {
  let release: () => void = () => undefined;
  const s = service(() => new Promise((resolve) => (release = () => resolve(done))), { queue: 1 });
  const first = s.message(inbox, 'msg_1', opts, new AbortController().signal);
  await new Promise((r) => setTimeout(r, 10));
  const leaving = new AbortController();
  const queued = s.message(inbox, 'msg_1', opts, leaving.signal);
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(s.queued(), 1);
  leaving.abort(new Error('client went away'));
  await assert.rejects(queued, /went away/);
  assert.equal(s.queued(), 0);
  release();
  await first;
});

test('over the time budget the browser is told to stop and the answer is 422 naming the flag', async () => {
  let aborted = false;
  const s = service(
    (_e, job) =>
      new Promise((_resolve, reject) =>
        job.signal.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('killed'));
        }),
      ),
    { timeoutMs: 50 },
  );
  await assert.rejects(
    s.message(inbox, 'msg_1', opts, new AbortController().signal),
    (e) => e instanceof AppError && e.status === 422 && /--render-timeout-ms/.test(e.message),
  );
  assert.equal(aborted, true);
  // The next rendering gets its turn.
  const t = service(async () => done, { timeoutMs: 50 });
  assert.equal((await t.message(inbox, 'msg_1', opts, new AbortController().signal)).height, 10);
});

test('without chromium configured: 501 not_configured naming --render-chromium', async () => {
  const s = service(async () => done, { chromium: undefined });
  assert.equal(s.configured(), false);
  await assert.rejects(
    s.message(inbox, 'msg_1', opts, new AbortController().signal),
    (e) => e instanceof AppError && e.status === 501 && /--render-chromium/.test(e.message),
  );
});
