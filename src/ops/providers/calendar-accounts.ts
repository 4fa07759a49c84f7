// Calendar accounts (CONTRACT §15): status of the local invitation calendar and the connected CalDAV / Google
// Calendar accounts, connecting (credentials checked first, then sealed), listing, and the REST-only disconnect.
import { z } from 'zod';
import { accountView } from '../../providers/accounts.ts';
import { principal } from '../common.ts';
import { op } from '../op.ts';

const Account = z.object({
  id: z.string(),
  kind: z.string(),
  provider: z.string().describe('caldav or google'),
  address: z.string().describe('What the account is known by: the CalDAV user and server, the Google calendar id'),
  label: z.string().nullable(),
  status: z.enum(['connected', 'error']),
  lastError: z.string().nullable(),
  lastSyncAt: z.string().nullable(),
  createdAt: z.string(),
});
const LocalView = z.object({
  events: z.number().describe('Events in the local calendar this key can see'),
  syncedTo: z.string().nullable().describe('Mail received up to this time has been read for invitations'),
  recentlySkipped: z
    .array(z.object({ inboxId: z.string().nullable(), messageId: z.string(), reason: z.string() }))
    .describe('Calendar parts of received mail that were not applied, with why'),
});
const HOW =
  'connect CalDAV (Radicale, Nextcloud, Baikal…) or Google Calendar with svc_calendar_connect (POST /v1/providers/calendar/accounts)';

export const calendarStatusOp = op({
  name: 'calendar.status',
  summary: 'Calendar providers: local calendar and connected accounts',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/calendar' },
  tool: {
    name: 'svc_calendar_status',
    description: 'Which calendars the calendar tools can use: local (from invitations) and connected CalDAV/Google accounts.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({}),
  output: z.object({
    configured: z.literal(true).describe('The local calendar always works; remote accounts are optional'),
    canConnect: z.boolean().describe('False when the server has no INBOXD_SECRET_KEY (connecting is refused)'),
    local: LocalView,
    accounts: z.array(Account).describe('Connected remote calendars (not shown to label-scoped keys)'),
    howToConnect: z.string(),
  }),
  async handler(ctx) {
    const st = await ctx.services.calendar.status(principal(ctx));
    return {
      configured: true as const,
      canConnect: st.canConnect,
      local: st.local,
      accounts: st.accounts.map(accountView),
      howToConnect: HOW,
    };
  },
});

const CalendarInfo = z.object({ id: z.string(), name: z.string(), primary: z.boolean() });

export const calendarConnectOp = op({
  name: 'calendar.connect',
  summary: 'Connect a CalDAV or Google Calendar account',
  description:
    'Logs in with the credentials first and lists the calendars; only a working account is stored, its credentials encrypted with INBOXD_SECRET_KEY and never returned. Connecting the same account again replaces its credentials.',
  access: 'admin',
  audit: { action: 'calendar.connect', target: (_i, o) => o.account.id },
  http: { method: 'POST', path: '/v1/providers/calendar/accounts', status: 201, headers: { 'Cache-Control': 'no-store' } },
  tool: {
    name: 'svc_calendar_connect',
    description: 'Connect a calendar (admin): provider caldav (serverUrl, username, password) or google (OAuth client + refreshToken).',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    provider: z.enum(['caldav', 'google']).describe('caldav (any CalDAV server) or google (Google Calendar API)'),
    label: z.string().max(100).optional().describe('A name for the account, e.g. "work"'),
    serverUrl: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional()
      .describe('caldav: the server or principal URL, e.g. https://dav.example.com/'),
    username: z.string().min(1).max(320).optional().describe('caldav: user name'),
    password: z.string().min(1).max(1000).optional().describe('caldav: password or app password'),
    calendarUrl: z.string().max(2000).optional().describe('caldav: the calendar new events go to (default the first one)'),
    refreshToken: z.string().min(1).max(4000).optional().describe('google: OAuth refresh token'),
    clientId: z.string().min(1).max(500).optional().describe('google: OAuth client id'),
    clientSecret: z.string().min(1).max(500).optional().describe('google: OAuth client secret'),
    accessToken: z.string().min(1).max(4000).optional().describe('google: a current access token (optional; refreshed when needed)'),
    calendarId: z.string().min(1).max(1000).optional().describe('google: the calendar new events go to (default primary)'),
  }),
  output: z.object({ account: Account, calendars: z.array(CalendarInfo) }),
  handler: (ctx, i) => ctx.services.calendar.connect(principal(ctx), i),
});

export const calendarListAccountsOp = op({
  name: 'calendar.list_accounts',
  summary: 'List calendar accounts',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/calendar/accounts' },
  tool: {
    name: 'svc_calendar_list_accounts',
    description: 'List the calendar accounts to pass as accountIds: "local" and each connected account with its status.',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({}),
  output: z.object({ local: LocalView.extend({ id: z.literal('local') }), items: z.array(Account) }),
  async handler(ctx) {
    const { accounts, local } = await ctx.services.calendar.listAccounts(principal(ctx));
    return { local: { id: 'local' as const, ...local }, items: accounts.map(accountView) };
  },
});

export const calendarDisconnectOp = op({
  name: 'calendar.disconnect',
  summary: 'Disconnect a calendar account (forgets its credentials)',
  access: 'admin',
  description: 'Forgets the account and its stored credentials; nothing changes on the calendar server.',
  http: { method: 'DELETE', path: '/v1/providers/calendar/accounts/:id' },
  audit: { action: 'calendar.disconnect', target: (i) => i.id },
  input: z.strictObject({ id: z.string().min(1).max(64).describe('Calendar account id (pac_…)') }),
  output: z.object({ deleted: z.literal(true), accountId: z.string() }),
  async handler(ctx, i) {
    await ctx.services.calendar.disconnect(principal(ctx), i.id);
    return { deleted: true as const, accountId: i.id };
  },
});

export const calendarAccountOps = [calendarStatusOp, calendarConnectOp, calendarListAccountsOp, calendarDisconnectOp];
