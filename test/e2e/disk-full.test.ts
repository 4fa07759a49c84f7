// Storage failing under a running server: the data dir sits on a small tmpfs (mounted here; the test is skipped only
// where the sandbox forbids mount). (1) The disk fills up: SMTP answers 452 4.3.1 instead of 250, HTTP writes 503,
// and once space returns both work again. (2) The blob folder turns read-only (immutable, chattr +i: no new files,
// even for root): a message that needs a new segment file gets SMTP 451, HTTP 503, and again recovery. Afterwards every acknowledged message is there,
// no half message exists and SQLite's integrity check passes. /health answers 503 degraded while storage fails.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Child, checkStore, createInbox, deliver, killAll, listAll, startChild } from '../stress/lib.ts';

let mountPoint = '';
let skip: string | false = false;

before(() => {
  mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-diskfull-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mountPoint], { encoding: 'utf8' });
  if (r.status !== 0)
    skip = `cannot mount a tmpfs here (${(r.stderr || r.error?.message || '').trim()}); the disk-full test needs mount (root with CAP_SYS_ADMIN)`;
});
after(() => {
  killAll();
  if (!skip) {
    spawnSync('chattr', ['-R', '-i', mountPoint]);
    spawnSync('umount', ['-l', mountPoint]);
  }
  fs.rmSync(mountPoint, { recursive: true, force: true });
});

const body = (tag: string, kb: number) =>
  `Subject: ${tag}\nFrom: a@example.com\n\n${`${tag} ${'z'.repeat(70)}\n`.repeat(Math.ceil((kb * 1024) / 80))}`;

/** Fills the file system up with one file; returns its path. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'w');
  const chunk = Buffer.alloc(256 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (e) {
    assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  // the last few pages
  const small = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, small);
  } catch {
    // full
  }
  fs.closeSync(fd);
  return file;
}

/** /health caches its storage check for a second: poll until it shows `status` (the test timeout bounds it). */
async function waitForHealth(srv: Child, status: number): Promise<{ status: string; reason: string }> {
  for (;;) {
    const r = await srv.api('/health');
    const body = (await r.json()) as { status: string; reason: string };
    if (r.status === status) return body;
    await new Promise((res) => setTimeout(res, 100));
  }
}
const healthy = async (srv: Child) => assert.equal((await waitForHealth(srv, 200)).status, 'ok');

describe('storage failures at runtime', () => {
  let srv: Child;
  let dataDir: string;
  let inbox: { inboxId: string; address: string };
  const acked: string[] = [];

  before(async () => {
    if (skip) return;
    dataDir = path.join(mountPoint, 'data');
    // The tmpfs is small: the free-space threshold of /health is set well below its size.
    srv = await startChild(dataDir, ['--health-min-free-mb', '4', '--segment-size-mb', '1']);
    inbox = await createInbox(srv, { label: 'disk' });
    for (let i = 0; i < 10; i++) {
      const r = await deliver(srv.smtp, inbox.address, body(`before-${i}`, 20));
      assert.match(r.reply, /^250 /);
      acked.push(`before-${i}`);
    }
  });

  test('disk full: SMTP 452, HTTP 503, recovery when space returns', async (t) => {
    if (skip) return t.skip(skip);
    const filler = fill(mountPoint);
    const replies: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await deliver(srv.smtp, inbox.address, body(`full-${i}`, 64));
      replies.push(r.reply.slice(0, 40));
      if (r.reply.startsWith('250')) acked.push(`full-${i}`);
    }
    console.log(`  SMTP while the disk is full: ${JSON.stringify([...new Set(replies)])}`);
    assert.ok(
      replies.every((r) => /^452 4\.3\.1 /.test(r)),
      `every delivery is refused with 452 4.3.1: ${JSON.stringify(replies)}`,
    );
    const sim = await srv.api(`/v1/inboxes/${inbox.inboxId}/simulate`, {
      method: 'POST',
      json: { scenario: 'otp', text: 'y'.repeat(200_000) },
    });
    assert.equal(sim.status, 503, await sim.clone().text());
    assert.equal(((await sim.json()) as { code: string }).code, 'unavailable');
    const create = await srv.api('/v1/inboxes', { method: 'POST', json: { label: 'disk-2' } });
    assert.ok(
      [201, 503].includes(create.status),
      `inbox create answers 201 (stored in space SQLite already had) or 503, not ${create.status}`,
    );
    // /health caches its file-system answer for a second (the cluster heartbeat reads it too): within that, 503.
    const health = await waitForHealth(srv, 503);
    assert.equal(health.status, 'degraded');
    assert.match(health.reason, /MB free on the data dir's file system/);

    fs.rmSync(filler);
    await healthy(srv);
    const after = await deliver(srv.smtp, inbox.address, body('after-full', 64));
    assert.match(after.reply, /^250 /);
    acked.push('after-full');
    assert.equal((await srv.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp' } })).status, 201);
  });

  test('read-only blob folder: SMTP 451, HTTP 503, recovery when it is writable again', async (t) => {
    if (skip) return t.skip(skip);
    const blobs = path.join(dataDir, 'blobs');
    const lock = spawnSync('chattr', ['-R', '+i', blobs], { encoding: 'utf8' });
    if (lock.status !== 0) return t.skip(`chattr +i is not supported here: ${lock.stderr.trim()}`);
    try {
      // The open segment could still take appends; a message that needs a new segment file (1 MiB segments here)
      // cannot be stored.
      const r = await deliver(srv.smtp, inbox.address, body('readonly', 1100));
      assert.match(r.reply, /^451 4\.3\.0 /);
      // A small one may still fit the open segment (stored and durable: 201), or fail cleanly (503), never half.
      const sim = await srv.api(`/v1/inboxes/${inbox.inboxId}/simulate`, { method: 'POST', json: { scenario: 'otp' } });
      assert.ok([201, 503].includes(sim.status), `simulate answers 201 or 503, not ${sim.status}`);
      const degraded = await waitForHealth(srv, 503);
      assert.equal(degraded.status, 'degraded');
      assert.match(degraded.reason, /blob folder is not writable/);
    } finally {
      spawnSync('chattr', ['-R', '-i', blobs]);
    }
    await healthy(srv);
    const r = await deliver(srv.smtp, inbox.address, body('after-readonly', 8));
    assert.match(r.reply, /^250 /);
    acked.push('after-readonly');
  });

  test('nothing acknowledged is lost and nothing is half-stored', async (t) => {
    if (skip) return t.skip(skip);
    const subjects = new Set((await listAll(srv, inbox.inboxId)).map((m) => m.subject));
    assert.deepEqual(
      acked.filter((s) => !subjects.has(s)),
      [],
    );
    assert.equal(await srv.stop(), 0);
    checkStore(dataDir);
    assert.deepEqual(fs.readdirSync(path.join(dataDir, 'blobs', 'tmp')), [], 'no temp file is left behind');
  });
});
