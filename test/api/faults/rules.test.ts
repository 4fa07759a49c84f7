// The fault rules API: set, list and clear per scope (global, label prefix, inbox), who may set what, the checks that
// span fields, the caps (a thousand rules), globs taken literally, MCP tools, and rules set on any instance applied
// by the SMTP listener at once.
// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compileGlob } from '../../../src/faults/rules.ts';
import { type Json, json } from '../../helpers/http.ts';
import { callErr, callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { smtpDialogue } from '../../helpers/smtp.ts';

let s: TestServer;
const put = (body: Json, key?: string) => s.api('/v1/faults', { method: 'PUT', json: body, ...(key ? { key } : {}) });
const inbox = async (body: Json = {}, key?: string) =>
  json(await s.api('/v1/inboxes', { method: 'POST', json: body, ...(key ? { key } : {}) }), 201);
const mint = async (body: Json): Promise<string> => (await json(await s.api('/v1/team/keys', { method: 'POST', json: body }), 201)).key;
const reply = (code: number) => ({ stage: 'rcpt', action: { type: 'reply', code } });
/** The reply to RCPT TO for this address (one fresh connection). */
const rcptCode = async (address: string) => {
  const lines = await smtpDialogue(s.server.smtpPort, ['EHLO t.example', 'MAIL FROM:<app@sender.example>', `RCPT TO:<${address}>`]);
  // greeting, EHLO (multi-line, the last line has a space), MAIL, RCPT
  const finals = lines.filter((l) => l[3] === ' ');
  return finals[3] ?? '';
};

before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

describe('rule sets', () => {
  after(async () => {
    await json(await s.api('/v1/faults', { method: 'DELETE' }));
  });

  test('PUT replaces a scope, GET lists every scope, DELETE clears one', async () => {
    const a = await inbox({ label: 'crud-a' });
    const set = await json(await put({ rules: [reply(451), { name: 'slow', stage: 'data', action: { type: 'delay', ms: 10 } }] }));
    assert.equal(set.rules.length, 2);
    assert.match(set.rules[0].ruleId, /^flt_/);
    assert.deepEqual(set.rules[0].scope, { kind: 'global' });
    assert.deepEqual(set.rules[0].mode, { type: 'always' }, 'mode defaults to always');
    assert.equal(set.rules[1].name, 'slow');
    await json(await put({ labelPrefix: 'crud-', rules: [{ action: { type: 'greylist' } }] }));
    const ib = await json(await s.api(`/v1/inboxes/${a.inboxId}/faults`, { method: 'PUT', json: { rules: [reply(452)] } }));
    assert.deepEqual(ib.rules[0].scope, { kind: 'inbox', inboxId: a.inboxId, address: a.address });
    const g = await json(await s.api('/v1/faults'));
    assert.deepEqual(g.items.map((r: Json) => r.scope.kind).sort(), ['global', 'global', 'inbox', 'prefix']);
    const greylist = g.items.find((r: Json) => r.scope.kind === 'prefix');
    assert.equal(greylist.stage, 'rcpt', 'greylist defaults to rcpt');
    assert.equal(greylist.action.retryAfterSeconds, 60);
    // PUT again replaces (new ids), never appends.
    const again = await json(await put({ rules: [reply(450)] }));
    assert.notEqual(again.rules[0].ruleId, set.rules[0].ruleId);
    assert.equal((await json(await s.api('/v1/faults'))).items.filter((r: Json) => r.scope.kind === 'global').length, 1);
    assert.equal((await json(await s.api('/v1/faults?labelPrefix=crud-'))).items.length, 1);
    assert.equal((await json(await s.api(`/v1/faults?inboxId=${a.inboxId}`))).items.length, 1);
    assert.deepEqual(await json(await s.api('/v1/faults?labelPrefix=crud-', { method: 'DELETE' })), { deleted: 1 });
    assert.deepEqual(await json(await s.api(`/v1/inboxes/${a.inboxId}/faults`, { method: 'DELETE' })), { deleted: 1 });
    assert.equal((await json(await s.api(`/v1/inboxes/${a.inboxId}/faults`))).items.length, 0);
    assert.deepEqual(await json(await s.api('/v1/faults', { method: 'DELETE' })), { deleted: 1 });
  });

  test('rules set on either instance apply to the next SMTP connection at once', async () => {
    const a = await inbox();
    // Under @cluster, api() alternates instances while SMTP goes to the first: each PUT lands on a different one.
    for (const code of [451, 452, 450, 421]) {
      await json(await s.api(`/v1/inboxes/${a.inboxId}/faults`, { method: 'PUT', json: { rules: [reply(code)] } }));
      assert.match(await rcptCode(a.address), new RegExp(`^${code} `));
    }
    await json(await s.api(`/v1/inboxes/${a.inboxId}/faults`, { method: 'DELETE' }));
    assert.match(await rcptCode(a.address), /^250 /);
  });

  test('globs are literal apart from * and ?: regex characters match only themselves', async () => {
    await json(
      await put({ rules: [{ stage: 'rcpt', match: { recipient: 'a.b+(x)*@inboxd.test' }, action: { type: 'reply', code: 550 } }] }),
    );
    assert.match(await rcptCode('a.b+(x)yz@inboxd.test'), /^550 /);
    assert.match(await rcptCode('axb+(x)yz@inboxd.test'), /^250 /, '. is not "any character"');
    assert.match(await rcptCode('a.b+xyz@inboxd.test'), /^250 /);
    assert.match(await rcptCode('a.b+(x)@inboxd.test'), /^550 /, '* matches nothing too');
    await json(await s.api('/v1/faults', { method: 'DELETE' }));
  });
});

describe('validation and caps', () => {
  const bad = async (body: Json, pattern: RegExp, status = 400) => {
    const r = await json(await put(body), status);
    assert.match(JSON.stringify(r), pattern);
    return r;
  };

  test('a stage that does not fit the action, the scope or the match is refused with its path', async () => {
    const e = await bad({ rules: [reply(451), { stage: 'rcpt', action: { type: 'throttle', bytesPerSecond: 1000 } }] }, /use stage data/);
    assert.equal(e.errors[0].path, 'rules.1.stage');
    await bad({ labelPrefix: 'x-', rules: [{ stage: 'ehlo', action: { type: 'disconnect' } }] }, /before any recipient is known/);
    await bad({ rules: [{ stage: 'connect', match: { recipient: '*' }, action: { type: 'disconnect' } }] }, /match.recipient/);
    await bad({ rules: [{ stage: 'ehlo', match: { sender: '*' }, action: { type: 'disconnect' } }] }, /sender is known from stage mail/);
    await bad({ rules: [{ action: { type: 'reply', code: 451 } }] }, /needs a stage/);
    await bad({ rules: [{ stage: 'rcpt', action: { type: 'reply', code: 451, enhanced: '5.1.1' } }] }, /does not match reply code/);
    await bad({ rules: [{ action: { type: 'greylist' }, mode: { type: 'first', n: 1 } }] }, /mode must be always/);
    await bad({ rules: [{ stage: 'rcpt', action: { type: 'reply', code: 250 } }] }, /400-599/);
    await bad({ rules: [{ stage: 'rcpt', action: { type: 'explode' } }] }, /action/);
  });

  test('delays, throttles and windows are capped; reply text cannot carry CR/LF', async () => {
    await bad({ rules: [{ stage: 'rcpt', action: { type: 'delay', ms: 30_001 } }] }, /at most 30000/);
    await bad({ rules: [{ action: { type: 'throttle', bytesPerSecond: 10 } }] }, /at least 100/);
    await bad({ rules: [{ action: { type: 'rate-limit', limit: 1, windowSeconds: 86_401 } }] }, /windowSeconds/);
    await bad({ rules: [{ action: { type: 'greylist', retryAfterSeconds: 3601 } }] }, /retryAfterSeconds/);
    await bad({ rules: [{ stage: 'rcpt', action: { type: 'reply', code: 550, text: 'no\r\n250 ok' } }] }, /control characters/);
    await bad({ rules: [{ stage: 'rcpt', match: { recipient: '*'.repeat(257) }, action: { type: 'disconnect' } }] }, /recipient/);
  });

  test('a thousand rules in one scope are refused, naming the cap; the team holds at most 1000', async () => {
    // Hostile globs that never match (backtracking on every star), all in force for one inbox: nested prefixes.
    const hostile = `${'*a'.repeat(120)}*z`;
    const many = Array.from({ length: 1000 }, () => ({
      stage: 'rcpt',
      match: { recipient: hostile },
      action: { type: 'reply', code: 451 },
    }));
    const e = await bad({ rules: many }, /at most 100 rules per scope/);
    assert.match(e.detail, /1000 fault rules given; a scope .* holds at most 100/);
    const prefix = (p: number) => `cap-${'abcdefghij'.slice(0, p)}`;
    for (let p = 0; p < 10; p++) await json(await put({ labelPrefix: prefix(p), rules: many.slice(0, 100) }));
    const over = await bad({ labelPrefix: 'cap-x-', rules: many.slice(0, 1) }, /limit of 1000 per team/, 409);
    assert.match(over.detail, /DELETE \/v1\/faults\?labelPrefix=/);
    // Replacing a full scope is still allowed (its own rules do not count against it).
    await json(await put({ labelPrefix: prefix(0), rules: many.slice(0, 100) }));
    // All 1000 apply to this inbox; its RCPT is still answered at once (the matching work per command is capped).
    const box = await inbox({ label: 'cap-abcdefghijk', localPart: `${'a'.repeat(63)}b` });
    const t0 = performance.now();
    for (let i = 0; i < 5; i++) assert.match(await rcptCode(box.address), /^250 /);
    assert.ok(performance.now() - t0 < 2000, `${Math.round(performance.now() - t0)} ms for 5 sessions`);
    assert.match(await rcptCode('nobody-here@inboxd.test'), /^250 /);
    for (let p = 0; p < 10; p++) await json(await s.api(`/v1/faults?labelPrefix=${prefix(p)}`, { method: 'DELETE' }));
  });

  test('glob matching stays linear-ish on hostile patterns', () => {
    const g = compileGlob(`${'*a'.repeat(128)}`);
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) assert.equal(g(`${'a'.repeat(300)}b`), false);
    assert.ok(performance.now() - t0 < 1000, `${Math.round(performance.now() - t0)} ms`);
    assert.equal(compileGlob('*@Example.COM')('Someone@example.com'), true);
    assert.equal(compileGlob('a?c')('abc'), true);
    assert.equal(compileGlob('a?c')('ac'), false);
  });
});

describe('who may set what', () => {
  let scoped: string;
  let member: string;
  let readOnly: string;
  before(async () => {
    scoped = await mint({ label: 'scoped', scope: { labelPrefix: 'team-a-' } });
    member = await mint({ label: 'member' });
    readOnly = await mint({ label: 'ro', scope: { readOnly: true } });
  });

  test('global rules need an unscoped admin; a scoped key sets rules only under its prefix', async () => {
    assert.match((await json(await put({ rules: [] }, scoped), 403)).detail, /labelPrefix starting with "team-a-"/);
    assert.match((await json(await put({ rules: [] }, member), 403)).detail, /unscoped admin key/);
    assert.match((await json(await put({ labelPrefix: 'team-b-', rules: [] }, scoped), 403)).detail, /outside this key's label prefix/);
    await json(await put({ labelPrefix: 'team-a-x', rules: [reply(451)] }, scoped));
    await json(await put({ labelPrefix: 'other-', rules: [reply(452)] }, member));
    await json(await put({ labelPrefix: 'team-a-', rules: [] }, readOnly), 403);
    const seen = await json(await s.api('/v1/faults', { key: scoped }));
    assert.deepEqual(
      seen.items.map((r: Json) => r.scope.labelPrefix),
      ['team-a-x'],
      'the scoped key does not see other prefixes',
    );
    const mine = await inbox({ label: 'team-a-x1' }, scoped);
    const other = await inbox({ label: 'other-1' });
    assert.match(await rcptCode(mine.address), /^451 /);
    assert.match(await rcptCode(other.address), /^452 /);
    // The fault log: the scoped key sees its inbox's faults only; the admin sees both.
    const logOf = async (key: string | undefined, want: number) => {
      let items: Json[] = [];
      for (let i = 0; i < 30; i++) {
        items = (await json(await s.api('/v1/faults/events?limit=500', key ? { key } : {}))).items as Json[];
        if (items.filter((e) => e.inboxId === mine.inboxId || e.inboxId === other.inboxId).length >= want) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      return items.filter((e) => e.inboxId === mine.inboxId || e.inboxId === other.inboxId).map((e) => e.code);
    };
    assert.deepEqual((await logOf(undefined, 2)).sort(), [451, 452]);
    assert.deepEqual(await logOf(scoped, 1), [451]);
    await json(await s.api(`/v1/inboxes/${other.inboxId}/faults`, { method: 'PUT', json: { rules: [] }, key: scoped }), 404);
    await json(await s.api(`/v1/inboxes/${other.inboxId}/timeline`, { key: scoped }), 404);
    await json(await s.api('/v1/faults?labelPrefix=team-a-x', { method: 'DELETE', key: scoped }));
    await json(await s.api('/v1/faults?labelPrefix=other-', { method: 'DELETE', key: member }));
  });
});

describe('MCP tools', () => {
  test('set, list and read the timeline through tools', async () => {
    const c = await mcpClient(s.url, s.key);
    try {
      const a = await inbox();
      const set = await callOk(c, 'svc_set_inbox_fault_rules', {
        inboxId: a.inboxId,
        rules: [{ stage: 'rcpt', action: { type: 'reply', code: 451 }, mode: { type: 'first', n: 1 } }],
      });
      assert.equal(set.rules.length, 1);
      const listed = await callOk(c, 'svc_list_fault_rules', { inboxId: a.inboxId });
      assert.equal(listed.items[0].action.code, 451);
      assert.match(await rcptCode(a.address), /^451 /);
      assert.match(await rcptCode(a.address), /^250 /);
      let tl: Json = {};
      for (let i = 0; i < 20 && !(tl.items?.length > 0); i++) {
        tl = await callOk(c, 'svc_get_inbox_timeline', { inboxId: a.inboxId });
        if (!(tl.items?.length > 0)) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(tl.items[0].fault.code, 451);
      assert.match(await callErr(c, 'svc_set_fault_rules', { rules: [{ stage: 'rcpt', action: { type: 'delay', ms: 60_000 } }] }), /30000/);
      await callOk(c, 'svc_set_fault_rules', { labelPrefix: 'mcp-', rules: [] });
    } finally {
      await c.close();
    }
  });
});
