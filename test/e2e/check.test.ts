// `inboxd check` against a running server: a failing mail exits 1 and a clean one 0 under --fail-on, the JUnit output
// is well-formed XML with testsuites/testcase/failure, the SARIF output has the 2.1.0 shape with regions, an unknown
// metric exits 2 naming the nearest one, an unreachable server exits 2, and --wait with nothing arriving exits 3.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { json } from '../helpers/http.ts';
import { listenerCount, startTestServer, type TestServer, tempDir } from '../helpers/server.ts';
import { sendMail } from '../helpers/smtp.ts';

let s: TestServer;
let dir: string;
before(async () => {
  s = await startTestServer();
  dir = tempDir('inboxd-check-');
});
after(async () => {
  await s.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ INBOXD_URL: s.url, INBOXD_KEY: s.key });
const check = (args: string[], e: Record<string, string> = env()) => runCli(['check', ...args], { env: e, timeoutMs: 60_000 });

const BAD = `From: a@acme.test\r\nTo: b@acme.test\r\nSubject: Reset\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>\r\n<img src="cid:missing@acme.test">\r\n<a href="https://acme.test/r">click here</a>\r\n</body></html>\r\n`;
const CLEAN = `From: a@acme.test\r\nTo: b@acme.test\r\nSubject: Welcome\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nWelcome to Acme. Open your dashboard: https://acme.test/start\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Welcome</title></head><body><p>Welcome to Acme. <a href="https://acme.test/start">Open your dashboard</a></p></body></html>\r\n--b--\r\n`;

function file(name: string, body: string): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, body);
  return f;
}

/** A strict well-formedness check: one root, balanced tags, quoted attributes, known entities only. */
function wellFormed(xml: string): { root: string; elements: Array<{ name: string; attrs: Record<string, string> }> } {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  const elements: Array<{ name: string; attrs: Record<string, string> }> = [];
  let root = '';
  let i = 0;
  while (i < body.length) {
    const lt = body.indexOf('<', i);
    const text = body.slice(i, lt < 0 ? body.length : lt);
    assert.ok(!/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(text), `bad entity in text: ${text.slice(0, 80)}`);
    if (lt < 0) break;
    assert.ok(stack.length > 0 || text.trim() === '', 'text outside the root');
    const gt = body.indexOf('>', lt);
    assert.ok(gt > 0, 'unclosed tag');
    const tag = body.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('/')) {
      assert.equal(stack.pop(), tag.slice(1).trim(), 'mismatched end tag');
      continue;
    }
    const m = /^([A-Za-z][\w.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)$/.exec(tag);
    assert.ok(m, `malformed tag <${tag.slice(0, 80)}>`);
    const attrs: Record<string, string> = {};
    for (const a of m[2]!.matchAll(/([\w:.-]+)="([^"]*)"/g)) {
      assert.ok(!(a[1]! in attrs), `duplicate attribute ${a[1]}`);
      assert.ok(!/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(a[2]!), `bad entity in attribute ${a[1]}`);
      attrs[a[1]!] = a[2]!;
    }
    if (stack.length === 0) {
      assert.equal(root, '', 'a second root element');
      root = m[1]!;
    }
    elements.push({ name: m[1]!, attrs });
    if (m[3] !== '/') stack.push(m[1]!);
  }
  assert.deepEqual(stack, [], 'unclosed elements');
  return { root, elements };
}

test('--fail-on: a failing mail exits 1 with the report, a clean one exits 0', async () => {
  const bad = await check([file('bad.eml', BAD), '--fail-on', 'html.errors>0,a11y.warnings>=5', '--format', 'json']);
  assert.equal(bad.code, 1, bad.stderr);
  const report = JSON.parse(bad.stdout);
  assert.equal(report.checks.html.status, 'failed');
  assert.equal(report.failOn.failed, true);
  assert.match(bad.stderr, /checks failed: html\.errors>0 \(actual 1\)/);

  const clean = await check([file('clean.eml', CLEAN), '--fail-on', 'html.errors>0,a11y.errors>0,text.overlap<0.5']);
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  assert.match(clean.stdout, /clean\.eml: passed/);
});

test('a stored message by id and by --wait; string metrics and rule counts', async () => {
  const ib = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  const r = await sendMail(s.server.smtpPort, { to: ib.address, subject: 'hello', html: '<p>hi <img src="x.png"></p>' });
  const id = /stored as (msg_\w+)/.exec(r.response)![1]!;
  const byId = await check([id, '--inbox', ib.address, '--checks', 'html', '--fail-on', 'a11y.rule.img-missing-alt>0']);
  assert.equal(byId.code, 1, byId.stderr);
  assert.match(byId.stdout, /a11y: failed/, 'a check named in --fail-on runs even when --checks left it out');
  const status = await check([id, '--inbox', ib.inboxId, '--fail-on', 'text.status!=passed']);
  assert.equal(status.code, 0, status.stderr + status.stdout);

  const waiting = check(['--inbox', ib.inboxId, '--wait', '--timeout', '30', '--checks', 'html', '--format', 'json']);
  // Mail sent once the command is waiting (a message from before it started is not "the next one").
  while (listenerCount(s, ib.inboxId) === 0) await new Promise((res) => setTimeout(res, 50));
  await sendMail(s.server.smtpPort, { to: ib.address, subject: 'later', html: CLEAN_HTML });
  const w = await waiting;
  assert.equal(w.code, 0, w.stderr);
  assert.notEqual(JSON.parse(w.stdout).messageId, id);
});
const CLEAN_HTML = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>x</title></head><body><p>ok</p></body></html>';

test('JUnit output is well-formed with testsuites, testcase and failure', async () => {
  const r = await check([file('junit.eml', BAD), '--format', 'junit', '--fail-on', 'html.errors>0']);
  assert.equal(r.code, 1);
  const doc = wellFormed(r.stdout);
  assert.equal(doc.root, 'testsuites');
  const suites = doc.elements.filter((e) => e.name === 'testsuite');
  assert.ok(suites.length >= 3, 'a suite per check plus fail-on');
  const cases = doc.elements.filter((e) => e.name === 'testcase');
  assert.ok(cases.some((c) => c.attrs.name === 'html.missing-cid-part'));
  const failures = doc.elements.filter((e) => e.name === 'failure');
  assert.ok(failures.length >= 2);
  const top = doc.elements[0]!.attrs;
  assert.equal(Number(top.tests), cases.length);
  assert.equal(Number(top.failures), failures.length);
});

test('SARIF output has the 2.1.0 shape with rules and regions', async () => {
  const r = await check([file('sarif.eml', BAD), '--format', 'sarif']);
  assert.equal(r.code, 1, 'without --fail-on a failed check fails');
  const sarif = JSON.parse(r.stdout);
  assert.equal(sarif.version, '2.1.0');
  assert.match(sarif.$schema, /sarif-2\.1\.0/);
  assert.equal(sarif.runs.length, 1);
  const run = sarif.runs[0];
  assert.equal(run.tool.driver.name, 'inboxd');
  const ruleIds = new Set(run.tool.driver.rules.map((x: { id: string }) => x.id));
  assert.ok(run.results.length > 0);
  for (const res of run.results) {
    assert.ok(ruleIds.has(res.ruleId), `rule ${res.ruleId} is described`);
    assert.ok(['error', 'warning', 'note', 'none'].includes(res.level));
    assert.equal(typeof res.message.text, 'string');
    for (const loc of res.locations ?? []) {
      assert.equal(typeof loc.physicalLocation.artifactLocation.uri, 'string');
      if (loc.physicalLocation.region) assert.ok(loc.physicalLocation.region.startLine >= 1);
    }
  }
  const cid = run.results.find((x: { ruleId: string }) => x.ruleId === 'html/missing-cid-part');
  assert.deepEqual(cid.locations[0].physicalLocation.region, { startLine: 2, startColumn: 6 });
});

test('exit 2 for an unknown metric, a bad term and an unreachable server; exit 3 when nothing arrives', async () => {
  const f = file('m.eml', CLEAN);
  const typo = await check([f, '--fail-on', 'html.erors>0']);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /unknown metric html\.erors \(did you mean html\.errors\?\)/);
  const notRun = await check([f, '--checks', 'html', '--fail-on', 'spem.score>=5']);
  assert.equal(notRun.code, 2);
  assert.match(notRun.stderr, /spem/);
  const bad = await check([f, '--fail-on', 'html.errors']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /is not metric op value/);
  const gone = await check([f], { INBOXD_URL: 'http://127.0.0.1:9', INBOXD_KEY: s.key });
  assert.equal(gone.code, 2, gone.stderr);
  const ib = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
  const none = await check(['--inbox', ib.inboxId, '--wait', '--timeout', '1']);
  assert.equal(none.code, 3, none.stderr);
});
