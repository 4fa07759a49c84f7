// Message checks (issue 28) over the real HTTP API, SMTP and MCP: a stored message with known problems gets findings
// with line and column, the last report is kept (404 before), the same content answers from the cache, supplied mail
// (.eml or HTML) is checked without sending, an inbox created with `checks` runs them on arrival and reports
// message.checked on SSE and to its callback, MCP answers svc_check_message and svc_explain_finding, and the
// findings are counted in /metrics.
// @cluster
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { json } from '../../helpers/http.ts';
import { callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { parsePrometheus, sampleValue } from '../../helpers/prom.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--allow-http-callbacks', '--allow-private-callbacks']);
});
after(async () => {
  await s.stop();
});

// Line 1: <html>…; line 3: the <img> without alt and with a cid: that no part has; line 4: the script; line 5: a
// duplicate id; the text part leaves out the /reset link.
const BAD_HTML = [
  '<!doctype html><html><head><meta charset="utf-8"><title>Reset</title></head>',
  '<body><h1>Reset your password</h1>',
  '<p id="x"><img src="cid:logo@acme.test" width="120"></p>',
  '<script>track()</script>',
  '<p id="x"><a href="https://acme.test/reset?t=1">click here</a></p>',
  '</body></html>',
].join('\n');
const GOOD_HTML = [
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Welcome</title></head>',
  '<body><h1>Welcome to Acme</h1><p>Your account is ready. <a href="https://acme.test/start">Open your dashboard</a></p></body></html>',
].join('\n');
const GOOD_TEXT = 'Welcome to Acme\n\nYour account is ready. Open your dashboard: https://acme.test/start\n';

async function inbox(body: Record<string, unknown> = {}) {
  return json(await s.api('/v1/inboxes', { method: 'POST', json: body }), 201);
}

async function deliver(address: string, mail: { html: string; text?: string; subject?: string }): Promise<string> {
  const r = await sendMail(s.server.smtpPort, { to: address, subject: mail.subject ?? 'check me', html: mail.html, text: mail.text });
  return /stored as (msg_\w+)/.exec(r.response)![1]!;
}

test('a stored message: findings with line and column, last report kept, same content from the cache', async () => {
  const ib = await inbox();
  const id = await deliver(ib.address, { html: BAD_HTML, text: 'Reset your password.' });
  const base = `/v1/inboxes/${ib.inboxId}/messages/${id}/checks`;

  const none = await s.api(base);
  assert.equal(none.status, 404);
  assert.match((await none.json()).detail, /no checks have run on msg_\w+ yet: POST .*\/checks runs them/);

  const r = await json(await s.api(base, { method: 'POST', json: { checks: ['html', 'a11y', 'text'] } }));
  assert.equal(r.messageId, id);
  assert.match(r.contentHash, /^[0-9a-f]{64}$/);
  assert.deepEqual(Object.keys(r.checks), ['html', 'a11y', 'text']);
  assert.equal(r.summary.status, 'failed');
  const find = (check: string, rule: string) => r.checks[check].findings.find((f: { rule: string }) => f.rule === rule);
  assert.deepEqual(find('html', 'missing-cid-part')?.location, { part: 'html', line: 3, column: 16, selector: 'p#x > img' });
  assert.equal(find('html', 'script')?.location.line, 4);
  assert.equal(find('html', 'duplicate-id')?.location.line, 5);
  assert.equal(find('html', 'missing-charset'), undefined, 'the charset is declared');
  assert.equal(find('a11y', 'img-missing-alt')?.location.line, 3);
  assert.equal(find('a11y', 'vague-link-text')?.location.line, 5);
  assert.equal(find('a11y', 'missing-lang')?.severity, 'warning');
  assert.equal(find('text', 'missing-link')?.evidence, 'https://acme.test/reset?t=1');
  assert.equal(r.checks.html.status, 'failed');
  assert.ok(r.checks.html.durationMs >= 0);

  const again = await json(await s.api(base, { method: 'POST', json: { checks: ['html', 'a11y', 'text'] } }));
  assert.equal(again.cached, true, 'the same content under the same versions and options comes from the cache');
  assert.deepEqual(again.checks, r.checks);

  const last = await json(await s.api(base));
  assert.deepEqual(last.checks, r.checks);

  // Another recipient's copy of the same bytes shares the cache; a clean mail passes.
  const clean = await deliver(ib.address, { html: GOOD_HTML, text: GOOD_TEXT, subject: 'Welcome' });
  const ok = await json(
    await s.api(`/v1/inboxes/${ib.inboxId}/messages/${clean}/checks`, { method: 'POST', json: { checks: ['html', 'a11y', 'text'] } }),
  );
  assert.equal(ok.summary.status, 'passed', JSON.stringify(ok.checks, null, 1));
  assert.equal(ok.summary.errors, 0);
  // No list runs every check: compat, links, auth and spam too (the built-in spam lint: no daemon here).
  const all = await json(await s.api(`/v1/inboxes/${ib.inboxId}/messages/${clean}/checks`, { method: 'POST', json: {} }));
  assert.deepEqual(Object.keys(all.checks), ['compat', 'html', 'a11y', 'text', 'links', 'auth', 'spam']);
  assert.equal(all.checks.spam.meta.engine, 'builtin');
  assert.equal(all.checks.auth.meta.spf === undefined, false, 'SPF was judged from the SMTP session facts');
  assert.equal(
    all.checks.compat.findings
      .filter((f: { rule: string }) => f.rule === 'html-lang' || f.rule === 'html-doctype')
      .every((f: { severity: string }) => f.severity === 'info'),
    true,
  );
});

test('unknown check names are refused with the nearest name; unknown messages are 404', async () => {
  const ib = await inbox();
  const id = await deliver(ib.address, { html: GOOD_HTML });
  const bad = await s.api(`/v1/inboxes/${ib.inboxId}/messages/${id}/checks`, { method: 'POST', json: { checks: ['htlm'] } });
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).detail, /no check named 'htlm' \(did you mean html\?\)/);
  const create = await s.api('/v1/inboxes', { method: 'POST', json: { checks: ['a11yy'] } });
  assert.equal(create.status, 400);
  assert.match((await create.json()).detail, /did you mean a11y/);
  const missing = await s.api(`/v1/inboxes/${ib.inboxId}/messages/msg_nope/checks`, { method: 'POST', json: {} });
  assert.equal(missing.status, 404);
});

test('POST /v1/checks: supplied HTML (JSON) and a .eml, nothing stored', async () => {
  const byHtml = await json(await s.api('/v1/checks', { method: 'POST', json: { html: BAD_HTML, checks: ['html', 'text'] } }));
  assert.equal(byHtml.messageId, null);
  assert.equal(byHtml.checks.html.status, 'failed');
  assert.ok(byHtml.checks.text.findings.some((f: { rule: string }) => f.rule === 'missing-text-part'));

  const eml = `From: a@acme.test\r\nTo: b@acme.test\r\nSubject: x\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${GOOD_HTML}\r\n`;
  const res = await s.api('/v1/checks?checks=html,a11y', { method: 'POST', body: eml, headers: { 'content-type': 'message/rfc822' } });
  const byEml = await json(res);
  assert.deepEqual(Object.keys(byEml.checks), ['html', 'a11y']);
  assert.equal(byEml.checks.html.status, 'passed');

  const notMail = await s.api('/v1/checks', { method: 'POST', body: 'just words', headers: { 'content-type': 'message/rfc822' } });
  assert.equal(notMail.status, 400);
  const empty = await s.api('/v1/checks', { method: 'POST', json: { text: 'no html' } });
  assert.equal(empty.status, 400);
});

test('an inbox with checks runs them on arrival: message.checked on SSE and to the callback', async () => {
  const bodies: string[] = [];
  const receiver = http.createServer((req, res) => {
    let b = '';
    req.on('data', (d) => (b += d));
    req.on('end', () => {
      bodies.push(b);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const ib = await inbox({ checks: ['html', 'a11y'], callbackUrl: url });
    assert.deepEqual(ib.checks, ['html', 'a11y']);
    const ac = new AbortController();
    const sse = await fetch(`${s.url}/v1/inboxes/${ib.inboxId}/events`, {
      headers: { authorization: `Bearer ${s.key}`, accept: 'text/event-stream' },
      signal: ac.signal,
    });
    const reader = sse.body!.getReader();
    const id = await deliver(ib.address, { html: BAD_HTML });
    let buf = '';
    const deadline = Date.now() + 15_000;
    while (!buf.includes('event: message.checked') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += new TextDecoder().decode(value);
    }
    ac.abort();
    const frame = buf.slice(buf.indexOf('event: message.checked')).split('\n\n')[0]!;
    const data = JSON.parse(
      frame
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    );
    assert.equal(data.messageId, id);
    assert.equal(data.checks.html.status, 'failed');
    assert.equal(data.summary.status, 'failed');
    assert.deepEqual(Object.keys(data.checks), ['html', 'a11y']);

    while (!bodies.some((b) => b.includes('"message.checked"')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const cb = JSON.parse(bodies.find((b) => b.includes('"message.checked"'))!);
    assert.equal(cb.type, 'message.checked');
    assert.equal(cb.data.messageId, id);
    assert.equal(cb.data.address, ib.address);
    assert.ok(
      bodies.some((b) => b.includes('"message.received"')),
      'the message.received callback still goes',
    );

    const last = await json(await s.api(`/v1/inboxes/${ib.inboxId}/messages/${id}/checks`));
    assert.deepEqual(last.options.checks, ['html', 'a11y']);
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
  }
});

test('MCP: svc_check_message, svc_check_html and svc_explain_finding', async () => {
  const ib = await inbox();
  const id = await deliver(ib.address, { html: BAD_HTML });
  const c = await mcpClient(s.url, s.key);
  try {
    const r = await callOk(c, 'svc_check_message', { inboxId: ib.inboxId, messageId: id, checks: ['html'] });
    assert.equal(r.checks.html.status, 'failed');
    const h = await callOk(c, 'svc_check_html', { html: GOOD_HTML, text: GOOD_TEXT, checks: ['text'] });
    assert.equal(h.checks.text.status, 'passed');
    const e = await callOk(c, 'svc_explain_finding', { check: 'html', rule: 'gmail-clipping' });
    assert.equal(e.known, true);
    assert.match(e.why, /102 KB/);
    assert.match(e.fix, /Shrink the HTML/);
  } finally {
    await c.close();
  }
  const unknown = await s.api('/v1/checks/html/rules/gmail-clip');
  assert.equal(unknown.status, 404);
  assert.match((await unknown.json()).detail, /did you mean gmail-clipping/);
  const list = await json(await s.api('/v1/checks'));
  assert.deepEqual(
    list.items.map((i: { name: string }) => i.name),
    ['compat', 'html', 'a11y', 'text', 'links', 'auth', 'spam'],
  );
});

test('findings are counted by check and severity in /metrics', async () => {
  // Metrics are per instance: every call goes to the first one (s.api takes turns on a cluster).
  const onFirst = (p: string, init: RequestInit = {}) =>
    fetch(s.url + p, { ...init, headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json', ...init.headers } });
  const before = parsePrometheus(await (await onFirst('/metrics')).text());
  const was = sampleValue(before, 'inboxd_check_findings_total', { check: 'html', severity: 'error' }) ?? 0;
  await json(await onFirst('/v1/checks', { method: 'POST', body: JSON.stringify({ html: BAD_HTML, checks: ['html'] }) }));
  const now = parsePrometheus(await (await onFirst('/metrics')).text());
  // Two errors: the cid: with no part and the script.
  assert.equal(sampleValue(now, 'inboxd_check_findings_total', { check: 'html', severity: 'error' }), was + 2);
});
