// Fault rules as real SMTP clients see them (nodemailer, Python smtplib): the configured codes at every stage, a 421
// rate limit (a token bucket), greylisting, seeded probability, local-part shortcuts, delays, throttling, the
// timeline and the metrics; and mail no rule matches is never touched.
// not @cluster: counters, token buckets and the greylist are kept per instance (README "Fault rules")
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { seededUnit } from '../../../src/faults/rules.ts';
import { type Json, json } from '../../helpers/http.ts';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';
import { sendMail, smtpDialogue } from '../../helpers/smtp.ts';

const PY = `
import json, smtplib, sys, time
port = int(sys.argv[1])
plan = json.loads(sys.argv[2])
out = []
for step in plan:
    t0 = time.time()
    try:
        s = smtplib.SMTP('127.0.0.1', port, timeout=20)
        code, msg = s.ehlo('client.test')
        if code >= 400:
            raise smtplib.SMTPResponseException(code, msg)
        body = 'From: %s\\r\\nTo: %s\\r\\nSubject: %s\\r\\n\\r\\nhello\\r\\n' % (step['from'], step['to'], step.get('subject', 'py'))
        s.sendmail(step['from'], [step['to']], body)
        s.quit()
        out.append({'ok': True})
    except smtplib.SMTPRecipientsRefused as e:
        code, msg = list(e.recipients.values())[0]
        out.append({'code': code, 'msg': msg.decode('utf-8', 'replace')})
    except smtplib.SMTPResponseException as e:
        msg = e.smtp_error.decode('utf-8', 'replace') if isinstance(e.smtp_error, bytes) else str(e.smtp_error)
        out.append({'code': e.smtp_code, 'msg': msg})
    except smtplib.SMTPServerDisconnected as e:
        out.append({'disconnected': True})
    out[-1]['ms'] = int((time.time() - t0) * 1000)
print(json.dumps(out))
`;

type PyResult = { ok?: true; code?: number; msg?: string; disconnected?: true; ms: number };

let pyFile = '';
function python(port: number, plan: Array<{ from?: string; to: string; subject?: string }>): Promise<PyResult[]> {
  const steps = plan.map((p) => ({ from: 'app@sender.example', ...p }));
  return new Promise((resolve, reject) =>
    execFile('python3', [pyFile, String(port), JSON.stringify(steps)], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as PyResult[]),
    ),
  );
}

/** nodemailer's outcome: 'ok' or the reply code (or 'dropped' when the connection went away without one). */
async function viaNodemailer(port: number, to: string, extra: Json = {}): Promise<'ok' | number | 'dropped'> {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, ...extra });
  try {
    await t.sendMail({ from: 'app@sender.example', to, subject: 'hello', text: 'hello' });
    return 'ok';
  } catch (e) {
    const err = e as { responseCode?: number; code?: string };
    if (err.responseCode) return err.responseCode;
    if (err.code === 'ECONNECTION' || err.code === 'ESOCKET' || err.code === 'ETIMEDOUT') return 'dropped';
    throw e;
  } finally {
    t.close();
  }
}

let s: TestServer;
let port: number;
/** The server's clock runs this far ahead: windows and greylist delays pass without sleeping. */
let offset = 0;
const put = async (rules: Json[], labelPrefix?: string) =>
  json(await s.api('/v1/faults', { method: 'PUT', json: { rules, ...(labelPrefix ? { labelPrefix } : {}) } }));
const putInbox = async (id: string, rules: Json[]) => json(await s.api(`/v1/inboxes/${id}/faults`, { method: 'PUT', json: { rules } }));
const inbox = async (body: Json = {}) => json(await s.api('/v1/inboxes', { method: 'POST', json: body }), 201);
const messages = async (id: string) => (await json(await s.api(`/v1/inboxes/${id}/messages`))).items as Json[];
const clearAll = async () => {
  await json(await s.api('/v1/faults', { method: 'DELETE' }));
};

before(async () => {
  s = await startTestServer([], {}, { clock: { now: () => Date.now() + offset } });
  port = s.server.smtpPort;
  pyFile = path.join(tempDir('inboxd-py-'), 'send.py');
  fs.writeFileSync(pyFile, PY);
});
after(async () => {
  await s.stop();
  fs.rmSync(path.dirname(pyFile), { recursive: true, force: true });
});

describe('each stage answers the configured code', () => {
  after(clearAll);
  const cases: Array<{ stage: string; code: number; enhanced: string; match?: Json; auth?: boolean }> = [
    { stage: 'connect', code: 554, enhanced: '5.3.2' },
    { stage: 'ehlo', code: 421, enhanced: '4.7.0' },
    { stage: 'auth', code: 454, enhanced: '4.7.0', auth: true },
    { stage: 'mail', code: 451, enhanced: '4.3.0', match: { sender: '*@sender.example' } },
    { stage: 'rcpt', code: 450, enhanced: '4.2.1' },
    { stage: 'data', code: 554, enhanced: '5.6.0' },
    { stage: 'end-of-data', code: 451, enhanced: '4.3.2' },
  ];
  for (const c of cases)
    test(`${c.stage}: nodemailer and smtplib see ${c.code} ${c.enhanced}`, async () => {
      const box = await inbox();
      await put([
        {
          stage: c.stage,
          ...(c.match ? { match: c.match } : {}),
          action: { type: 'reply', code: c.code, enhanced: c.enhanced, text: `no at ${c.stage}` },
        },
      ]);
      const auth = c.auth ? { auth: { user: 'app', pass: 'secret' } } : {};
      assert.equal(await viaNodemailer(port, box.address, auth), c.code);
      if (!c.auth) {
        const [r] = await python(port, [{ to: box.address }]);
        assert.equal(r!.code, c.code, JSON.stringify(r));
        assert.match(r!.msg!, new RegExp(`^${c.enhanced.replaceAll('.', '\\.')} no at ${c.stage}`));
      }
      assert.equal((await messages(box.inboxId)).length, 0, 'nothing stored');
      await clearAll();
      assert.equal(await viaNodemailer(port, box.address, auth), 'ok', 'cleared: delivered again');
    });

  test('disconnect at data: the client sees the connection drop, nothing is stored', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ stage: 'data', action: { type: 'disconnect' } }]);
    const [r] = await python(port, [{ to: box.address }]);
    assert.equal(r!.disconnected, true, JSON.stringify(r));
    assert.equal(await viaNodemailer(port, box.address), 'dropped');
    assert.equal((await messages(box.inboxId)).length, 0);
  });
});

describe('mail no rule matches is never affected', () => {
  after(clearAll);
  test('a global recipient glob, an inbox rule and a label-prefix rule leave other addresses alone', async () => {
    const hit = await inbox({ localPart: 'blocked-1' });
    const labelled = await inbox({ label: 'flaky-run' });
    const target = await inbox();
    const bystander = await inbox({ label: 'steady-run' });
    await put([{ stage: 'rcpt', match: { recipient: 'blocked-*@*' }, action: { type: 'reply', code: 550 } }]);
    await put([{ stage: 'rcpt', action: { type: 'reply', code: 452 } }], 'flaky-');
    await putInbox(target.inboxId, [{ stage: 'end-of-data', action: { type: 'reply', code: 554 } }]);
    assert.equal(await viaNodemailer(port, hit.address), 550);
    assert.equal(await viaNodemailer(port, labelled.address), 452);
    assert.equal(await viaNodemailer(port, target.address), 554);
    const results = await python(port, [{ to: bystander.address }, { to: 'someone-else@inboxd.test' }]);
    assert.deepEqual(
      results.map((r) => r.ok),
      [true, true],
    );
    assert.equal(await viaNodemailer(port, bystander.address), 'ok');
    assert.equal((await messages(bystander.inboxId)).length, 2);
    await json(await s.api('/v1/faults?labelPrefix=flaky-', { method: 'DELETE' }));
  });
});

describe('presets', () => {
  after(clearAll);
  test('a 421 rate limit lets N messages through per window and refuses the rest (smtplib)', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ action: { type: 'rate-limit', per: 'client', limit: 3, windowSeconds: 60 } }]);
    const first = await python(
      port,
      Array.from({ length: 5 }, () => ({ to: box.address })),
    );
    assert.deepEqual(
      first.map((r) => r.ok ?? r.code),
      [true, true, true, 421, 421],
    );
    assert.match(first[3]!.msg!, /^4\.7\.0 rate limit of 3 messages per 60 s reached; try again in \d+ s/);
    offset += 20_000; // a third of the window: one token back
    assert.deepEqual(
      (await python(port, [{ to: box.address }, { to: box.address }])).map((r) => r.ok ?? r.code),
      [true, 421],
    );
    offset += 60_000; // a whole window: the bucket is full again
    const second = await python(
      port,
      Array.from({ length: 4 }, () => ({ to: box.address })),
    );
    assert.deepEqual(
      second.map((r) => r.ok ?? r.code),
      [true, true, true, 421],
    );
    assert.equal((await messages(box.inboxId)).length, 7);
  });

  test('a rate limit per recipient counts each address on its own', async () => {
    const a = await inbox({ label: 'rl-a' });
    const b = await inbox({ label: 'rl-b' });
    await put([{ action: { type: 'rate-limit', per: 'recipient', limit: 1, windowSeconds: 60 } }], 'rl-');
    const r = await python(port, [{ to: a.address }, { to: a.address }, { to: b.address }, { to: b.address }]);
    assert.deepEqual(
      r.map((x) => x.ok ?? x.code),
      [true, 421, true, 421],
    );
    await json(await s.api('/v1/faults?labelPrefix=rl-', { method: 'DELETE' }));
  });

  test('a token bucket is exact under 12 parallel sessions', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ action: { type: 'rate-limit', per: 'recipient', limit: 4, windowSeconds: 600 } }]);
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => viaNodemailer(port, box.address)));
    assert.equal(outcomes.filter((o) => o === 'ok').length, 4, outcomes.join(','));
    assert.equal(outcomes.filter((o) => o === 421).length, 8, outcomes.join(','));
    assert.equal((await messages(box.inboxId)).length, 4);
  });

  test('greylisting answers 451 to the first try and accepts the retry after the delay', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ action: { type: 'greylist', retryAfterSeconds: 300 } }]);
    const r = await python(port, [{ to: box.address }, { to: box.address }]);
    assert.equal(r[0]!.code, 451);
    assert.match(r[0]!.msg!, /^4\.7\.1 greylisted: try again in 300 s/);
    assert.equal(r[1]!.code, 451, 'a retry too soon is still greylisted');
    offset += 300_000;
    const [retry, again] = await python(port, [{ to: box.address }, { to: box.address }]);
    assert.equal(retry!.ok, true, 'the retry after the delay is accepted');
    assert.equal(again!.ok, true, 'and the triple stays accepted');
    // Another sender is a new triple: greylisted again.
    const [other] = await python(port, [{ from: 'other@sender.example', to: box.address }]);
    assert.equal(other!.code, 451);
    assert.equal((await messages(box.inboxId)).length, 2);
  });

  test('mailbox full: 452 4.2.2 at rcpt, 552 5.2.2 when permanent', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ action: { type: 'mailbox-full' } }]);
    const [r] = await python(port, [{ to: box.address }]);
    assert.equal(r!.code, 452);
    assert.match(r!.msg!, /^4\.2\.2 mailbox full/);
    await putInbox(box.inboxId, [{ stage: 'end-of-data', action: { type: 'mailbox-full', permanent: true } }]);
    const [p] = await python(port, [{ to: box.address }]);
    assert.equal(p!.code, 552);
  });
});

describe('modes', () => {
  test('first N, then accepted: an app that retries gets through, and the timeline shows each try', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ action: { type: 'reply', code: 451 }, mode: { type: 'first', n: 2 }, stage: 'rcpt' }]);
    const outcomes: Array<'ok' | number | 'dropped'> = [];
    for (let i = 0; i < 3; i++) outcomes.push(await viaNodemailer(port, box.address));
    assert.deepEqual(outcomes, [451, 451, 'ok']);
    const tl = await json(await s.api(`/v1/inboxes/${box.inboxId}/timeline`));
    assert.deepEqual(
      tl.items.map((i: Json) => (i.type === 'fault' ? `${i.fault.stage} ${i.fault.code}` : 'message')),
      ['rcpt 451', 'rcpt 451', 'message'],
    );
    assert.equal(tl.items[0].fault.source, 'rule');
    assert.equal(tl.items[0].fault.recipient, box.address);
    assert.equal(tl.items[0].fault.client, '127.0.0.1');
    const listed = await json(await s.api(`/v1/inboxes/${box.inboxId}/faults`));
    assert.equal(listed.items[0].fired, 2);
  });

  test('every Nth', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ stage: 'rcpt', action: { type: 'reply', code: 450 }, mode: { type: 'every', n: 3 } }]);
    const r = await python(
      port,
      Array.from({ length: 7 }, () => ({ to: box.address })),
    );
    assert.deepEqual(
      r.map((x) => x.ok ?? x.code),
      [true, true, 450, true, true, 450, true],
    );
  });

  test('a seeded probability gives the same sequence twice', async () => {
    const box = await inbox();
    const rule = { stage: 'rcpt', action: { type: 'reply', code: 451 }, mode: { type: 'probability', p: 0.5, seed: 42 } };
    const run = async () => {
      await putInbox(box.inboxId, [rule]); // setting the rules again starts the counters again
      return (
        await python(
          port,
          Array.from({ length: 12 }, () => ({ to: box.address })),
        )
      ).map((x) => (x.ok ? 'ok' : x.code));
    };
    const one = await run();
    const two = await run();
    assert.deepEqual(one, two);
    assert.deepEqual(
      one,
      Array.from({ length: 12 }, (_, i) => (seededUnit(42, i + 1) < 0.5 ? 451 : 'ok')),
    );
    assert.ok(one.includes(451) && one.includes('ok'), `a mix: ${one.join(',')}`);
    // Another seed, another sequence.
    await putInbox(box.inboxId, [{ ...rule, mode: { type: 'probability', p: 0.5, seed: 7 } }]);
    const other = (
      await python(
        port,
        Array.from({ length: 12 }, () => ({ to: box.address })),
      )
    ).map((x) => (x.ok ? 'ok' : x.code));
    assert.notDeepEqual(other, one);
  });

  test('first N is exact under 20 parallel sessions', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ stage: 'rcpt', action: { type: 'reply', code: 451 }, mode: { type: 'first', n: 5 } }]);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => viaNodemailer(port, box.address)));
    assert.equal(outcomes.filter((o) => o === 451).length, 5, outcomes.join(','));
    assert.equal(outcomes.filter((o) => o === 'ok').length, 15);
    assert.equal((await messages(box.inboxId)).length, 15);
  });
});

describe('delay and throttle', () => {
  test('a delay holds the reply, then the mail is stored', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ stage: 'rcpt', action: { type: 'delay', ms: 600 } }]);
    const [r] = await python(port, [{ to: box.address }]);
    assert.equal(r!.ok, true);
    assert.ok(r!.ms >= 550, `took ${r!.ms} ms`);
  });

  test('a throttle reads DATA at the given rate', async () => {
    const box = await inbox();
    await putInbox(box.inboxId, [{ action: { type: 'throttle', bytesPerSecond: 20_000 } }]);
    const t0 = performance.now();
    await sendMail(port, { to: box.address, subject: 'big', text: 'x'.repeat(40_000) });
    const ms = performance.now() - t0;
    assert.ok(ms >= 1800, `40 KB at 20 KB/s took ${Math.round(ms)} ms`);
    assert.equal((await messages(box.inboxId)).length, 1);
  });
});

describe('local-part shortcuts', () => {
  test('fail-452+anything@, fail-550-data+x@, disconnect+x@, delay-300+x@ and greylist-60+x@', async () => {
    const r = await python(port, [
      { to: 'fail-452+signup-7@inboxd.test' },
      { to: 'fail-550-data+x@inboxd.test' },
      { to: 'disconnect+x@inboxd.test' },
      { to: 'delay-300+x@inboxd.test' },
      { to: 'greylist-60+abc@inboxd.test' },
    ]);
    offset += 60_000;
    r.push(...(await python(port, [{ to: 'greylist-60+abc@inboxd.test' }])));
    assert.equal(r[0]!.code, 452);
    assert.match(r[0]!.msg!, /^4\.2\.2 /);
    assert.equal(r[1]!.code, 550);
    assert.equal(r[2]!.disconnected, true);
    assert.equal(r[3]!.ok, true);
    assert.ok(r[3]!.ms >= 280, `${r[3]!.ms} ms`);
    assert.equal(r[4]!.code, 451);
    assert.equal(r[5]!.ok, true);
    // An ordinary plus address is not a shortcut.
    assert.equal(await viaNodemailer(port, 'failing+452@inboxd.test'), 'ok');
  });

  test("a shortcut's fault goes on the timeline of the inbox at that address", async () => {
    const box = await inbox({ localPart: 'fail-451' });
    assert.equal(await viaNodemailer(port, 'fail-451+try1@inboxd.test'), 451);
    const tl = await json(await s.api(`/v1/inboxes/${box.inboxId}/timeline`));
    assert.equal(tl.items.length, 1);
    assert.equal(tl.items[0].fault.source, 'shortcut');
    assert.equal(tl.items[0].fault.ruleId, null);
    assert.equal(tl.items[0].fault.recipient, 'fail-451+try1@inboxd.test');
  });

  test('--smtp-fault-shortcuts off: such addresses are plain addresses', async () => {
    const off = await startTestServer(['--smtp-fault-shortcuts', 'off']);
    try {
      const [r] = await python(off.server.smtpPort, [{ to: 'fail-452+x@inboxd.test' }]);
      assert.equal(r!.ok, true);
    } finally {
      await off.stop();
    }
  });
});

describe('metrics and the fault log', () => {
  test('GET /metrics counts fired faults by stage and action; /v1/faults/events lists early-stage ones', async () => {
    await put([{ stage: 'ehlo', action: { type: 'reply', code: 421 }, mode: { type: 'first', n: 1 } }]);
    const lines = await smtpDialogue(port, ['EHLO client.test'], {}).catch((e: Error) => [e.message]);
    assert.ok(
      lines.some((l) => l.startsWith('421 4.7.0')),
      lines.join('\n'),
    );
    const metrics = await (await s.api('/metrics')).text();
    assert.match(metrics, /inboxd_smtp_faults_total\{stage="ehlo",action="reply",inboxd_instance="[^"]+"\} [1-9]/);
    assert.match(metrics, /inboxd_smtp_faults_total\{stage="rcpt",action="reply",inboxd_instance="[^"]+"\} [1-9]/);
    const ev = await json(await s.api('/v1/faults/events?limit=500'));
    const ehlo = ev.items.find((e: Json) => e.stage === 'ehlo');
    assert.ok(ehlo, 'the ehlo fault is in the log');
    assert.equal(ehlo.inboxId, null);
    await clearAll();
  });
});

describe('retention', () => {
  test('fault events older than a day are pruned; newer ones stay', async () => {
    const box = await inbox({ ttlMinutes: 10_080 });
    await putInbox(box.inboxId, [{ stage: 'rcpt', action: { type: 'reply', code: 451 }, mode: { type: 'first', n: 1 } }]);
    assert.equal(await viaNodemailer(port, box.address), 451);
    const faultsOf = async () =>
      ((await json(await s.api(`/v1/inboxes/${box.inboxId}/timeline`))).items as Json[]).filter((i) => i.type === 'fault').length;
    assert.equal(await faultsOf(), 1);
    offset += 23 * 3600_000;
    await s.server.services.faults.prune();
    assert.equal(await faultsOf(), 1, 'kept for a day');
    offset += 2 * 3600_000;
    assert.ok((await s.server.services.faults.prune()) >= 1);
    assert.equal(await faultsOf(), 0);
  });
});
