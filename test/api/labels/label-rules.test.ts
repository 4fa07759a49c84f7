// not @cluster: rules are held in memory per instance (another instance sees a change within 2 s); mail and rule
// changes here go to one instance in turn, so a cluster run would have to wait for the refresh between them.
// Labels by rule: plus addresses (user+tag@… reaches user@…, labelled tag; an inbox literally named with + keeps its
// mail), X-Tags headers, and saved rules in the search language (CRUD over HTTP and MCP, scoped by key prefix, a cap,
// a budget on hostile rules), all seen on mail delivered by a real SMTP client (nodemailer).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { type Json, json } from '../../helpers/http.ts';
import { callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { teamAdminKey } from '../../helpers/teams.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer(['--max-label-rules', '30']);
});
after(() => s.stop());

let n = 0;
async function inbox(body: Json = {}, key?: string): Promise<{ inboxId: string; address: string }> {
  return json(await s.api('/v1/inboxes', { method: 'POST', json: body, ...(key ? { key } : {}) }), 201) as never;
}

async function only(inboxId: string): Promise<Json[]> {
  return (await json(await s.api(`/v1/inboxes/${inboxId}/messages`))).items as Json[];
}

async function labelsOfLatest(inboxId: string): Promise<string[]> {
  const [m] = await only(inboxId);
  assert.ok(m, 'a message arrived');
  const detail = await json(await s.api(`/v1/inboxes/${inboxId}/messages/${m.messageId}`));
  assert.deepEqual(detail.labels, m.labels, 'list and read agree');
  return m.labels as string[];
}

const rule = async (body: Json, status = 201, key?: string) =>
  json(await s.api('/v1/label-rules', { method: 'POST', json: body, ...(key ? { key } : {}) }), status);

describe('plus addressing and X-Tags', () => {
  test('user+tag@ reaches user@ with the label tag; the envelope recipient is kept', async () => {
    const local = `plus${++n}`;
    const box = await inbox({ localPart: local });
    await sendMail(s.server.smtpPort, { to: `${local}+Signup@inboxd.test`, subject: 'welcome', text: 'hi' });
    assert.deepEqual(await labelsOfLatest(box.inboxId), ['signup']);
    const [m] = await only(box.inboxId);
    const raw = await json(
      await s.api(`/v1/inboxes/${box.inboxId}/messages/${m!.messageId}/raw`, { headers: { accept: 'application/json' } }),
    );
    assert.equal(raw.envelope.rcptTo, `${local}+signup@inboxd.test`);
    // Mail to the plain address carries no label.
    await sendMail(s.server.smtpPort, { to: `${local}@inboxd.test`, subject: 'plain', text: 'hi' });
    assert.deepEqual(await labelsOfLatest(box.inboxId), []);
  });

  test('an inbox whose address has a + keeps its own mail (exact address first), unlabelled', async () => {
    const local = `lit${++n}`;
    const base = await inbox({ localPart: local });
    const literal = await inbox({ localPart: `${local}+x` });
    await sendMail(s.server.smtpPort, { to: literal.address, subject: 'to the literal one', text: 'hi' });
    assert.equal((await only(literal.inboxId)).length, 1);
    assert.deepEqual(await labelsOfLatest(literal.inboxId), []);
    assert.equal((await only(base.inboxId)).length, 0);
  });

  test('X-Tags: comma-separated, trimmed, lower case, once each; together with the plus tag', async () => {
    const local = `xt${++n}`;
    const box = await inbox({ localPart: local });
    await sendMail(s.server.smtpPort, {
      to: `${local}+run-7@inboxd.test`,
      subject: 'tagged',
      text: 'hi',
      headers: { 'X-Tags': 'Alpha, beta ,alpha,, ' },
    });
    assert.deepEqual(await labelsOfLatest(box.inboxId), ['alpha', 'beta', 'run-7']);
  });
});

describe('label rules', () => {
  test('a rule in the search language labels matching mail and leaves the rest alone; label: sees earlier labels', async () => {
    const r = await rule({ query: 'from:github.example subject:"pull request" -has:attachment', labels: ['GH', 'pr'] });
    assert.match(r.ruleId, /^lbr_/);
    assert.deepEqual(r.labels, ['gh', 'pr']);
    assert.equal(r.name, r.query);
    const chained = await rule({ name: 'onboarding', query: 'label:signup-flow', labels: ['onboarding'] });
    const local = `rule${++n}`;
    const box = await inbox({ localPart: local });
    await sendMail(s.server.smtpPort, {
      from: 'GitHub <noreply@github.example>',
      to: box.address,
      subject: 'New pull request #42',
      text: 'Please review',
    });
    assert.deepEqual(await labelsOfLatest(box.inboxId), ['gh', 'pr']);
    await sendMail(s.server.smtpPort, { from: 'noreply@github.example', to: box.address, subject: 'New issue #43', text: 'x' });
    assert.deepEqual(await labelsOfLatest(box.inboxId), [], 'the subject does not match');
    await sendMail(s.server.smtpPort, {
      from: 'noreply@github.example',
      to: box.address,
      subject: 'pull request with a file',
      text: 'x',
      attachments: [{ filename: 'a.txt', content: 'a' }],
    });
    assert.deepEqual(await labelsOfLatest(box.inboxId), [], '-has:attachment excludes it');
    await sendMail(s.server.smtpPort, { to: `${local}+signup-flow@inboxd.test`, subject: 'Welcome', text: 'x' });
    assert.deepEqual(await labelsOfLatest(box.inboxId), ['onboarding', 'signup-flow']);

    // Change and delete: mail arriving afterwards follows the new version, then no rule.
    const changed = await json(
      await s.api(`/v1/label-rules/${r.ruleId}`, { method: 'PATCH', json: { query: 'subject:issue', labels: ['issue'] } }),
    );
    assert.equal(changed.query, 'subject:issue');
    await sendMail(s.server.smtpPort, { to: box.address, subject: 'New issue #44', text: 'x' });
    assert.deepEqual(await labelsOfLatest(box.inboxId), ['issue']);
    const listed = await json(await s.api('/v1/label-rules'));
    assert.ok(listed.items.some((x: Json) => x.ruleId === r.ruleId && x.query === 'subject:issue'));
    await json(await s.api(`/v1/label-rules/${r.ruleId}`, { method: 'DELETE' }));
    await json(await s.api(`/v1/label-rules/${chained.ruleId}`, { method: 'DELETE' }));
    await sendMail(s.server.smtpPort, { to: box.address, subject: 'New issue #45', text: 'x' });
    assert.deepEqual(await labelsOfLatest(box.inboxId), []);
    await json(await s.api(`/v1/label-rules/${r.ruleId}`, { method: 'DELETE' }), 404);
  });

  test('malformed rules are 400 naming the problem; before:/after: are refused', async () => {
    const bad = await rule({ query: 'subject:"unclosed', labels: ['x'] }, 400);
    assert.match(bad.detail, /^query: unclosed quote/);
    assert.match((await rule({ query: 'after:3d', labels: ['x'] }, 400)).detail, /before: and after: cannot be used in a label rule/);
    assert.match((await rule({ query: 'hello', labels: [] }, 400)).detail, /labels/);
    assert.match((await rule({ query: 'hello', labels: ['\u0000'] }, 400)).detail, /labels\[0\]/);
  });

  test('a key with a label prefix: its rules apply only inside its prefix, and it sees only those', async () => {
    const scoped = await json(
      await s.api('/v1/team/keys', { method: 'POST', json: { label: 'lbl', scope: { labelPrefix: 'ci-a' } } }),
      201,
    );
    const admins = await rule({ query: 'subject:scoped', labels: ['admin-rule'] });
    const mine = await rule({ query: 'subject:scoped', labels: ['scoped-rule'] }, 201, scoped.key);
    assert.equal(mine.labelPrefix, 'ci-a');
    const seen = await json(await s.api('/v1/label-rules', { key: scoped.key }));
    assert.deepEqual(
      seen.items.map((x: Json) => x.ruleId),
      [mine.ruleId],
    );
    await json(await s.api(`/v1/label-rules/${admins.ruleId}`, { method: 'DELETE', key: scoped.key }), 404);
    const inside = await inbox({ label: 'ci-a-1' });
    const outside = await inbox({ label: 'ci-b-1' });
    for (const b of [inside, outside]) await sendMail(s.server.smtpPort, { to: b.address, subject: 'scoped', text: 'x' });
    assert.deepEqual(await labelsOfLatest(inside.inboxId), ['admin-rule', 'scoped-rule']);
    assert.deepEqual(await labelsOfLatest(outside.inboxId), ['admin-rule']);
    for (const id of [admins.ruleId, mine.ruleId]) await json(await s.api(`/v1/label-rules/${id}`, { method: 'DELETE' }));
  });

  test('MCP: create, list and delete a rule', async () => {
    const c = await mcpClient(s.url, s.key);
    try {
      const r = await callOk(c, 'svc_create_label_rule', { query: 'subject:mcp', labels: ['from-mcp'] });
      const box = await inbox();
      await sendMail(s.server.smtpPort, { to: box.address, subject: 'made over mcp', text: 'x' });
      assert.deepEqual(await labelsOfLatest(box.inboxId), ['from-mcp']);
      const list = await callOk(c, 'svc_list_label_rules', {});
      assert.ok(list.items.some((x: Json) => x.ruleId === r.ruleId));
      await callOk(c, 'svc_delete_label_rule', { ruleId: r.ruleId });
    } finally {
      await c.close();
    }
  });

  test('hostile: the cap answers 409; rules built to be slow stop at their budget and mail is stored quickly', async () => {
    const existing = (await json(await s.api('/v1/label-rules'))).items.length;
    const ids: string[] = [];
    // Phrases of 16 words that are all in the body but never in this order: every position of the first is a candidate.
    const phrase = `"${Array(15).fill('ha').join(' ')} ho"`;
    for (let i = existing; i < 29; i++) ids.push((await rule({ query: `${phrase} OR ${phrase}`, labels: [`slow-${i}`] })).ruleId);
    ids.push((await rule({ query: 'subject:budget', labels: ['last'] })).ruleId);
    const over = await rule({ query: 'x', labels: ['x'] }, 409);
    assert.match(over.detail, /--max-label-rules/);

    const box = await inbox();
    const t0 = performance.now();
    await sendMail(s.server.smtpPort, { to: box.address, subject: 'budget', text: 'ha ho '.repeat(10_000) });
    const ms = performance.now() - t0;
    assert.ok(ms < 3000, `stored in ${Math.round(ms)} ms`);
    const labels = await labelsOfLatest(box.inboxId);
    assert.ok(!labels.some((l) => l.startsWith('slow-')), 'no slow rule matched');
    assert.ok(
      s.logs.some((l) => l.includes('label rules stopped at their budget')),
      'the cut is logged',
    );
    for (const id of ids) await json(await s.api(`/v1/label-rules/${id}`, { method: 'DELETE' }));
  });
});

describe('plus addresses and --smtp-auth required', () => {
  test("a key cannot reach another team's inbox through its plus address", async () => {
    const t = await startTestServer(['--smtp-auth', 'required']);
    try {
      const other = await teamAdminKey(t, 'plusb');
      const victim = await json(await t.api('/v1/inboxes', { method: 'POST', json: { localPart: 'victim' }, key: other }), 201);
      const mine = await json(await t.api('/v1/inboxes', { method: 'POST', json: { localPart: 'mine' } }), 201);
      const send = (to: string) => {
        const tr = nodemailer.createTransport({
          host: '127.0.0.1',
          port: t.server.smtpPort,
          secure: false,
          ignoreTLS: true,
          auth: { user: 'ci', pass: t.key },
        });
        return tr.sendMail({ from: 'ci@app.test', to, subject: 'plus', text: 'x' }).finally(() => tr.close());
      };
      await assert.rejects(send('victim+x@inboxd.test'), /550 5\.7\.1/);
      assert.equal((await json(await t.api(`/v1/inboxes/${victim.inboxId}/messages`, { key: other }))).items.length, 0);
      await send('mine+ok@inboxd.test');
      const got = await json(await t.api(`/v1/inboxes/${mine.inboxId}/messages`));
      assert.deepEqual(got.items[0].labels, ['ok']);
    } finally {
      await t.stop();
    }
  });
});
