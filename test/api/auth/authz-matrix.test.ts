// Every registered operation × every kind of caller → the exact expected outcome. Generated from the registry, so
// an operation added later is covered (and fails here until it has a sample input, if it needs one).
// @cluster
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import type { Operation } from '../../../src/ops/op.ts';
import { isMutation } from '../../../src/ops/op.ts';
import { pathParams } from '../../../src/ops/openapi.ts';
import { OPERATIONS } from '../../../src/ops/registry.ts';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

type Who = 'none' | 'malformed' | 'unknown' | 'revoked' | 'expiredToken' | 'readOnly' | 'member' | 'otherPrefix' | 'admin' | 'adminToken';
const WHO: Who[] = ['none', 'malformed', 'unknown', 'revoked', 'expiredToken', 'readOnly', 'member', 'otherPrefix', 'admin', 'adminToken'];

interface Fixture {
  inboxId: string;
  messageId: string;
  attachmentId: string;
  threadId: string;
}
interface Sample {
  query?: Record<string, string>;
  body?: unknown;
  raw?: { body: string; contentType: string };
  /** Touches the fixture inbox (so a key scoped to another label prefix must get 404). */
  inbox?: boolean;
}

/** Inputs for operations that need more than their path parameters. */
const SAMPLES: Record<string, (f: Fixture) => Sample> = {
  'inboxes.wait': () => ({ query: { timeoutSeconds: '0' }, inbox: true }),
  'team.keys.create': () => ({ body: { label: 'matrix' } }),
  'oauth.register': () => ({ body: { client_name: 'matrix' } }),
  'oauth.token': () => ({ body: { grant_type: 'client_credentials', client_secret: ADMIN_KEY } }),
  'runs.start': () => ({ body: { goal: 'matrix', services: ['github'] } }),
  'runs.report': () => ({ body: { stepId: '1.get_address', outcome: 'done' } }),
  'domains.create': () => ({ body: { domain: 'matrix.example' } }),
  'workspace.set_policy': () => ({ body: { mode: 'draft_only' } }),
  'workspace.create_reminder': () => ({ body: { note: 'matrix', dueAt: new Date(Date.now() + 30 * 86_400_000).toISOString() } }),
  'workspace.log_action': () => ({ body: { type: 'wait' } }),
  'workspace.execute_reply': (f) => ({
    body: { inboxId: f.inboxId, messageId: f.messageId, text: 'hi', idempotencyKey: `matrix-${Math.random()}` },
    inbox: true,
  }),
  'workspace.execute_gmail_draft': () => ({ body: { text: 'hi', to: ['matrix-peer@example.com'] } }),
  'mailbox.connect': () => ({ body: { provider: 'imap', host: '127.0.0.1', port: 1, user: 'matrix', password: 'matrix' } }),
  'workspace.execute_calendar_event': () => ({ body: { title: 't', start: '2030-01-01T09:00:00Z', end: '2030-01-01T10:00:00Z' } }),
  'workspace.today_decision': () => ({ body: { decision: 'dismiss' } }),
  'calendar.connect': () => ({ body: { provider: 'caldav', serverUrl: 'http://127.0.0.1:9/', username: 'u', password: 'p' } }),
  'calendar.list_events': () => ({ query: { timeMin: '2030-01-01T00:00:00Z', timeMax: '2030-01-02T00:00:00Z' } }),
  'calendar.availability': () => ({ query: { timeMin: '2030-01-01T00:00:00Z', timeMax: '2030-01-02T00:00:00Z' } }),
  'calendar.check_conflicts': () => ({ query: { start: '2030-01-01T09:00:00Z', end: '2030-01-01T10:00:00Z' } }),
  'calendar.suggest_meeting': () => ({
    query: { timeMin: '2030-01-01T00:00:00Z', timeMax: '2030-01-02T00:00:00Z', durationMinutes: '30' },
  }),
  'workspace.create_monitor': (f) => ({ body: { name: 'matrix', kind: 'expect_mail', inboxId: f.inboxId }, inbox: true }),
  'messages.send': () => ({ body: { to: 'matrix-peer@inboxd.test', subject: 'matrix', text: 'hello' } }),
  'messages.reply': (f) => ({ body: { messageId: f.messageId, text: 'hello' } }),
  'messages.release': () => ({ body: { to: 'matrix-release@example.com' } }),
  'messages.mark': () => ({ body: { seen: true } }),
  'messages.render_compare': (f) => ({ query: { with: f.messageId }, inbox: true }),
  'labels.create_rule': () => ({ body: { query: 'matrix', labels: ['matrix'] } }),
  'messages.search': () => ({ query: { q: 'hello' }, inbox: true }),
  'messages.search_all': () => ({ query: { q: 'hello' } }),
  'faults.set': () => ({ body: { labelPrefix: 'other-', rules: [] } }),
  'faults.clear': () => ({ query: { labelPrefix: 'other-' } }),
  'inboxes.faults.set': () => ({ body: { rules: [] }, inbox: true }),
};

let s: TestServer;
let offset = 0;
const keys = {} as Record<Who, string | null>;
const headerFor = (who: Who): Record<string, string> => {
  if (who === 'none') return {};
  if (who === 'malformed') return { authorization: 'Token abc' };
  return { authorization: `Bearer ${keys[who]}` };
};

async function mintKey(body: unknown): Promise<{ key: string; keyId: string }> {
  const r = await s.api('/v1/team/keys', { method: 'POST', json: body });
  assert.equal(r.status, 201);
  return (await r.json()) as { key: string; keyId: string };
}
async function mintToken(secret: string): Promise<string> {
  const r = await fetch(`${s.url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials&client_secret=${secret}`,
  });
  assert.equal(r.status, 200);
  return ((await r.json()) as { access_token: string }).access_token;
}

before(async () => {
  s = await startTestServer([], {}, { clock: { now: () => Date.now() + offset } });
  keys.none = null;
  keys.malformed = null;
  keys.unknown = 'ibx_UnknownKey000000000000000000000';
  keys.admin = s.key;
  keys.readOnly = (await mintKey({ label: 'ro', scope: { readOnly: true } })).key;
  keys.member = (await mintKey({ label: 'member' })).key;
  keys.otherPrefix = (await mintKey({ label: 'other', scope: { labelPrefix: 'other-' } })).key;
  const revoked = await mintKey({ label: 'revoked', role: 'admin' });
  assert.equal((await s.api(`/v1/team/keys/${revoked.keyId}`, { method: 'DELETE' })).status, 200);
  keys.revoked = revoked.key;
  keys.expiredToken = await mintToken(s.key);
  offset += 3601 * 1000;
  keys.adminToken = await mintToken(s.key);
});
after(async () => {
  await s.stop();
});

async function fixture(): Promise<Fixture> {
  const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: { label: 'matrix-a' } })).json()) as {
    inboxId: string;
    address: string;
  };
  const raw = Buffer.from(
    `From: a@example.com\r\nTo: ${inbox.address}\r\nSubject: matrix\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=a.bin\r\n\r\nabc\r\n--b--\r\n`,
  );
  const [d] = await s.server.parts.ingest.accept({ raw, rcpts: [inbox.address], mailFrom: 'a@example.com', source: 'test' });
  const atts = await s.server.parts.messages.attachments(d!.messageId);
  const msg = await s.server.parts.messages.get(inbox.inboxId, d!.messageId);
  return { inboxId: inbox.inboxId, messageId: d!.messageId, attachmentId: atts[0]!.id, threadId: msg!.thread_id! };
}

function needsSample(o: Operation): boolean {
  const shape = o.input instanceof z.ZodObject ? (o.input.shape as Record<string, z.ZodType>) : {};
  const params = pathParams(o.http!.path);
  return Object.entries(shape).some(([k, t]) => !params.includes(k) && !t.safeParse(undefined).success);
}

function expected(o: Operation, who: Who, inboxScoped: boolean): 'allowed' | 401 | 403 | 404 {
  if (o.access === 'public') return 'allowed';
  if (['none', 'malformed', 'unknown', 'revoked', 'expiredToken'].includes(who)) return 401;
  if (who === 'admin' || who === 'adminToken') return 'allowed';
  if (o.access === 'admin') return 403;
  if (who === 'readOnly') return isMutation(o) ? 403 : 'allowed';
  if (who === 'otherPrefix' && inboxScoped) return 404;
  return 'allowed';
}

test('every operation has a sample input when it needs one', () => {
  const missing = OPERATIONS.filter((o) => o.http && needsSample(o) && !SAMPLES[o.name]).map((o) => o.name);
  assert.deepEqual(missing, [], 'add these to SAMPLES in this test');
});

test('authorization matrix: every operation × every caller', async () => {
  const failures: string[] = [];
  let cases = 0;
  for (const o of OPERATIONS) {
    if (!o.http) continue;
    for (const who of WHO) {
      const f = await fixture();
      const sample = SAMPLES[o.name]?.(f) ?? {};
      // The last check report exists once checks ran (404 before: that answer is tested in test/api/checks/).
      if (o.name === 'checks.last')
        await s.api(`/v1/inboxes/${f.inboxId}/messages/${f.messageId}/checks`, { method: 'POST', json: { checks: ['text'] } });
      const params = pathParams(o.http.path);
      const inboxScoped = sample.inbox === true || (o.http.path.startsWith('/v1/inboxes/:id') && params.includes('id'));
      let path = o.http.path;
      for (const p of params) {
        const v =
          p === 'id'
            ? o.http.path.startsWith('/v1/inboxes/')
              ? f.inboxId
              : 'x_doesnotexist'
            : p === 'messageId'
              ? f.messageId
              : p === 'attachmentId'
                ? f.attachmentId
                : p === 'threadId'
                  ? f.threadId
                  : p === 'provider'
                    ? 'raw'
                    : 'x';
        path = path.replace(`:${p}`, v);
      }
      const qs = sample.query ? '?' + new URLSearchParams(sample.query).toString() : '';
      const headers: Record<string, string> = { ...headerFor(who) };
      let body: string | undefined;
      if (o.http.method !== 'GET' && o.http.method !== 'DELETE') {
        if (sample.raw) {
          headers['content-type'] = sample.raw.contentType;
          body = sample.raw.body;
        } else {
          headers['content-type'] = 'application/json';
          body = JSON.stringify(sample.body ?? {});
        }
      }
      const ac = new AbortController();
      // Refusals (401/403/404) answer at once. A call still unanswered after a moment is waiting for mail (verify,
      // open, wait with their default timeouts): it got past authentication and scope checks, so it is "allowed".
      let timer: NodeJS.Timeout | undefined;
      const status = await Promise.race([
        fetch(s.url + path + qs, { method: o.http.method, headers, body: body ?? null, signal: ac.signal }).then((r) => r.status),
        new Promise<'waiting'>((r) => (timer = setTimeout(() => r('waiting'), 1500))),
      ]).catch((e: Error) => `error: ${e.message}`);
      clearTimeout(timer);
      ac.abort(); // streams (SSE) are judged by their status alone
      const want = expected(o, who, inboxScoped);
      const ok =
        want === 'allowed'
          ? status === 'waiting' || (typeof status === 'number' && ![401, 403, 500].includes(status) && !(inboxScoped && status === 404))
          : status === want;
      cases++;
      if (!ok) failures.push(`${o.name} ${o.http.method} ${o.http.path} as ${who}: got ${status}, want ${want}`);
    }
  }
  assert.deepEqual(failures, []);
  assert.ok(cases >= OPERATIONS.filter((o) => o.http).length * WHO.length);
});
