// Pure parts of the spam check: the SPAMC reply parser, the environmental rule lists, the built-in content lint.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { builtinLint } from '../../src/checks/spam/builtin.ts';
import { isEnvironmental } from '../../src/checks/spam/environmental.ts';
import { createSpamCheck } from '../../src/checks/spam/index.ts';
import { parseHostPort, parseSpamdReply } from '../../src/checks/spam/spamd.ts';
import type { CheckInput } from '../../src/checks/types.ts';
import { parseMessage } from '../../src/mail/parse.ts';

// A REPORT answer as Debian spamd 4.0.1 gives it (wrapped description included).
const REPLY = [
  'SPAMD/1.1 0 EX_OK',
  'Content-length: 600',
  'Spam: True ; 16.5 / 5.0',
  '',
  'Spam detection software, running on the system "vm",',
  '',
  'Content analysis details:   (16.5 points, 5.0 required)',
  '',
  ' pts rule name              description',
  '---- ---------------------- --------------------------------------------------',
  '-0.0 NO_RECEIVED            Informational: message has no Received headers',
  " 2.7 DEAR_FRIEND            BODY: Dear Friend? That's not very dear!",
  ' 1.0 US_DOLLARS_3           BODY: Mentions millions of $ ($NN,NNN,NNN.NN)',
  '                            [score: 1.0000]',
  '1000 GTUBE                  BODY: Generic Test for Unsolicited Bulk Email',
  '',
].join('\r\n');

async function input(raw: string): Promise<CheckInput> {
  const buf = Buffer.from(raw);
  const parsed = await parseMessage(buf);
  return {
    raw: buf,
    parsed,
    html: parsed.html,
    text: parsed.text,
    facts: null,
    options: { clients: [], links: { mode: 'static', includeVerificationLinks: false } },
    signal: new AbortController().signal,
  };
}

describe('spamd reply', () => {
  test('verdict, score, threshold and the rule table (wrapped descriptions joined)', () => {
    const v = parseSpamdReply(REPLY);
    assert.equal(v.isSpam, true);
    assert.equal(v.score, 16.5);
    assert.equal(v.threshold, 5);
    assert.deepEqual(
      v.rules.map((r) => [r.name, r.score]),
      [
        ['NO_RECEIVED', -0],
        ['DEAR_FRIEND', 2.7],
        ['US_DOLLARS_3', 1],
        ['GTUBE', 1000],
      ],
    );
    assert.equal(v.rules[2]!.description, 'BODY: Mentions millions of $ ($NN,NNN,NNN.NN) [score: 1.0000]');
  });

  test('a refusal or a non-SPAMC answer is an engine error, not a verdict', () => {
    assert.throws(() => parseSpamdReply('SPAMD/1.0 76 Bad header line\r\n\r\n'), /refused the message: 76/);
    assert.throws(() => parseSpamdReply('HTTP/1.1 400 Bad Request\r\n\r\n'), /SPAMC protocol/);
  });

  test('host:port', () => {
    assert.deepEqual(parseHostPort('127.0.0.1:7830', 783), { host: '127.0.0.1', port: 7830 });
    assert.deepEqual(parseHostPort('spamd', 783), { host: 'spamd', port: 783 });
    assert.deepEqual(parseHostPort('[::1]:783', 1), { host: '::1', port: 783 });
    assert.equal(parseHostPort('a:99999', 1), null);
  });
});

test('environmental rules per engine', () => {
  for (const r of ['RDNS_NONE', 'NO_RECEIVED', 'NO_RELAYS', 'RCVD_IN_DNSWL_BLOCKED']) assert.ok(isEnvironmental('spamd', r), r);
  for (const r of ['RDNS_NONE', 'RCVD_COUNT_ZERO', 'HFILTER_HELO_IP_A', 'SEM_URIBL_UNKNOWN_FAIL', 'RSPAMD_URIBL_FAIL', 'ARC_NA'])
    assert.ok(isEnvironmental('rspamd', r), r);
  for (const r of ['MISSING_MID', 'SUBJ_ALL_CAPS', 'GTUBE', 'DEAR_FRIEND']) {
    assert.equal(isEnvironmental('spamd', r), false, r);
    assert.equal(isEnvironmental('rspamd', r), false, r);
  }
});

describe('built-in lint (no daemon)', () => {
  test('an image-only HTML mail with a shouting subject and a shortened link is spam by the lint', async () => {
    const r = await createSpamCheck({ timeoutMs: 1000 }).run(
      await input(
        'From: a@example.com\r\nSubject: HUGE SALE TODAY ONLY!!!\r\nContent-Type: text/html\r\n\r\n<a href="https://bit.ly/x"><img src="https://example.com/sale.png"></a>\r\n',
      ),
    );
    assert.equal(r.meta?.engine, 'builtin');
    assert.deepEqual((r.meta!.rules as string[]).sort(), [
      'IMAGE_ONLY',
      'NO_TEXT_PART',
      'SHORTENED_LINKS',
      'SHOUTING_SUBJECT',
      'SUBJECT_EXCLAMATIONS',
    ]);
    assert.equal(r.score, 7);
    assert.equal(r.status, 'failed');
    assert.equal(r.findings[0]!.rule, 'spam-verdict');
  });

  test('a plain transactional mail has no findings', async () => {
    const i = await input('From: a@example.com\r\nSubject: Your code\r\n\r\nYour code is 123456.\r\n');
    assert.deepEqual(builtinLint(i), []);
    const r = await createSpamCheck({ timeoutMs: 1000 }).run(i);
    assert.equal(r.status, 'passed');
    assert.equal(r.score, 0);
  });
});

test('the lint stays linear on hostile HTML (thousands of unclosed <style> tags)', async () => {
  const html = `<p>${'<style x '.repeat(100_000)}</p>`;
  const i = await input(`From: a@example.com\r\nSubject: s\r\nContent-Type: text/html\r\n\r\n${html}\r\n`);
  const t0 = performance.now();
  builtinLint(i);
  assert.ok(performance.now() - t0 < 1000, `${Math.round(performance.now() - t0)} ms`);
});
