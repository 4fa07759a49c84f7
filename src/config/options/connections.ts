// Options, part 3 of 4 in --help order: connection caps, inbound webhooks, SMTP sessions, waits, MCP sessions.
// One entry per option (src/config/define.ts says what an entry is); its Config field is typed from its schema.
import { z } from 'zod';
import { parseTrustedEntry } from '../../lib/proxy-protocol.ts';
import { atLeast, commaList, flagBool, type OptionEntry, port } from '../define.ts';

export const CONNECTION_OPTIONS = {
  smtpMaxConnections: {
    flag: '--smtp-max-connections',
    env: 'INBOXD_SMTP_MAX_CONNECTIONS',
    arg: 'N',
    help: 'open SMTP connections at once; more are answered 421 and closed',
    schema: atLeast(1, 100_000),
    default: 1000,
  },
  smtpMaxConnectionsPerIp: {
    flag: '--smtp-max-connections-per-ip',
    env: 'INBOXD_SMTP_MAX_CONNECTIONS_PER_IP',
    arg: 'N',
    help: 'open SMTP connections at once from one client address (0 = no limit); more are answered 421 and closed',
    schema: atLeast(0, 100_000),
    default: 200,
  },
  maxHttpConnections: {
    flag: '--max-http-connections',
    env: 'INBOXD_MAX_HTTP_CONNECTIONS',
    arg: 'N',
    help: 'open HTTP connections at once (lowered to fit the open-file limit); more are answered 503 and closed',
    schema: atLeast(1, 1_000_000),
    default: 4096,
  },
  maxHttpConnectionsPerIp: {
    flag: '--max-http-connections-per-ip',
    env: 'INBOXD_MAX_HTTP_CONNECTIONS_PER_IP',
    arg: 'N',
    help: 'open HTTP connections at once from one client address (0 = no limit); more are answered 503 and closed',
    schema: atLeast(0, 1_000_000),
    default: 256,
  },
  httpHeaderTimeoutSeconds: {
    flag: '--http-header-timeout-seconds',
    env: 'INBOXD_HTTP_HEADER_TIMEOUT_SECONDS',
    arg: 'SECONDS',
    help: 'a connection that has not sent a complete request header within this time is answered 408 and closed',
    schema: atLeast(1, 300),
    default: 10,
  },
  trustedProxies: {
    flag: '--trusted-proxies',
    env: 'INBOXD_TRUSTED_PROXIES',
    arg: 'ADDR|CIDR[,…]',
    help: 'load balancers whose connections must start with a PROXY protocol header (v1/v2; SMTP, HTTP, POP3, IMAP) and whose X-Forwarded-For is believed; a PROXY header from any other address is refused',
    schema: commaList((e) => e.trim()).pipe(
      z.array(z.string()).superRefine((list, ctx) => {
        for (const e of list) {
          const r = parseTrustedEntry(e);
          if (typeof r === 'string') ctx.addIssue({ code: 'custom', message: r });
        }
      }),
    ),
    default: '',
  },
  inboundWebhooks: {
    flag: '--inbound-webhooks',
    env: 'INBOXD_INBOUND_WEBHOOKS',
    arg: 'PROVIDER[,PROVIDER…]|all|none',
    help: 'providers whose POST /webhooks/<provider> route is on: raw, mailgun, sendgrid, postmark, ses (others answer 501)',
    schema: commaList((p) => p.trim().toLowerCase()).pipe(
      z
        .array(
          z.enum(['raw', 'mailgun', 'sendgrid', 'postmark', 'ses', 'all', 'none'], {
            error: 'must be raw, mailgun, sendgrid, postmark, ses, all or none',
          }),
        )
        .transform((l) =>
          l.includes('all') ? ['raw', 'mailgun', 'sendgrid', 'postmark', 'ses'] : [...new Set(l.filter((p) => p !== 'none'))],
        ),
    ),
    default: 'none',
  },
  webhookInflightBytes: {
    flag: '--webhook-inflight-bytes',
    env: 'INBOXD_WEBHOOK_INFLIGHT_BYTES',
    arg: 'BYTES',
    help: 'request-body bytes all webhook uploads together may hold at once; more are answered 503 with Retry-After',
    schema: atLeast(1024, 16 * 1024 ** 3),
    default: 128 * 1024 * 1024,
  },
  smtpAuth: {
    flag: '--smtp-auth',
    env: 'INBOXD_SMTP_AUTH',
    arg: 'MODE',
    help: 'SMTP AUTH (PLAIN, LOGIN): any = any credentials accepted, required = an API key as the password, off = not offered',
    schema: z.enum(['any', 'required', 'off'], { error: 'must be any, required or off' }),
    default: 'any',
  },
  acceptAnyDomain: {
    flag: '--accept-any-domain',
    env: 'INBOXD_ACCEPT_ANY_DOMAIN',
    help: 'sink mode for test environments: keep mail for every domain (never relayed) and allow inboxes at any domain',
    schema: flagBool,
    default: false,
  },
  smtpMaxSessionSeconds: {
    flag: '--smtp-max-session-seconds',
    env: 'INBOXD_SMTP_MAX_SESSION_SECONDS',
    arg: 'SECONDS',
    help: 'longest an SMTP connection may stay open; then it is answered 421 4.7.0 and closed',
    schema: atLeast(1, 86_400),
    default: 600,
  },
  smtpFaultShortcuts: {
    flag: '--smtp-fault-shortcuts',
    env: 'INBOXD_SMTP_FAULT_SHORTCUTS',
    arg: 'MODE',
    help: 'on = a recipient local part such as fail-452+x@, disconnect-data+x@, greylist+x@ injects that fault (README "Fault rules"); off = plain addresses',
    schema: z.enum(['on', 'off'], { error: 'must be on or off' }),
    default: 'on',
  },
  smtpMaxCommands: {
    flag: '--smtp-max-commands',
    env: 'INBOXD_SMTP_MAX_COMMANDS',
    arg: 'N',
    help: 'SMTP commands one connection may send without delivering a message (each accepted message starts the count again); more get 421 4.7.0',
    schema: atLeast(10, 1_000_000),
    default: 1000,
  },
  pop3Port: {
    flag: '--pop3-port',
    env: 'INBOXD_POP3_PORT',
    arg: 'PORT',
    help: 'POP3 listener port (off unless given; 0 picks a free port): user = inbox address, password = an API key or token that may read it',
    schema: port.optional(),
  },
  imapPort: {
    flag: '--imap-port',
    env: 'INBOXD_IMAP_PORT',
    arg: 'PORT',
    help: 'IMAP4rev1 listener port (off unless given; 0 picks a free port): INBOX and Sent of one inbox, log in as for POP3',
    schema: port.optional(),
  },
  maxWaitersPerKey: {
    flag: '--max-waiters-per-key',
    env: 'INBOXD_MAX_WAITERS_PER_KEY',
    arg: 'N',
    help: 'long-poll waits (wait, verify, open, wait tools) one API key or token may hold open at once; more get 429 (0 = no limit)',
    schema: atLeast(0, 1_000_000),
    default: 500,
  },
  maxWaitersPerTeam: {
    flag: '--max-waiters-per-team',
    env: 'INBOXD_MAX_WAITERS_PER_TEAM',
    arg: 'N',
    help: 'long-poll waits all keys of one team may hold open at once; more get 429 (0 = no limit)',
    schema: atLeast(0, 1_000_000),
    default: 1000,
  },
  maxWaiters: {
    flag: '--max-waiters',
    env: 'INBOXD_MAX_WAITERS',
    arg: 'N',
    help: 'long-poll waits open at once in the whole server; more get 429 (0 = no limit)',
    schema: atLeast(0, 1_000_000),
    default: 2000,
  },
  waitMaxBodyChars: {
    flag: '--wait-max-body-chars',
    env: 'INBOXD_WAIT_MAX_BODY_CHARS',
    arg: 'N',
    help: 'text and html longer than this (counted as the JSON answer writes them: a control character is six) are cut in wait answers (truncated: true; the full message stays at its URL)',
    schema: atLeast(1024, 512 * 1024 * 1024),
    default: 256 * 1024,
  },
  mcpMaxSessions: {
    flag: '--mcp-max-sessions',
    env: 'INBOXD_MCP_MAX_SESSIONS',
    arg: 'N',
    help: 'MCP sessions open at once; when full, the least recently used session with no call in flight is closed to make room (503 when every one is busy)',
    schema: atLeast(1, 1_000_000),
    default: 1000,
  },
  mcpMaxSessionsPerKey: {
    flag: '--mcp-max-sessions-per-key',
    env: 'INBOXD_MCP_MAX_SESSIONS_PER_KEY',
    arg: 'N',
    help: 'MCP sessions one API key or token may hold open at once; more initialize calls get 429 (0 = no limit)',
    schema: atLeast(0, 1_000_000),
    default: 100,
  },
  mcpMaxSessionsPerTeam: {
    flag: '--mcp-max-sessions-per-team',
    env: 'INBOXD_MCP_MAX_SESSIONS_PER_TEAM',
    arg: 'N',
    help: 'MCP sessions all keys of one team may hold open at once; more initialize calls get 429 (0 = no limit)',
    schema: atLeast(0, 1_000_000),
    default: 500,
  },
  mcpToolsets: {
    flag: '--mcp-toolsets',
    env: 'INBOXD_MCP_TOOLSETS',
    arg: 'SETS',
    help: 'toolsets an MCP connection gets when its URL names none (/mcp?toolsets=a,b), comma-separated: runs, mail, workspace, mailbox, calendar, verify, inboxes, search, send, checks, labels, faults, domains, reminders, monitors; empty or all = every tool',
    schema: commaList((o) => o.trim().toLowerCase()).pipe(
      z.array(z.string().regex(/^[a-z]+$/, 'a toolset name is lower-case letters (GET /mcp/auth lists them)')),
    ),
    default: '',
  },
  mcpAllowedOrigins: {
    flag: '--mcp-allowed-origins',
    env: 'INBOXD_MCP_ALLOWED_ORIGINS',
    arg: 'ORIGINS',
    help: 'more browser origins (scheme://host[:port], comma-separated) allowed to call /mcp besides the --base-url origin and loopback origins',
    schema: commaList((o) => o.trim()).pipe(
      z.array(
        z
          .string()
          .regex(/^https?:\/\/[^/\s]+$/, 'each origin must be http(s)://host[:port], without a path')
          .refine((o) => URL.canParse(o), 'not a valid origin')
          .transform((o) => new URL(o).origin),
      ),
    ),
    default: '',
  },
} satisfies Record<string, OptionEntry>;
