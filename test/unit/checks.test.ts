// The check engine's pure parts: per-check budgets and isolation, the static checks' rules on small inputs, bounded
// findings, and the --fail-on grammar over a report.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runA11y } from '../../src/checks/a11y/index.ts';
import { CheckEngine } from '../../src/checks/engine.ts';
import { evaluateFailOn, FailOnError, metricsOf, parseFailOn } from '../../src/checks/fail-on.ts';
import { GMAIL_CLIP_BYTES, runHtml } from '../../src/checks/html/index.ts';
import { PURE_CHECKS } from '../../src/checks/pure.ts';
import type { CheckReport } from '../../src/checks/report.ts';
import { runText } from '../../src/checks/text/index.ts';
import type { CheckDef, CheckInput } from '../../src/checks/types.ts';
import { parseMessage } from '../../src/mail/parse.ts';

const OPTIONS = { clients: [], links: { mode: 'static' as const, includeVerificationLinks: false } };

async function inputOf(html: string | null, text: string | null = null, extra = ''): Promise<CheckInput> {
  const parts: string[] = [];
  if (text !== null) parts.push(`Content-Type: text/plain; charset=utf-8\r\n\r\n${text}`);
  if (html !== null) parts.push(`Content-Type: text/html; charset=utf-8\r\n\r\n${html}`);
  const raw = Buffer.from(
    `From: a@x.test\r\nTo: b@x.test\r\nSubject: t\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n${parts.map((p) => `--b\r\n${p}\r\n`).join('')}${extra}--b--\r\n`,
  );
  const parsed = await parseMessage(raw);
  return { raw, parsed, html: parsed.html, text: parsed.text, facts: null, options: OPTIONS, signal: new AbortController().signal };
}

test('engine: a check over its budget answers error, one that throws answers error, the others still answer', async () => {
  let sawAbort = false;
  const slow: CheckDef = {
    name: 'slow',
    description: 'never ends',
    run: (i) =>
      new Promise(() => {
        i.signal.addEventListener('abort', () => (sawAbort = true));
      }),
  };
  const broken: CheckDef = { name: 'broken', description: 'throws', run: async () => Promise.reject(new Error('daemon down')) };
  const engine = new CheckEngine({ checks: [...PURE_CHECKS, slow, broken], pure: new Set(), timeoutMs: 100 });
  const input = await inputOf('<p>hi</p>', 'hi');
  const r = await engine.run(
    { messageId: 'msg_x', raw: input.raw, parsed: input.parsed, facts: null, options: OPTIONS },
    ['html', 'slow', 'broken'],
    new AbortController().signal,
  );
  assert.equal(r.checks.slow!.status, 'error');
  assert.match(r.checks.slow!.reason!, /took more than its budget of 100 ms \(--check-timeout-ms\)/);
  assert.ok(sawAbort, 'the check was told to stop');
  assert.equal(r.checks.broken!.status, 'error');
  assert.match(r.checks.broken!.reason!, /daemon down/);
  assert.notEqual(r.checks.html!.status, 'error');
  assert.equal(r.summary.status, 'error');
  assert.equal(r.summary.checks.error, 2);
  assert.match(r.dataVersion, /^engine@1,html@1,slow@0,broken@0$/);
});

test('html: Gmail clipping, heavy data: URIs, cid: without a part, charset, capped findings', async () => {
  const big = `<html><head><meta charset="utf-8"></head><body>${'<p>x</p>\n'.repeat(Math.ceil(GMAIL_CLIP_BYTES / 9) + 10)}</body></html>`;
  const r = runHtml(await inputOf(big, 'x'));
  const clip = r.findings.find((f) => f.rule === 'gmail-clipping');
  assert.equal(clip?.severity, 'error');
  assert.ok(clip!.location!.line! > 11_000, 'points at the line where the clip falls');
  assert.equal(r.meta!.clipped, true);

  const ids = Array.from({ length: 60 }, () => '<p id="same">x</p>').join('');
  const data = `<img src="data:image/png;base64,${'A'.repeat(9000)}" alt="">`;
  const r2 = runHtml(await inputOf(`<html><body>${ids}${data}<img src="cid:nope@x" alt=""></body></html>`, 'x'));
  const dup = r2.findings.filter((f) => f.rule === 'duplicate-id');
  assert.equal(dup.length, 51, '50 kept and one "and N more"');
  assert.match(dup.at(-1)!.title, /^and 9 more/);
  assert.equal(r2.meta!.duplicateIds, 59);
  assert.ok(r2.findings.some((f) => f.rule === 'heavy-data-uri'));
  assert.ok(r2.findings.some((f) => f.rule === 'missing-cid-part' && f.severity === 'error'));
  assert.ok(r2.findings.some((f) => f.rule === 'missing-charset'));
  assert.equal(r2.status, 'failed');
  assert.equal((await inputOf(null, 'only text')).html, null);
  assert.equal(runHtml(await inputOf(null, 'only text')).status, 'skipped');
});

test('a11y: alt, decorative images, layout tables, heading order, link text, inline contrast', async () => {
  const html = `<html lang="en"><head><title>T</title></head><body>
<h1>A</h1><h3>C</h3>
<img src="a.png"><img src="spacer.gif" alt=""><img src="p.gif" width="1" height="1"><img src="x.png" alt="logo_final.png">
<table><tr><td>layout</td></tr></table><table><tr><th>h</th></tr></table><table role="presentation"><tr><td>ok</td></tr></table>
<a href="https://x.test">Click here</a> <a href="https://x.test/a"><img src="b.png" alt="Open your account"></a> <a href="https://x.test/b"></a>
<p style="color:#999999;background-color:#ffffff">light grey on white</p><p style="color:#000;background-color:#fff">fine</p>
</body></html>`;
  const r = runA11y(await inputOf(html, 'x'));
  const rules = r.findings.map((f) => `${f.rule}:${f.severity}:${f.location?.line}`);
  assert.deepEqual(rules.sort(), [
    'heading-order:warning:2',
    'img-alt-filename:warning:3',
    'img-missing-alt:error:3',
    'img-missing-alt:warning:3',
    'layout-table-role:warning:4',
    'link-no-text:error:5',
    'low-contrast:error:6',
    'vague-link-text:warning:5',
  ]);
  assert.match(r.findings.find((f) => f.rule === 'low-contrast')!.title, /^Contrast 2\.85:1 \(needs 4\.5:1\)$/);
});

test('text: a missing part, missing links, and word overlap in both directions', async () => {
  const html =
    '<html><body><p>Reset your password for Acme</p><a href="https://acme.test/reset">Reset</a> <a href="https://acme.test/help#x">Help</a></body></html>';
  assert.equal(runText(await inputOf(html)).findings[0]!.rule, 'missing-text-part');
  const same = runText(await inputOf(html, 'Reset your password for Acme: https://acme.test/reset\nHelp: https://acme.test/help/'));
  assert.deepEqual(same.findings, []);
  assert.equal(same.meta!.overlap, 1);
  const stale = runText(await inputOf(html, 'View this email in your browser.'));
  assert.deepEqual(stale.findings.map((f) => f.rule).sort(), ['content-differs', 'missing-link', 'missing-link']);
});

const REPORT: CheckReport = {
  messageId: 'msg_1',
  contentHash: 'x',
  dataVersion: 'engine@1',
  checkedAt: '2026-01-01T00:00:00Z',
  options: { checks: ['html', 'auth'], clients: [], links: { mode: 'static', includeVerificationLinks: false } },
  checks: {
    html: {
      status: 'failed',
      durationMs: 3,
      findings: [
        { check: 'html', rule: 'script', severity: 'error', title: 't', detail: 'd' },
        { check: 'html', rule: 'missing-charset', severity: 'warning', title: 't', detail: 'd' },
      ],
      meta: { htmlBytes: 1200, clipped: false },
    },
    auth: { status: 'passed', durationMs: 1, findings: [], meta: { dkim: 'pass', spf: { result: 'softfail' }, domains: ['a', 'b'] } },
    spam: { status: 'error', reason: 'spamd at 127.0.0.1:783 refused the connection', durationMs: 1, findings: [] },
  },
  summary: {
    status: 'failed',
    errors: 1,
    warnings: 1,
    info: 0,
    findings: 2,
    checks: { passed: 1, failed: 1, skipped: 0, error: 1 },
    durationMs: 5,
  },
};

test('--fail-on: numbers, strings, nested meta, rule counts; any term fails the build', () => {
  const m = metricsOf(REPORT);
  assert.equal(m.get('auth.spf.result'), 'softfail');
  assert.equal(m.get('auth.domains.length'), 2);
  assert.equal(m.get('html.clipped'), 'false');
  const v = evaluateFailOn(parseFailOn('html.errors>0, auth.dkim!=pass, auth.spf.result == "softfail", html.rule.base>0'), REPORT);
  assert.deepEqual(
    v.terms.map((t) => [t.term.source, t.actual, t.failed]),
    [
      ['html.errors>0', 1, true],
      ['auth.dkim!=pass', 'pass', false],
      ['auth.spf.result == "softfail"', 'softfail', true],
      ['html.rule.base>0', 0, false],
    ],
  );
  assert.equal(v.failed, true);
  assert.equal(evaluateFailOn(parseFailOn('html.htmlBytes>=102400,summary.errors>5'), REPORT).failed, false);
});

test('--fail-on refuses what it cannot evaluate, with a reason', () => {
  const bad = (expr: string, re: RegExp) =>
    assert.throws(
      () => evaluateFailOn(parseFailOn(expr), REPORT),
      (e: Error) => e instanceof FailOnError && re.test(e.message),
    );
  bad('html.erors>0', /unknown metric html\.erors \(did you mean html\.errors\?\)/);
  bad('htlm.errors>0', /the htlm check was not run \(did you mean html\?\)/);
  bad('spam.score>=5', /the spam check answered error \(spamd at 127\.0\.0\.1:783 refused the connection\)/);
  bad('auth.dkim>pass', /> needs a number/);
  bad('html.errors', /is not metric op value/);
  bad('process.exit(1)>0', /is not metric op value/);
  bad('', /--fail-on is empty/);
  bad('auth.dkim>=1', /the metric is 'pass', not a number/);
});
