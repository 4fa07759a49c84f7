// Mailbox provider tools (CONTRACT §15), accounts and settings: svc_gmail_status, svc_gmail_connect,
// svc_gmail_list_accounts, svc_gmail_get_settings, svc_gmail_set_settings, and the REST-only disconnect. The logic
// lives in src/providers/mailbox/ (MailboxService); these are the thin edges.
import { z } from 'zod';
import { accountView } from '../../providers/accounts.ts';
import { MailboxSettings, Timezone, TriageRule } from '../../providers/mailbox/settings.ts';
import { principal, singleLine } from '../common.ts';
import { op } from '../op.ts';
import { AccountId, gmailReadOps } from './mailbox-read.ts';

const Account = z.object({
  id: z.string().describe('Account id (pac_…)'),
  kind: z.literal('mailbox'),
  provider: z.string().describe('imap or gmail'),
  address: z.string().describe('The mailbox address'),
  label: z.string().nullable(),
  status: z.enum(['connected', 'error']).describe('connected, or error when the server failed the last time it was used'),
  lastError: z.string().nullable(),
  lastSyncAt: z.string().nullable(),
  createdAt: z.string(),
});

const LOCAL = {
  available: z.literal(true).describe('Always: inboxd’s own inboxes need no account'),
  description: z.string(),
};
const LOCAL_TEXT =
  'inboxd’s own inboxes (within this key’s label scope) as a mailbox: used when no account is connected, or with accountId "local"';

export const gmailStatus = op({
  name: 'mailbox.status',
  summary: 'Mailbox provider status',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/mailbox' },
  tool: {
    name: 'svc_gmail_status',
    description: "Which mailboxes the svc_gmail_* tools can use: local (inboxd's inboxes) and connected IMAP/Gmail accounts.",
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  input: z.strictObject({}),
  output: z.object({
    configured: z.boolean().describe('At least one remote mailbox account is connected'),
    local: z.object(LOCAL),
    defaultAccount: z
      .string()
      .nullable()
      .describe('What the tools use without accountId: the only account, "local" with none, null with several'),
    accounts: z.array(Account),
  }),
  async handler(ctx) {
    const rows = await ctx.services.mailbox.accounts(principal(ctx));
    return {
      configured: rows.length > 0,
      local: { available: true as const, description: LOCAL_TEXT },
      defaultAccount: rows.length === 0 ? 'local' : rows.length === 1 ? rows[0]!.id : null,
      accounts: rows.map(accountView) as Array<z.infer<typeof Account>>,
    };
  },
});

const Str = (max: number) => singleLine(z.string().min(1).max(max));

export const gmailConnect = op({
  name: 'mailbox.connect',
  summary: 'Connect a mailbox account',
  description:
    'Checks the credentials against the server first (IMAP login, SMTP login when given, or a Gmail token refresh and profile read) and stores the account only when they work, sealed with INBOXD_SECRET_KEY (refused with 501 when it is unset). Credentials are never returned or logged. Connecting the same provider and address again replaces its credentials.',
  access: 'admin',
  http: { method: 'POST', path: '/v1/providers/mailbox/accounts', status: 201, headers: { 'Cache-Control': 'no-store' } },
  tool: {
    name: 'svc_gmail_connect',
    description: 'Connect a mailbox (admin): provider imap (host, port, user, password, smtp*) or gmail (OAuth client + refreshToken).',
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({
    provider: z.enum(['imap', 'gmail']).describe('imap (any IMAP server, with optional SMTP) or gmail (the Gmail REST API)'),
    label: Str(100).optional().describe('A name for the account, e.g. "support inbox"'),
    host: Str(253).optional().describe('imap: the IMAP server host name'),
    port: z.coerce.number().int().min(1).max(65535).optional().describe('imap: the IMAP port (default 993)'),
    secure: z.boolean().optional().describe('imap: TLS from the start (default: true on port 993; otherwise STARTTLS when offered)'),
    user: Str(320).optional().describe('imap: the login user name'),
    password: z.string().min(1).max(1024).optional().describe('imap: the login password (stored sealed, never returned)'),
    address: Str(320).optional().describe('imap: the mailbox’s e-mail address (default the user name when it is one)'),
    tlsInsecure: z.boolean().optional().describe('imap/smtp: accept a self-signed TLS certificate (lab servers only)'),
    smtpHost: Str(253).optional().describe('imap: SMTP server for this mailbox (stored with it; drafts never send)'),
    smtpPort: z.coerce.number().int().min(1).max(65535).optional().describe('imap: SMTP port (default 587)'),
    smtpSecure: z.boolean().optional().describe('imap: SMTP over TLS from the start (default: true on port 465)'),
    smtpUser: Str(320).optional().describe('imap: SMTP login user (omit for no SMTP AUTH)'),
    smtpPassword: z.string().min(1).max(1024).optional().describe('imap: SMTP login password (stored sealed)'),
    clientId: Str(512).optional().describe('gmail: the OAuth client id'),
    clientSecret: z.string().min(1).max(512).optional().describe('gmail: the OAuth client secret (stored sealed)'),
    refreshToken: z.string().min(1).max(2048).optional().describe('gmail: an OAuth refresh token with a Gmail scope (stored sealed)'),
    accessToken: z.string().min(1).max(4096).optional().describe('gmail: a current access token, if you have one (else one is fetched)'),
  }),
  output: Account,
  audit: { action: 'mailbox.connect', target: (_i, o) => (o as { id: string }).id },
  async handler(ctx, input) {
    const row = await ctx.services.mailbox.connect(principal(ctx), input);
    return accountView(row) as z.infer<typeof Account>;
  },
});

export const gmailListAccounts = op({
  name: 'mailbox.list_accounts',
  summary: 'List connected mailbox accounts',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/mailbox/accounts' },
  tool: {
    name: 'svc_gmail_list_accounts',
    description: 'List connected mailbox accounts (id, provider, address, status); pass an id as accountId, or "local".',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  input: z.strictObject({}),
  output: z.object({ items: z.array(Account), local: z.object(LOCAL) }),
  async handler(ctx) {
    const rows = await ctx.services.mailbox.accounts(principal(ctx));
    return { items: rows.map(accountView) as Array<z.infer<typeof Account>>, local: { available: true as const, description: LOCAL_TEXT } };
  },
});

export const gmailDisconnect = op({
  name: 'mailbox.disconnect',
  summary: 'Disconnect a mailbox account',
  description: 'Forgets the account, its sealed credentials and its settings. REST only (the tool list is fixed).',
  access: 'admin',
  http: { method: 'DELETE', path: '/v1/providers/mailbox/accounts/:accountId' },
  input: z.strictObject({ accountId: z.string().min(1).max(64).describe('The account (pac_…)') }),
  output: z.object({ deleted: z.literal(true), accountId: z.string() }),
  async handler(ctx, input) {
    await ctx.services.mailbox.disconnect(principal(ctx), input.accountId);
    return { deleted: true as const, accountId: input.accountId };
  },
});

const SettingsView = MailboxSettings.extend({
  accountId: z.string().describe('"local" or the account id the settings belong to'),
  updatedAt: z.string().nullable().describe('When they were last set; null: the defaults'),
});

export const gmailGetSettings = op({
  name: 'mailbox.get_settings',
  summary: 'Get mailbox settings',
  access: 'read',
  http: { method: 'GET', path: '/v1/providers/mailbox/settings' },
  tool: {
    name: 'svc_gmail_get_settings',
    description: "A mailbox's settings: triage rules, digest window, draft signature and time zone.",
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  input: z.strictObject({ accountId: AccountId.optional() }),
  output: SettingsView,
  async handler(ctx, input) {
    return ctx.services.mailbox.settings(principal(ctx), input.accountId);
  },
});

export const gmailSetSettings = op({
  name: 'mailbox.set_settings',
  summary: 'Set mailbox settings',
  access: 'write',
  http: { method: 'PUT', path: '/v1/providers/mailbox/settings' },
  tool: {
    name: 'svc_gmail_set_settings',
    description: "Change a mailbox's settings (triage rules, digest window, signature, timezone); omitted fields stay.",
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    accountId: AccountId.optional(),
    triageRules: z
      .array(TriageRule)
      .max(100)
      .optional()
      .describe('Replaces the rules: each {from | domain | subjectContains, category, reason?}'),
    digestWindowHours: z.number().int().min(1).max(744).optional().describe('Default look-back of svc_gmail_digest in hours (1-744)'),
    signature: z.string().max(2000).nullable().optional().describe('Signature appended to drafts; null removes it'),
    timezone: Timezone.optional(),
  }),
  output: SettingsView,
  audit: { action: 'mailbox.set_settings' },
  async handler(ctx, input) {
    const { accountId, ...patch } = input;
    return ctx.services.mailbox.setSettings(principal(ctx), accountId, patch);
  },
});

export const gmailOps = [
  gmailStatus,
  gmailConnect,
  gmailListAccounts,
  gmailDisconnect,
  ...gmailReadOps,
  gmailGetSettings,
  gmailSetSettings,
];
