// The spam check against real daemons started on loopback by the test: SpamAssassin's spamd (SPAMC protocol) and
// rspamd (/checkv2): a spammy mail (GTUBE, and a realistic one) scores above the engine's threshold with rule names,
// a clean one below; environmental rules are tagged; a daemon that is down makes the check `error` with a reason
// naming the address and the flag while the other checks (auth here) still answer.
// not @cluster: no inboxd server; the checks are called directly on real daemons
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { freePort } from '../../../scripts/bench/lib.ts';
import { createAuthCheck } from '../../../src/checks/auth/index.ts';
import { createSpamCheck } from '../../../src/checks/spam/index.ts';
import type { CheckInput, CheckResult } from '../../../src/checks/types.ts';
import { parseMessage } from '../../../src/mail/parse.ts';
import { type Rspamd, rspamdMissing, startRspamd } from '../../helpers/rspamd.ts';
import { type Spamd, spamdMissing, startSpamd } from '../../helpers/spamd.ts';

const GTUBE = `From: a@example.com\r\nTo: b@example.org\r\nSubject: test\r\nDate: Fri, 27 Nov 2026 07:00:00 +0000\r\nMessage-ID: <g@example.com>\r\n\r\nXJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X\r\n`;

const SPAMMY = `From: "WINNER NOTIFICATION" <winner@lottery-prize.example>\r
To: victim@example.org\r
Subject: CONGRATULATIONS!!! YOU HAVE WON $1,000,000 USD CLAIM NOW\r
MIME-Version: 1.0\r
Content-Type: text/html; charset=utf-8\r
\r
<html><body><p><b>DEAR FRIEND,</b></p><p>You have been selected to receive <b>$1,000,000 USD</b>. 100% FREE, GUARANTEED, NO RISK! Act now, limited time offer. Click here to claim your prize: <a href="http://bit.ly/claim-prize">http://bit.ly/claim-prize</a></p><p>Send your bank account details and password to claim. Viagra cialis cheap meds online pharmacy. Make money fast, work from home, earn $5000 weekly!</p><img src="http://lottery-prize.example/banner.jpg"></body></html>\r
`;

const CLEAN = `From: Alice Example <alice@example.com>\r
To: bob@example.org\r
Subject: Your password reset code\r
Date: Fri, 27 Nov 2026 07:00:00 +0000\r
Message-ID: <abc123@example.com>\r
MIME-Version: 1.0\r
Content-Type: text/plain; charset=utf-8\r
\r
Hello Bob,\r
\r
Your password reset code is 482913. It expires in 15 minutes.\r
\r
If you did not ask for it, you can ignore this mail.\r
\r
Alice\r
`;

async function input(raw: string): Promise<CheckInput> {
  const buf = Buffer.from(raw);
  const parsed = await parseMessage(buf);
  return {
    raw: buf,
    parsed,
    html: parsed.html,
    text: parsed.text,
    facts: {
      clientIp: '127.0.0.1',
      helo: 'client.example.com',
      mailFrom: 'a@example.com',
      tls: false,
      authUser: null,
      receivedAt: new Date().toISOString(),
    },
    options: { clients: [], links: { mode: 'static', includeVerificationLinks: false } },
    signal: AbortSignal.timeout(30_000),
  };
}

function assertSpam(r: CheckResult, engine: string): void {
  assert.equal(r.status, 'failed', JSON.stringify(r.meta));
  assert.equal(r.meta?.engine, engine);
  assert.equal(r.meta?.isSpam, true);
  assert.ok((r.score ?? 0) >= (r.meta?.threshold as number), `score ${r.score} ≥ threshold ${r.meta?.threshold}`);
  assert.equal(r.findings[0]?.rule, 'spam-verdict');
}

function assertClean(r: CheckResult, engine: string): void {
  assert.equal(r.status, 'passed', JSON.stringify(r.meta));
  assert.equal(r.meta?.engine, engine);
  assert.equal(r.meta?.isSpam, false);
  assert.ok((r.score ?? 0) < (r.meta?.threshold as number));
}

const spamdSkip = spamdMissing();
describe('spamd', { skip: spamdSkip ?? false }, () => {
  let d: Spamd;
  before(async () => {
    d = await startSpamd();
  });
  after(async () => {
    await d?.stop();
  });

  test('GTUBE and a realistic spammy mail score above spamd’s threshold with rule names; a clean one below', async () => {
    const check = createSpamCheck({ spamd: d.address, timeoutMs: 20_000 });
    const gtube = await check.run(await input(GTUBE));
    assertSpam(gtube, 'spamd');
    assert.equal(gtube.meta?.threshold, 5);
    assert.ok((gtube.meta!.rules as string[]).includes('GTUBE'));

    const spammy = await check.run(await input(SPAMMY));
    assertSpam(spammy, 'spamd');
    const rules = spammy.meta!.rules as string[];
    assert.ok(rules.includes('DEAR_FRIEND') || rules.includes('SUBJ_ALL_CAPS'), rules.join(','));
    const rule = spammy.findings.find((f) => f.rule === 'DEAR_FRIEND' || f.rule === 'SUBJ_ALL_CAPS')!;
    assert.ok(rule.detail.length > 3, 'each rule has its description');

    const clean = await check.run(await input(CLEAN));
    assertClean(clean, 'spamd');
    // Loopback has no Received chain: NO_RECEIVED/NO_RELAYS are tagged environmental.
    const env = clean.findings.filter((f) => f.tags?.includes('environmental')).map((f) => f.rule);
    assert.ok(env.includes('NO_RECEIVED') || env.includes('NO_RELAYS'), JSON.stringify(clean.findings));
    assert.equal(typeof clean.meta?.scoreWithoutEnvironmental, 'number');
  });
});

const rspamdSkip = rspamdMissing();
describe('rspamd', { skip: rspamdSkip ?? false }, () => {
  let r: Rspamd;
  before(async () => {
    r = await startRspamd();
  });
  after(async () => {
    await r?.stop();
  });

  test('GTUBE and a realistic spammy mail score above rspamd’s threshold with rule names; a clean one below', async () => {
    const check = createSpamCheck({ rspamd: r.url, timeoutMs: 20_000 });
    const gtube = await check.run(await input(GTUBE));
    assertSpam(gtube, 'rspamd');
    assert.ok((gtube.meta!.rules as string[]).includes('GTUBE'));

    const spammy = await check.run(await input(SPAMMY));
    assertSpam(spammy, 'rspamd');
    // The controller's /actions: the `add header` score is the threshold, not the reject score (15).
    assert.equal(spammy.meta?.threshold, 6);
    assert.ok((spammy.meta!.rules as string[]).includes('SUBJ_ALL_CAPS'), String(spammy.meta?.rules));
    assert.ok(spammy.findings.find((f) => f.rule === 'SUBJ_ALL_CAPS')!.detail.length > 3);

    const clean = await check.run(await input(CLEAN));
    assertClean(clean, 'rspamd');
    const env = clean.findings.filter((f) => f.tags?.includes('environmental')).map((f) => f.rule);
    assert.ok(env.includes('RCVD_COUNT_ZERO'), JSON.stringify(clean.findings));
  });
});

describe('daemon down', () => {
  test('spamd and rspamd unreachable: spam is `error` naming the address and the flag; auth still answers', async () => {
    // A port that was free a moment ago and is closed now: connections are refused.
    const port = await freePort();
    const auth = createAuthCheck({ dnsServer: '127.0.0.1:9', dnsTimeoutMs: 200 });
    for (const [flag, check] of [
      ['--spamd', createSpamCheck({ spamd: `127.0.0.1:${port}`, timeoutMs: 2000 })],
      ['--rspamd', createSpamCheck({ rspamd: `http://127.0.0.1:${port}`, timeoutMs: 2000 })],
    ] as const) {
      const i = await input(CLEAN);
      const [spam, a] = await Promise.all([check.run(i), auth.run(i)]);
      assert.equal(spam.status, 'error');
      assert.match(spam.reason ?? '', new RegExp(`127\\.0\\.0\\.1:${port}.*\\(${flag}\\).*(ECONNREFUSED|reached)`));
      assert.notEqual(a.status, 'error');
      assert.equal(a.meta?.spf, 'temperror');
    }
  });

  test('a daemon that accepts but never answers: error after --spam-timeout-ms', async () => {
    const silent = net.createServer(() => undefined);
    await new Promise<void>((res) => silent.listen(0, '127.0.0.1', () => res()));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const t0 = Date.now();
      const r = await createSpamCheck({ spamd: `127.0.0.1:${port}`, timeoutMs: 300 }).run(await input(CLEAN));
      assert.equal(r.status, 'error');
      assert.match(r.reason ?? '', /did not answer within 300 ms \(--spam-timeout-ms\)/);
      assert.ok(Date.now() - t0 < 3000);
    } finally {
      silent.close();
    }
  });
});
