// `inboxd extract`: output shape and exit codes.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { extractCommand } from '../../src/cli/extract.ts';

const corpus = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/corpus');

function sink(): { stream: Writable; text: () => string } {
  let buf = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      buf += String(chunk);
      cb();
    },
  });
  return { stream, text: () => buf };
}

async function run(args: string[]) {
  const out = sink();
  const err = sink();
  const code = await extractCommand(args, out.stream, err.stream);
  return { code, out: out.text(), err: err.text() };
}

test('prints one JSON line with verification, agent and attachment flags', async () => {
  const r = await run([path.join(corpus, '015-notion-login-code-and-link.eml')]);
  assert.equal(r.code, 0);
  assert.equal(r.out.trim().split('\n').length, 1);
  const j = JSON.parse(r.out);
  assert.equal(j.verification.otp, '714205');
  assert.match(j.verification.primaryLink, /^https:\/\/www\.notion\.so\/loginwithemail/);
  assert.equal(j.verification.primaryLinkUnwrapped, null);
  assert.equal(j.agent.primaryAction.type, 'otp');
  assert.equal(j.agent.primaryAction.value, '714205');
  assert.match(j.agent.primaryAction.instruction, /Notion/);
  assert.equal(j.service, 'notion');
  assert.ok(Array.isArray(j.candidates));
  assert.equal(j.hasAttachments, false);
  assert.equal(j.attachmentCount, 0);
});

test('manual without a server: value is empty; attachments counted', async () => {
  const r = await run([path.join(corpus, '053-generic-pdf-code.eml')]);
  assert.equal(r.code, 0);
  const j = JSON.parse(r.out);
  assert.equal(j.agent.primaryAction.type, 'manual');
  assert.equal(j.agent.primaryAction.value, '');
  assert.equal(j.hasAttachments, true);
  assert.equal(j.attachmentCount, 1);
});

test('--service sets the preset', async () => {
  const r = await run([path.join(corpus, '058-generic-subject-only-code.eml'), '--service', 'github']);
  assert.equal(r.code, 0);
  assert.equal(JSON.parse(r.out).service, 'github');
  const r2 = await run(['--service=slack', path.join(corpus, '058-generic-subject-only-code.eml')]);
  assert.equal(JSON.parse(r2.out).service, 'slack');
});

test('bad usage exits 2 with one line', async () => {
  for (const args of [[], ['--bogus', 'a.eml'], ['a.eml', 'b.eml'], ['a.eml', '--service'], ['a.eml', '--service', 'myspace']]) {
    const r = await run(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.out, '');
    assert.equal(r.err.trim().split('\n').length, 1);
  }
  const r = await run(['a.eml', '--service', 'myspace']);
  assert.match(r.err, /github, google, microsoft.*vercel, paypal/);
});

test('unreadable file exits 1', async () => {
  const r = await run(['/nonexistent/dir/x.eml']);
  assert.equal(r.code, 1);
  assert.match(r.err, /cannot read .*no such file/);
  const dir = mkdtempSync(path.join(tmpdir(), 'inboxd-x-'));
  const r2 = await run([dir]);
  assert.equal(r2.code, 1);
  const empty = path.join(dir, 'empty.eml');
  writeFileSync(empty, '');
  const r3 = await run([empty]);
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r3.code, 1);
  assert.match(r3.err, /cannot parse/);
});
