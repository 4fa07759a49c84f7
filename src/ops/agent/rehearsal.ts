// The rehearsal signup page (testUrl of GET /v1/agent): HTML pages an agent drives with a browser, offline.
// Open without a key, like any signup form; it only ever mails inboxes that already exist on this server (the
// session and its mail are the agent capability's: src/agent/service.ts rehearse).
import { z } from 'zod';
import { codeForm, failure, MAX_WRONG_CODES, type RehearsalStore, signupForm, success } from '../../agent/rehearsal.ts';
import { AppError } from '../../errors.ts';
import { op, type RawResult } from '../op.ts';

const html = (body: string, status?: number): RawResult => ({
  kind: 'raw',
  contentType: 'text/html; charset=utf-8',
  body: Buffer.from(body),
  headers: { 'Cache-Control': 'no-store', 'X-Frame-Options': 'DENY', ...(status ? { 'X-Inboxd-Result': String(status) } : {}) },
});
const Html = z.object({}).describe('An HTML page');

/** 429 when this client has used up its allowance of `kind` (signups, or wrong codes and links) for now. */
function limitIp(store: RehearsalStore, ip: string | null, kind: 'signup' | 'wrong'): void {
  const ms = store.blockedFor(ip, kind);
  if (ms <= 0) return;
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  throw new AppError(
    'rate_limited',
    kind === 'signup'
      ? `too many rehearsal signups from this address; try again in ${seconds} s`
      : `too many wrong rehearsal codes or links from this address; try again in ${seconds} s`,
    { headers: { 'Retry-After': String(seconds) } },
  );
}

const LOCKED = `This rehearsal signup is locked after ${MAX_WRONG_CODES} wrong codes. Start a new one and type the code from the newest message.`;

export const testPage = op({
  name: 'rehearsal.page',
  summary: 'Rehearsal signup page (HTML)',
  access: 'public',
  http: { method: 'GET', path: '/v1/agent/test', raw: ['text/html'] },
  input: z.strictObject({}),
  output: Html,
  audit: false,
  handler: () => html(signupForm()),
});

export const testSignup = op({
  name: 'rehearsal.signup',
  summary: 'Rehearsal: submit an address; inboxd mails it a code and a magic link',
  access: 'public',
  http: { method: 'POST', path: '/v1/agent/test/signup', body: 'form', raw: ['text/html'] },
  input: z.object({ email: z.string().max(320).default('') }),
  output: Html,
  audit: false,
  async handler(ctx, input) {
    const s = ctx.services;
    // The page takes no key, and with --smtp-auth required only a key may put mail into an inbox (README "SMTP as
    // applications configure it"): the rehearsal signup is off then; GET /v1/agent/autotest (with a key) remains.
    if (s.config.smtpAuth === 'required')
      throw new AppError(
        'forbidden',
        'the rehearsal signup mails inboxes without a key, which --smtp-auth required rules out on this server; use GET /v1/agent/autotest with an API key instead',
      );
    limitIp(s.rehearsals, ctx.request.ip, 'signup');
    const address = input.email.trim().toLowerCase();
    if (address === '' || address.length > 320 || !address.includes('@'))
      return html(signupForm(`${input.email || 'That'} is not an e-mail address. Use the address of an inbox on this server.`));
    await s.rehearsals.count(ctx.request.ip, 'signup');
    return html(codeForm(await s.agent.rehearse(address)));
  },
});

export const testConfirm = op({
  name: 'rehearsal.confirm',
  summary: 'Rehearsal: check the code the agent typed',
  access: 'public',
  http: { method: 'POST', path: '/v1/agent/test/confirm', body: 'form', raw: ['text/html'] },
  input: z.object({ session: z.string().max(64).default(''), code: z.string().max(64).default('') }),
  output: Html,
  audit: false,
  async handler(ctx, input) {
    const store = ctx.services.rehearsals;
    limitIp(store, ctx.request.ip, 'wrong');
    const r = await store.checkCode(input.session, input.code);
    if (r !== 'ok') await store.count(ctx.request.ip, 'wrong');
    if (r === 'unknown') return html(failure('This rehearsal session is unknown or expired.'));
    if (r === 'locked') return html(failure(LOCKED), 423);
    const session = (await store.get(input.session))!;
    return html(
      r === 'ok'
        ? success(session, 'code')
        : codeForm(session, `${input.code} is not the code we sent. Look at the newest message in the inbox.`),
    );
  },
});

export const testMagic = op({
  name: 'rehearsal.magic',
  summary: 'Rehearsal: the magic link the agent clicked',
  access: 'public',
  http: { method: 'GET', path: '/v1/agent/test/magic', raw: ['text/html'] },
  input: z.object({ session: z.string().max(64).default(''), token: z.string().max(128).default('') }),
  output: Html,
  audit: false,
  async handler(ctx, input) {
    const store = ctx.services.rehearsals;
    limitIp(store, ctx.request.ip, 'wrong');
    const r = await store.checkLink(input.session, input.token);
    if (r !== 'ok') await store.count(ctx.request.ip, 'wrong');
    if (r === 'locked') return html(failure(LOCKED), 423);
    if (r !== 'ok')
      return html(failure(r === 'unknown' ? 'This rehearsal session is unknown or expired.' : 'This link is not the one we sent.'));
    return html(success((await store.get(input.session))!, 'magic link'));
  },
});

export const rehearsalOps = [testPage, testSignup, testConfirm, testMagic];
