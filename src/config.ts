// Every setting of the program, defined once: flag, environment variable, schema, default and help text.
// Precedence: command-line flag > environment variable > default. A bad value is a usage error (exit 2)
// whose one-line message names the flag.
import net from 'node:net';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseModels } from './ai/models.ts';
import { parseSecretKey } from './lib/sealed.ts';
import { parseEmbeddings } from './search/embeddings.ts';
import { parseS3Url, type S3Credentials, s3CredentialsFromEnv } from './store/s3-url.ts';
import { parsePgUrl } from './store/pg-url.ts';

const port = z.coerce.number().int('must be a whole number').min(0, 'must be 0-65535').max(65535, 'must be 0-65535');
const flagBool = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes'),
]);
const hostname = z
  .string()
  .regex(
    /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i,
    'must be a domain name such as inboxd.test',
  );

export interface OptionDef {
  flag: string;
  env: string;
  /** Placeholder shown in --help; absent for boolean switches. */
  arg?: string;
  help: string;
  schema: z.ZodType;
  default: unknown;
}

export const OPTIONS = {
  smtpPort: {
    flag: '--smtp-port',
    env: 'INBOXD_SMTP_PORT',
    arg: 'PORT',
    help: 'SMTP listener port (0 picks a free port)',
    schema: port,
    default: 25,
  },
  httpPort: {
    flag: '--http-port',
    env: 'INBOXD_HTTP_PORT',
    arg: 'PORT',
    help: 'HTTP API port (0 picks a free port)',
    schema: port,
    default: 8025,
  },
  host: {
    flag: '--host',
    env: 'INBOXD_HOST',
    arg: 'ADDR',
    help: 'address both listeners bind to',
    schema: z.string().min(1),
    default: '0.0.0.0',
  },
  dataDir: {
    flag: '--data-dir',
    env: 'INBOXD_DATA_DIR',
    arg: 'DIR',
    help: 'where inboxd.db, blobs/, ports.json and admin.key live',
    schema: z.string().min(1),
    default: './inboxd-data',
  },
  domains: {
    flag: '--domain',
    env: 'INBOXD_DOMAIN',
    arg: 'DOMAIN[,DOMAIN…]',
    help: 'mail domain(s) inboxd accepts mail for (catch-all); the first one is used for new addresses',
    schema: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((d) => d.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(z.array(hostname).min(1, 'needs at least one domain')),
    default: 'inboxd.test',
  },
  baseUrl: {
    flag: '--base-url',
    env: 'INBOXD_BASE_URL',
    arg: 'URL',
    help: 'public URL of the HTTP API, used in rawUrl, links and OAuth metadata (default http://localhost:<http-port>)',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, '')),
    default: undefined,
  },
  maxMessageBytes: {
    flag: '--max-message-bytes',
    env: 'INBOXD_MAX_MESSAGE_BYTES',
    arg: 'BYTES',
    help: 'largest message accepted (SMTP SIZE, webhooks, simulate)',
    schema: z.coerce
      .number()
      .int('must be a whole number')
      .min(1024, 'must be at least 1024')
      .max(512 * 1024 * 1024, 'must be at most 536870912'),
    default: 25 * 1024 * 1024,
  },
  unclaimedTtlMinutes: {
    flag: '--unclaimed-ttl-minutes',
    env: 'INBOXD_UNCLAIMED_TTL_MINUTES',
    arg: 'MINUTES',
    help: 'how long mail for an address without an inbox is kept for an inbox created later to claim',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(10080, 'must be at most 10080'),
    default: 15,
  },
  smtpTlsCert: {
    flag: '--smtp-tls-cert',
    env: 'INBOXD_SMTP_TLS_CERT',
    arg: 'FILE',
    help: 'PEM certificate for SMTP STARTTLS (with --smtp-tls-key; STARTTLS is off without both)',
    schema: z.string().min(1),
    default: undefined,
  },
  smtpTlsKey: {
    flag: '--smtp-tls-key',
    env: 'INBOXD_SMTP_TLS_KEY',
    arg: 'FILE',
    help: 'PEM private key for SMTP STARTTLS',
    schema: z.string().min(1),
    default: undefined,
  },
  maxInboxes: {
    flag: '--max-inboxes',
    env: 'INBOXD_MAX_INBOXES',
    arg: 'N',
    help: 'plan limit: inboxes a team may have at once (0 = no limit)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more'),
    default: 0,
  },
  maxMessagesPerInbox: {
    flag: '--max-messages-per-inbox',
    env: 'INBOXD_MAX_MESSAGES_PER_INBOX',
    arg: 'N',
    help: 'plan limit: messages one inbox accepts over its life (0 = no limit); more is refused with SMTP 452 4.2.2',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more'),
    default: 0,
  },
  maxUnclaimedPerAddress: {
    flag: '--max-unclaimed-per-address',
    env: 'INBOXD_MAX_UNCLAIMED_PER_ADDRESS',
    arg: 'N',
    help: 'unclaimed messages kept per address without an inbox (0 = no limit); more is refused with SMTP 452 4.2.2',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more'),
    default: 50,
  },
  maxUnclaimed: {
    flag: '--max-unclaimed',
    env: 'INBOXD_MAX_UNCLAIMED',
    arg: 'N',
    help: 'unclaimed messages kept in total (0 = no limit); more is refused with SMTP 452 4.2.2',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more'),
    default: 10000,
  },
  unclaimedClaimSeconds: {
    flag: '--unclaimed-claim-seconds',
    env: 'INBOXD_UNCLAIMED_CLAIM_SECONDS',
    arg: 'SECONDS',
    help: 'a new inbox claims unclaimed mail that arrived at most this long before it (also bounded by --unclaimed-ttl-minutes)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(604800, 'must be at most 604800'),
    default: 120,
  },
  rateLimit: {
    flag: '--rate-limit',
    env: 'INBOXD_RATE_LIMIT',
    arg: 'PER_MINUTE',
    help: 'plan limit: API requests per minute per key (0 = no limit); more get 429 with Retry-After',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more'),
    default: 0,
  },
  billingApiBase: {
    flag: '--billing-api-base',
    env: 'INBOXD_BILLING_API_BASE',
    arg: 'URL',
    help: 'Stripe-compatible billing API (e.g. https://api.stripe.com); with INBOXD_BILLING_SECRET_KEY enables /v1/billing/*',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, '')),
    default: undefined,
  },
  googleCalendarApiBase: {
    flag: '--google-calendar-api-base',
    env: 'INBOXD_GOOGLE_CALENDAR_API_BASE',
    arg: 'URL',
    help: 'Google Calendar API v3 base URL for connected google calendar accounts (a compatible server or a local fake)',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, '')),
    default: 'https://www.googleapis.com/calendar/v3',
  },
  calendarMaxInstances: {
    flag: '--calendar-max-instances',
    env: 'INBOXD_CALENDAR_MAX_INSTANCES',
    arg: 'N',
    help: 'event instances one calendar read expands at most, all events together (recurring events past it are cut, with a warning)',
    schema: z.coerce.number().int('must be a whole number').min(10, 'must be 10-1000000').max(1_000_000, 'must be 10-1000000'),
    default: 5_000,
  },
  calendarMaxEventInstances: {
    flag: '--calendar-max-event-instances',
    env: 'INBOXD_CALENDAR_MAX_EVENT_INSTANCES',
    arg: 'N',
    help: 'instances of one recurring event one calendar read lists at most (a FREQ=SECONDLY rule stops here, with a warning)',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-1000000').max(1_000_000, 'must be 1-1000000'),
    default: 2_000,
  },
  calendarMaxRuleSteps: {
    flag: '--calendar-max-rule-steps',
    env: 'INBOXD_CALENDAR_MAX_RULE_STEPS',
    arg: 'N',
    help: 'candidate dates a recurrence rule may examine without finding an instance before it is taken as never matching (an event may take 5x, a read 25x)',
    schema: z.coerce.number().int('must be a whole number').min(100, 'must be 100-10000000').max(10_000_000, 'must be 100-10000000'),
    default: 20_000,
  },
  calendarReadBudgetMs: {
    flag: '--calendar-read-budget-ms',
    env: 'INBOXD_CALENDAR_READ_BUDGET_MS',
    arg: 'MS',
    help: "time budget of one calendar read's expansion (and of reading one invitation) in the sandbox; an event over it is skipped with a warning",
    schema: z.coerce.number().int('must be a whole number').min(10, 'must be 10-600000').max(600_000, 'must be 10-600000'),
    default: 5000,
  },
  googleTokenUrl: {
    flag: '--google-token-url',
    env: 'INBOXD_GOOGLE_TOKEN_URL',
    arg: 'URL',
    help: 'OAuth token endpoint used to refresh Google access tokens (Gmail and Google Calendar accounts)',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    default: 'https://oauth2.googleapis.com/token',
  },
  billingPrice: {
    flag: '--billing-price',
    env: 'INBOXD_BILLING_PRICE',
    arg: 'PRICE_ID',
    help: 'price id of the paid plan for checkout',
    schema: z.string().min(1),
    default: undefined,
  },
  segmentSizeMb: {
    flag: '--segment-size-mb',
    env: 'INBOXD_SEGMENT_SIZE_MB',
    arg: 'MB',
    help: 'size at which the blob store starts a new segment file (smaller: faster compaction and start-up check)',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-1024').max(1024, 'must be 1-1024'),
    default: 64,
  },
  blobStore: {
    flag: '--blob-store',
    env: 'INBOXD_BLOB_STORE',
    arg: 'URL',
    help: 'keep raw messages and attachments in an S3-compatible bucket: s3://bucket[/prefix]?endpoint=http://host:port&region=…&forcePathStyle=1 (credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY); default: segment files in the data dir',
    schema: z.string().superRefine((v, ctx) => {
      try {
        parseS3Url(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message.replace(/^--blob-store:? ?/, '') });
      }
    }),
    default: undefined,
  },
  database: {
    flag: '--database',
    env: 'INBOXD_DATABASE_URL',
    arg: 'URL',
    help: 'postgres://USER@HOST:PORT/DB to store on PostgreSQL (several instances may share it); unset = SQLite in --data-dir. No password in the URL: use INBOXD_DATABASE_PASSWORD or PGPASSWORD',
    schema: z.string().min(1),
    default: undefined,
  },
  databasePoolSize: {
    flag: '--database-pool-size',
    env: 'INBOXD_DATABASE_POOL_SIZE',
    arg: 'N',
    help: 'PostgreSQL connections per instance (plus one for LISTEN and one for cluster jobs)',
    schema: z.coerce.number().int('must be a whole number').min(2, 'must be 2-200').max(200, 'must be 2-200'),
    default: 10,
  },
  noFsync: {
    flag: '--no-fsync',
    env: 'INBOXD_NO_FSYNC',
    help: 'answer 250 without fsync (for benchmarks only: a power loss can then lose acknowledged mail)',
    schema: flagBool,
    default: false,
  },
  allowHttpCallbacks: {
    flag: '--allow-http-callbacks',
    env: 'INBOXD_ALLOW_HTTP_CALLBACKS',
    help: 'allow callbackUrl with plain http (default: https only)',
    schema: flagBool,
    default: false,
  },
  metricsOpen: {
    flag: '--metrics-open',
    env: 'INBOXD_METRICS_OPEN',
    help: 'serve GET /metrics without a key (for a Prometheus scraper on a trusted network); default: an unscoped admin key is required',
    schema: flagBool,
    default: false,
  },
  allowPrivateCallbacks: {
    flag: '--allow-private-callbacks',
    env: 'INBOXD_ALLOW_PRIVATE_CALLBACKS',
    help: 'allow callbacks to loopback and private addresses (link-local and metadata addresses stay refused)',
    schema: flagBool,
    default: false,
  },
  callbackConcurrency: {
    flag: '--callback-concurrency',
    env: 'INBOXD_CALLBACK_CONCURRENCY',
    arg: 'N',
    help: 'callback attempts that hold a delivery worker at once (attempts to slow receivers move to the slow lane)',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-10000').max(10_000, 'must be 1-10000'),
    default: 64,
  },
  callbackConcurrencyPerHost: {
    flag: '--callback-concurrency-per-host',
    env: 'INBOXD_CALLBACK_CONCURRENCY_PER_HOST',
    arg: 'N',
    help: 'callback attempts in flight to one receiving host:port; a slow host (unanswered after 1 s) gets half',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-10000').max(10_000, 'must be 1-10000'),
    default: 8,
  },
  callbackSlowLane: {
    flag: '--callback-slow-lane',
    env: 'INBOXD_CALLBACK_SLOW_LANE',
    arg: 'N',
    help: 'callback attempts waiting on slow receivers held at once apart from the workers (each an open socket; 0 = none: they keep their worker)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0-100000').max(100_000, 'must be 0-100000'),
    default: 1024,
  },
  ingestThreads: {
    flag: '--ingest-threads',
    env: 'INBOXD_INGEST_THREADS',
    arg: 'N|auto',
    help: 'worker threads that parse and extract incoming mail (0 = on the main thread; auto = cores - 1, at least 1, at most 4)',
    schema: z.union([
      z.literal('auto').transform(() => Math.max(1, Math.min(4, availableParallelism() - 1))),
      z.coerce.number().int('must be a whole number or auto').min(0, 'must be 0-16 or auto').max(16, 'must be 0-16 or auto'),
    ]),
    default: 'auto',
  },
  sandboxThreads: {
    flag: '--sandbox-threads',
    env: 'INBOXD_SANDBOX_THREADS',
    arg: 'N',
    help: 'worker threads for untrusted work (caller schemas and patterns, recurrence rules, searches on SQLite, built-in extraction), started on first use',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-16').max(16, 'must be 1-16'),
    default: 2,
  },
  sandboxTimeoutMs: {
    flag: '--sandbox-timeout-ms',
    env: 'INBOXD_SANDBOX_TIMEOUT_MS',
    arg: 'MS',
    help: 'default time budget of one piece of untrusted work; its worker is stopped when it runs over',
    schema: z.coerce.number().int('must be a whole number').min(10, 'must be 10-600000').max(600_000, 'must be 10-600000'),
    default: 2000,
  },
  sandboxMaxHeapMb: {
    flag: '--sandbox-max-heap-mb',
    env: 'INBOXD_SANDBOX_MAX_HEAP_MB',
    arg: 'MB',
    help: 'heap limit of each untrusted-work thread: a job that needs more stops only its thread',
    schema: z.coerce.number().int('must be a whole number').min(16, 'must be 16-8192').max(8192, 'must be 16-8192'),
    default: 128,
  },
  sandboxMaxQueued: {
    flag: '--sandbox-max-queued',
    env: 'INBOXD_SANDBOX_MAX_QUEUED',
    arg: 'N',
    help: 'pieces of untrusted work queued or running at most; one team may hold a quarter of them',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-100000').max(100_000, 'must be 1-100000'),
    default: 64,
  },
  maxMonitorsPerTeam: {
    flag: '--max-monitors-per-team',
    env: 'INBOXD_MAX_MONITORS_PER_TEAM',
    arg: 'N',
    help: 'workspace monitors one team may have; creating more is refused with 409',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-100000').max(100_000, 'must be 1-100000'),
    default: 100,
  },
  monitorMaxMessages: {
    flag: '--monitor-max-messages',
    env: 'INBOXD_MONITOR_MAX_MESSAGES',
    arg: 'N',
    help: 'messages one monitor run examines (the newest of its window); a run that stops there says so',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-100000').max(100_000, 'must be 1-100000'),
    default: 1000,
  },
  monitorMaxTextChars: {
    flag: '--monitor-max-text-chars',
    env: 'INBOXD_MONITOR_MAX_TEXT_CHARS',
    arg: 'N',
    help: "characters of a message's text that a monitor's textContains looks at (the start of the text)",
    schema: z.coerce.number().int('must be a whole number').min(100, 'must be 100-10000000').max(10_000_000, 'must be 100-10000000'),
    default: 65_536,
  },
  monitorRunBytes: {
    flag: '--monitor-run-bytes',
    env: 'INBOXD_MONITOR_RUN_BYTES',
    arg: 'BYTES',
    help: 'message bytes whose text one monitor run may read (textContains); a run that stops there says so',
    schema: z.coerce.number().int('must be a whole number').min(1024, 'must be at least 1024'),
    default: 32 * 1024 * 1024,
  },
  monitorTickBytes: {
    flag: '--monitor-tick-bytes',
    env: 'INBOXD_MONITOR_TICK_BYTES',
    arg: 'BYTES',
    help: 'message bytes all monitor runs of one scheduler tick may read; due monitors past it run at the next tick',
    schema: z.coerce.number().int('must be a whole number').min(1024, 'must be at least 1024'),
    default: 256 * 1024 * 1024,
  },
  monitorTickMs: {
    flag: '--monitor-tick-ms',
    env: 'INBOXD_MONITOR_TICK_MS',
    arg: 'MS',
    help: 'time one scheduler tick may spend running monitors; due monitors past it run at the next tick',
    schema: z.coerce.number().int('must be a whole number').min(10, 'must be 10-600000').max(600_000, 'must be 10-600000'),
    default: 2000,
  },
  smtpMaxConnections: {
    flag: '--smtp-max-connections',
    env: 'INBOXD_SMTP_MAX_CONNECTIONS',
    arg: 'N',
    help: 'open SMTP connections at once; more are answered 421 and closed',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(100_000, 'must be at most 100000'),
    default: 1000,
  },
  smtpMaxConnectionsPerIp: {
    flag: '--smtp-max-connections-per-ip',
    env: 'INBOXD_SMTP_MAX_CONNECTIONS_PER_IP',
    arg: 'N',
    help: 'open SMTP connections at once from one client address (0 = no limit); more are answered 421 and closed',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(100_000, 'must be at most 100000'),
    default: 200,
  },
  maxHttpConnections: {
    flag: '--max-http-connections',
    env: 'INBOXD_MAX_HTTP_CONNECTIONS',
    arg: 'N',
    help: 'open HTTP connections at once (lowered to fit the open-file limit); more are answered 503 and closed',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000'),
    default: 4096,
  },
  maxHttpConnectionsPerIp: {
    flag: '--max-http-connections-per-ip',
    env: 'INBOXD_MAX_HTTP_CONNECTIONS_PER_IP',
    arg: 'N',
    help: 'open HTTP connections at once from one client address (0 = no limit); more are answered 503 and closed',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000, 'must be at most 1000000'),
    default: 256,
  },
  httpHeaderTimeoutSeconds: {
    flag: '--http-header-timeout-seconds',
    env: 'INBOXD_HTTP_HEADER_TIMEOUT_SECONDS',
    arg: 'SECONDS',
    help: 'a connection that has not sent a complete request header within this time is answered 408 and closed',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(300, 'must be at most 300'),
    default: 10,
  },
  inboundWebhooks: {
    flag: '--inbound-webhooks',
    env: 'INBOXD_INBOUND_WEBHOOKS',
    arg: 'PROVIDER[,PROVIDER…]|all|none',
    help: 'providers whose POST /webhooks/<provider> route is on: raw, mailgun, sendgrid, postmark, ses (others answer 501)',
    schema: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((p) => p.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(
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
    schema: z.coerce
      .number()
      .int('must be a whole number')
      .min(1024, 'must be at least 1024')
      .max(16 * 1024 ** 3, 'must be at most 17179869184'),
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
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(86_400, 'must be at most 86400'),
    default: 600,
  },
  smtpMaxCommands: {
    flag: '--smtp-max-commands',
    env: 'INBOXD_SMTP_MAX_COMMANDS',
    arg: 'N',
    help: 'SMTP commands one connection may send without delivering a message (each accepted message starts the count again); more get 421 4.7.0',
    schema: z.coerce.number().int('must be a whole number').min(10, 'must be at least 10').max(1_000_000, 'must be at most 1000000'),
    default: 1000,
  },
  maxWaitersPerKey: {
    flag: '--max-waiters-per-key',
    env: 'INBOXD_MAX_WAITERS_PER_KEY',
    arg: 'N',
    help: 'long-poll waits (wait, verify, open, wait tools) one API key or token may hold open at once; more get 429 (0 = no limit)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000, 'must be at most 1000000'),
    default: 500,
  },
  maxWaitersPerTeam: {
    flag: '--max-waiters-per-team',
    env: 'INBOXD_MAX_WAITERS_PER_TEAM',
    arg: 'N',
    help: 'long-poll waits all keys of one team may hold open at once; more get 429 (0 = no limit)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000, 'must be at most 1000000'),
    default: 1000,
  },
  maxWaiters: {
    flag: '--max-waiters',
    env: 'INBOXD_MAX_WAITERS',
    arg: 'N',
    help: 'long-poll waits open at once in the whole server; more get 429 (0 = no limit)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000, 'must be at most 1000000'),
    default: 2000,
  },
  waitMaxBodyChars: {
    flag: '--wait-max-body-chars',
    env: 'INBOXD_WAIT_MAX_BODY_CHARS',
    arg: 'N',
    help: 'text and html longer than this (counted as the JSON answer writes them: a control character is six) are cut in wait answers (truncated: true; the full message stays at its URL)',
    schema: z.coerce
      .number()
      .int('must be a whole number')
      .min(1024, 'must be at least 1024')
      .max(512 * 1024 * 1024, 'must be at most 536870912'),
    default: 256 * 1024,
  },
  mcpMaxSessions: {
    flag: '--mcp-max-sessions',
    env: 'INBOXD_MCP_MAX_SESSIONS',
    arg: 'N',
    help: 'MCP sessions open at once; when full, the least recently used session with no call in flight is closed to make room (503 when every one is busy)',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000'),
    default: 1000,
  },
  mcpMaxSessionsPerKey: {
    flag: '--mcp-max-sessions-per-key',
    env: 'INBOXD_MCP_MAX_SESSIONS_PER_KEY',
    arg: 'N',
    help: 'MCP sessions one API key or token may hold open at once; more initialize calls get 429 (0 = no limit)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000, 'must be at most 1000000'),
    default: 100,
  },
  mcpMaxSessionsPerTeam: {
    flag: '--mcp-max-sessions-per-team',
    env: 'INBOXD_MCP_MAX_SESSIONS_PER_TEAM',
    arg: 'N',
    help: 'MCP sessions all keys of one team may hold open at once; more initialize calls get 429 (0 = no limit)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000, 'must be at most 1000000'),
    default: 500,
  },
  mcpAllowedOrigins: {
    flag: '--mcp-allowed-origins',
    env: 'INBOXD_MCP_ALLOWED_ORIGINS',
    arg: 'ORIGINS',
    help: 'more browser origins (scheme://host[:port], comma-separated) allowed to call /mcp besides the --base-url origin and loopback origins',
    schema: z
      .string()
      .transform((v) =>
        v
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean),
      )
      .pipe(
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
  smtpRelay: {
    flag: '--smtp-relay',
    env: 'INBOXD_SMTP_RELAY',
    arg: 'URL',
    help: 'SMTP relay for sent mail to domains inboxd does not serve: smtp://host:port (STARTTLS when offered) or smtps://host:port; user and password only from INBOXD_SMTP_RELAY_USER / INBOXD_SMTP_RELAY_PASSWORD (without a relay, such sends get 501)',
    schema: z
      .url({ protocol: /^smtps?$/, error: 'must be smtp://host:port or smtps://host:port' })
      .refine((u) => new URL(u).username === '' && new URL(u).password === '', {
        error: 'must not contain a user or password (set INBOXD_SMTP_RELAY_USER and INBOXD_SMTP_RELAY_PASSWORD instead)',
      })
      .refine((u) => ['', '/'].includes(new URL(u).pathname) && new URL(u).search === '', { error: 'must be only smtp[s]://host:port' }),
    default: undefined,
  },
  smtpRelayTlsInsecure: {
    flag: '--smtp-relay-tls-insecure',
    env: 'INBOXD_SMTP_RELAY_TLS_INSECURE',
    help: "accept the relay's TLS certificate unchecked (a lab relay with a self-signed one); default: verified against the system CAs and NODE_EXTRA_CA_CERTS",
    schema: flagBool,
    default: false,
  },
  relayFromDomains: {
    flag: '--relay-from-domains',
    env: 'INBOXD_RELAY_FROM_DOMAINS',
    arg: 'DOMAIN[,DOMAIN…]',
    help: "more domains an inbox may send from through --smtp-relay, or * for any; always allowed: the --domain ones and the sending team's own verified custom domains (never another team's)",
    schema: z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((d) => d.trim().toLowerCase().replace(/\.$/, ''))
          .filter(Boolean),
      )
      .pipe(z.array(z.union([z.literal('*'), hostname]))),
    default: '',
  },
  maxSendsPerMinute: {
    flag: '--max-sends-per-minute',
    env: 'INBOXD_MAX_SENDS_PER_MINUTE',
    arg: 'N',
    help: 'sends and replies per minute per team (0 = no limit); more get 429 with Retry-After',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(1_000_000, 'must be at most 1000000'),
    default: 600,
  },
  logLevel: {
    flag: '--log-level',
    env: 'INBOXD_LOG_LEVEL',
    arg: 'LEVEL',
    help: 'debug | info | warn | error | silent',
    schema: z.enum(['debug', 'info', 'warn', 'error', 'silent']),
    default: 'info',
  },
  logFormat: {
    flag: '--log-format',
    env: 'INBOXD_LOG_FORMAT',
    arg: 'FORMAT',
    help: 'json (one object per line) | pretty',
    schema: z.enum(['json', 'pretty']),
    default: 'json',
  },
  auditRetentionDays: {
    flag: '--audit-retention-days',
    env: 'INBOXD_AUDIT_RETENTION_DAYS',
    arg: 'DAYS',
    help: 'audit events older than this are deleted by the periodic sweep (0 = keep forever)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more').max(36_500, 'must be at most 36500'),
    default: 90,
  },
  auditMaxRows: {
    flag: '--audit-max-rows',
    env: 'INBOXD_AUDIT_MAX_ROWS',
    arg: 'N',
    help: 'at most this many audit events are kept, the oldest deleted first by the periodic sweep (0 = no limit)',
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more'),
    default: 1_000_000,
  },
  healthMinFreeMb: {
    flag: '--health-min-free-mb',
    env: 'INBOXD_HEALTH_MIN_FREE_MB',
    arg: 'MB',
    help: "GET /health answers 503 degraded when the data dir's file system has less free space than this (0 = only a full disk)",
    schema: z.coerce.number().int('must be a whole number').min(0, 'must be 0 or more'),
    default: 64,
  },
  models: {
    flag: '--models',
    env: 'INBOXD_MODELS',
    arg: 'PROVIDER:MODEL@URL[,…]',
    help: 'model fallback chain for structured extraction (providers openai, anthropic, ollama); the built-in engine is always last',
    schema: z.string().superRefine((s, c) => {
      try {
        parseModels(s);
      } catch (e) {
        c.addIssue({ code: 'custom', message: (e as Error).message.replace(/^--models: /, '') });
      }
    }),
    default: undefined,
  },
  modelTimeoutMs: {
    flag: '--model-timeout-ms',
    env: 'INBOXD_MODEL_TIMEOUT_MS',
    arg: 'MS',
    help: 'time limit of one model call; the next link of the chain is tried after it',
    schema: z.coerce.number().int('must be a whole number').min(100, 'must be at least 100').max(600_000, 'must be at most 600000'),
    default: 30_000,
  },
  modelMaxInputChars: {
    flag: '--model-max-input-chars',
    env: 'INBOXD_MODEL_MAX_INPUT_CHARS',
    arg: 'N',
    help: 'characters of message text sent to a model (the rest is cut)',
    schema: z.coerce.number().int('must be a whole number').min(1000, 'must be at least 1000').max(1_000_000, 'must be at most 1000000'),
    default: 20_000,
  },
  schemaMaxDepth: {
    flag: '--schema-max-depth',
    env: 'INBOXD_SCHEMA_MAX_DEPTH',
    arg: 'N',
    help: 'nesting depth of a caller extraction schema, counted through its $refs; deeper schemas are refused (400)',
    schema: z.coerce.number().int('must be a whole number').min(2, 'must be 2-32').max(32, 'must be 2-32'),
    default: 8,
  },
  schemaBudgetMs: {
    flag: '--schema-budget-ms',
    env: 'INBOXD_SCHEMA_BUDGET_MS',
    arg: 'MS',
    help: 'time budget of compiling a caller extraction schema or validating one answer with it (in the sandbox); over it answers 422',
    schema: z.coerce.number().int('must be a whole number').min(10, 'must be 10-60000').max(60_000, 'must be 10-60000'),
    default: 1000,
  },
  mxHost: {
    flag: '--mx-host',
    env: 'INBOXD_MX_HOST',
    arg: 'HOST',
    help: 'the MX target custom domains are told to publish and checked against (default: the host of --base-url)',
    schema: hostname.transform((h) => h.toLowerCase()),
    default: undefined,
  },
  dnsServer: {
    flag: '--dns-server',
    env: 'INBOXD_DNS_SERVER',
    arg: 'IP[:PORT]',
    help: 'DNS server that custom domains are verified against, e.g. 10.0.0.53 or [fd00::53]:5353 (default: the system resolver)',
    schema: z.string().superRefine((s, c) => {
      if (dnsServerAddress(s) === null)
        c.addIssue({ code: 'custom', message: 'must be an IP address with an optional port: 10.0.0.53, 10.0.0.53:5353, [fd00::53]:53' });
    }),
    default: undefined,
  },
  dnsTimeoutMs: {
    flag: '--dns-timeout-ms',
    env: 'INBOXD_DNS_TIMEOUT_MS',
    arg: 'MS',
    help: 'time limit of one DNS query when verifying a custom domain (each query is tried twice)',
    schema: z.coerce.number().int('must be a whole number').min(50, 'must be at least 50').max(30_000, 'must be at most 30000'),
    default: 2000,
  },
  searchBudgetMs: {
    flag: '--search-budget-ms',
    env: 'INBOXD_SEARCH_BUDGET_MS',
    arg: 'MS',
    help: 'time budget of one search, enforced from outside it (over it: 422 budget_exceeded, or a partial answer)',
    schema: z.coerce.number().int('must be a whole number').min(10, 'must be 10-600000').max(600_000, 'must be 10-600000'),
    default: 2000,
  },
  searchMaxTerms: {
    flag: '--search-max-terms',
    env: 'INBOXD_SEARCH_MAX_TERMS',
    arg: 'N',
    help: 'terms (words, phrases, operators) one search query may have',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-256').max(256, 'must be 1-256'),
    default: 32,
  },
  searchMaxTermWords: {
    flag: '--search-max-term-words',
    env: 'INBOXD_SEARCH_MAX_TERM_WORDS',
    arg: 'N',
    help: 'words one search term may expand to (a phrase, a-hyphenated-word, a Chinese or Japanese run as character pairs)',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be 1-256').max(256, 'must be 1-256'),
    default: 16,
  },
  embeddings: {
    flag: '--embeddings',
    env: 'INBOXD_EMBEDDINGS',
    arg: 'PROVIDER:MODEL@URL',
    help: 'embeddings model for semantic and hybrid search (openai = any OpenAI-compatible /v1/embeddings, or ollama); unset = keyword search only',
    schema: z.string().superRefine((s, c) => {
      try {
        parseEmbeddings(s);
      } catch (e) {
        c.addIssue({ code: 'custom', message: (e as Error).message.replace(/^--(models|embeddings): /, '') });
      }
    }),
    default: undefined,
  },
  embeddingsRetrySeconds: {
    flag: '--embeddings-retry-seconds',
    env: 'INBOXD_EMBEDDINGS_RETRY_SECONDS',
    arg: 'S',
    help: 'first wait before embeddings are retried after the model failed (doubles per failure, at most 10 minutes)',
    schema: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(600, 'must be at most 600'),
    default: 30,
  },
  gmailApiBase: {
    flag: '--gmail-api-base',
    env: 'INBOXD_GMAIL_API_BASE',
    arg: 'URL',
    help: 'Gmail REST API base URL for connected Gmail mailboxes (a compatible on-prem server or a local fake can stand in)',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).transform((u) => u.replace(/\/+$/, '')),
    default: 'https://gmail.googleapis.com',
  },
} satisfies Record<string, OptionDef>;

export type OptionKey = keyof typeof OPTIONS;

export interface Config {
  smtpPort: number;
  httpPort: number;
  host: string;
  dataDir: string;
  domains: string[];
  baseUrl: string | undefined;
  maxMessageBytes: number;
  unclaimedTtlMinutes: number;
  smtpTlsCert: string | undefined;
  smtpTlsKey: string | undefined;
  maxInboxes: number;
  maxMessagesPerInbox: number;
  maxUnclaimedPerAddress: number;
  maxUnclaimed: number;
  unclaimedClaimSeconds: number;
  rateLimit: number;
  billingApiBase: string | undefined;
  billingPrice: string | undefined;
  googleCalendarApiBase: string;
  calendarMaxInstances: number;
  calendarMaxEventInstances: number;
  calendarMaxRuleSteps: number;
  calendarReadBudgetMs: number;
  googleTokenUrl: string;
  /** From INBOXD_BILLING_SECRET_KEY only. */
  billingSecretKey: string | undefined;
  ingestThreads: number;
  sandboxThreads: number;
  sandboxTimeoutMs: number;
  sandboxMaxHeapMb: number;
  sandboxMaxQueued: number;
  maxMonitorsPerTeam: number;
  monitorMaxMessages: number;
  monitorMaxTextChars: number;
  monitorRunBytes: number;
  monitorTickBytes: number;
  monitorTickMs: number;
  smtpMaxConnections: number;
  smtpMaxConnectionsPerIp: number;
  maxWaitersPerKey: number;
  maxWaitersPerTeam: number;
  maxWaiters: number;
  waitMaxBodyChars: number;
  mcpMaxSessions: number;
  mcpMaxSessionsPerKey: number;
  mcpMaxSessionsPerTeam: number;
  mcpAllowedOrigins: string[];
  maxHttpConnections: number;
  maxHttpConnectionsPerIp: number;
  httpHeaderTimeoutSeconds: number;
  /** Providers whose webhook route is on (none by default). */
  inboundWebhooks: string[];
  webhookInflightBytes: number;
  smtpAuth: 'any' | 'required' | 'off';
  acceptAnyDomain: boolean;
  smtpRelay: string | undefined;
  smtpRelayTlsInsecure: boolean;
  /** From INBOXD_SMTP_RELAY_USER / INBOXD_SMTP_RELAY_PASSWORD only (a secret never belongs in argv). */
  smtpRelayUser: string | undefined;
  smtpRelayPassword: string | undefined;
  /** Domains beyond the served ones and the team's own that inboxes may send from through the relay ('*': any). */
  relayFromDomains: string[];
  maxSendsPerMinute: number;
  smtpMaxSessionSeconds: number;
  smtpMaxCommands: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  logFormat: 'json' | 'pretty';
  models: string | undefined;
  modelTimeoutMs: number;
  modelMaxInputChars: number;
  schemaMaxDepth: number;
  schemaBudgetMs: number;
  mxHost: string | undefined;
  dnsServer: string | undefined;
  dnsTimeoutMs: number;
  /** From INBOXD_SECRET_KEY only: seals DKIM private keys (and later other credentials) at rest (src/lib/sealed.ts). */
  secretKey: string | undefined;
  searchBudgetMs: number;
  searchMaxTerms: number;
  searchMaxTermWords: number;
  embeddings: string | undefined;
  embeddingsRetrySeconds: number;
  /** From INBOXD_OPENAI_API_KEY / INBOXD_ANTHROPIC_API_KEY only (secrets). */
  openaiApiKey: string | undefined;
  anthropicApiKey: string | undefined;
  noFsync: boolean;
  database: string | undefined;
  databasePoolSize: number;
  /** INBOXD_DATABASE_PASSWORD (env only); pg falls back to PGPASSWORD itself. */
  databasePassword: string | undefined;
  segmentSizeMb: number;
  blobStore: string | undefined;
  /** From AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN only, and only with --blob-store. */
  blobStoreCredentials: S3Credentials | undefined;
  allowHttpCallbacks: boolean;
  allowPrivateCallbacks: boolean;
  callbackConcurrency: number;
  callbackConcurrencyPerHost: number;
  callbackSlowLane: number;
  metricsOpen: boolean;
  auditRetentionDays: number;
  auditMaxRows: number;
  healthMinFreeMb: number;
  /** From INBOXD_ADMIN_KEY only: a secret never belongs in argv, where `ps` shows it. */
  adminKey: string | undefined;
  /** From INBOXD_MAILGUN_SIGNING_KEY only (a secret); required when --inbound-webhooks includes mailgun. */
  mailgunSigningKey: string | undefined;
  /** Mailbox providers (src/providers/mailbox/): the Gmail API and the Google token endpoint. */
  gmailApiBase: string;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

const BY_FLAG = new Map<string, OptionKey>(Object.entries(OPTIONS).map(([k, o]) => [o.flag, k as OptionKey]));

/** Parses flags (`--flag value` or `--flag=value`) and environment into a Config. Throws UsageError. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  const given = new Map<OptionKey, { raw: unknown; from: string }>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument '${a}' (see inboxd --help)`);
    const eq = a.indexOf('=');
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const key = BY_FLAG.get(flag);
    if (!key) throw new UsageError(`unknown option '${flag}' (see inboxd --help)`);
    const def: OptionDef = OPTIONS[key];
    let raw: unknown;
    if (eq > 0) raw = a.slice(eq + 1);
    else if (def.arg === undefined) raw = true;
    else {
      raw = argv[++i];
      if (raw === undefined) throw new UsageError(`${flag} needs a value (${def.arg})`);
    }
    given.set(key, { raw, from: flag });
  }
  const out: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(OPTIONS) as Array<[OptionKey, OptionDef]>) {
    const src = given.get(key) ?? (env[def.env] !== undefined && env[def.env] !== '' ? { raw: env[def.env], from: def.env } : undefined);
    if (!src) {
      out[key] = def.default === undefined ? undefined : def.schema.parse(def.default);
      continue;
    }
    const r = def.schema.safeParse(src.raw);
    if (!r.success) {
      const msg = r.error.issues[0]?.message ?? 'invalid value';
      // A --blob-store URL refused for carrying a secret is not echoed (it would land in logs).
      const shown = key === 'blobStore' ? '' : `${JSON.stringify(src.raw)} `;
      throw new UsageError(`${src.from}: ${shown}${msg.startsWith('Invalid') ? '— ' + msg.toLowerCase() : msg}`);
    }
    out[key] = r.data;
  }
  if ((out.smtpTlsCert === undefined) !== (out.smtpTlsKey === undefined)) {
    throw new UsageError('--smtp-tls-cert and --smtp-tls-key go together: give both or neither');
  }
  if (out.blobStore !== undefined) {
    try {
      out.blobStoreCredentials = s3CredentialsFromEnv(env);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  out.mailgunSigningKey = env.INBOXD_MAILGUN_SIGNING_KEY || undefined;
  // Mailgun signs every webhook; accepting unsigned posts on a public route would let anyone inject mail.
  if ((out.inboundWebhooks as string[]).includes('mailgun') && out.mailgunSigningKey === undefined) {
    throw new UsageError(
      '--inbound-webhooks mailgun needs INBOXD_MAILGUN_SIGNING_KEY (the HTTP webhook signing key from the Mailgun dashboard) to verify requests',
    );
  }
  out.smtpRelayUser = env.INBOXD_SMTP_RELAY_USER || undefined;
  out.smtpRelayPassword = env.INBOXD_SMTP_RELAY_PASSWORD || undefined;
  if (out.database !== undefined) {
    const from = given.get('database')?.from ?? 'INBOXD_DATABASE_URL';
    const t = parsePgUrl(out.database as string);
    // The value is not echoed: it may hold a password.
    if (typeof t === 'string') throw new UsageError(`${from}: the URL ${t}`);
  }
  out.databasePassword = env.INBOXD_DATABASE_PASSWORD || undefined;
  out.adminKey = adminKeyFrom(env.INBOXD_ADMIN_KEY);
  out.billingSecretKey = env.INBOXD_BILLING_SECRET_KEY || undefined;
  out.openaiApiKey = env.INBOXD_OPENAI_API_KEY || undefined;
  out.anthropicApiKey = env.INBOXD_ANTHROPIC_API_KEY || undefined;
  out.secretKey = secretKeyFrom(env.INBOXD_SECRET_KEY);
  return out as unknown as Config;
}

/** A guessable bootstrap admin key is an open door: at least 24 characters of a token alphabet (`ibx_` + 32 fits). */
function adminKeyFrom(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (raw.length >= 24 && raw.length <= 256 && /^[A-Za-z0-9._~+/=-]+$/.test(raw)) return raw;
  throw new UsageError(
    `INBOXD_ADMIN_KEY must be 24 to 256 characters of A-Z a-z 0-9 . _ ~ + / = - (got ${raw.length} characters${/^[A-Za-z0-9._~+/=-]*$/.test(raw) ? '' : ', some outside that set'}); use e.g. "ibx_" + 32 random letters and digits, or unset it to have one generated`,
  );
}

/** A bad INBOXD_SECRET_KEY must stop the start: running on with plain keys would store secrets the operator meant sealed. */
function secretKeyFrom(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (parseSecretKey(raw) !== null) return raw;
  throw new UsageError(
    'INBOXD_SECRET_KEY must be 32 random bytes as 64 hex digits or as base64 (44 characters); make one with: openssl rand -hex 32',
  );
}

/** `--dns-server` as the `ip` or `[ip]:port` form node's Resolver.setServers takes, or null when it is not one. */
export function dnsServerAddress(raw: string): string | null {
  const s = raw.trim();
  const v6 = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i.exec(s);
  const v4 = /^([0-9.]+)(?::(\d{1,5}))?$/.exec(s);
  const m = v6 ?? v4;
  const ip = m ? m[1]! : s;
  const port = m?.[2] === undefined ? 53 : Number(m[2]);
  if (net.isIP(ip) === 0 || port < 1 || port > 65535) return null;
  return net.isIPv6(ip) ? `[${ip}]:${port}` : `${ip}:${port}`;
}

export function optionsHelp(): string {
  const rows = (Object.values(OPTIONS) as OptionDef[]).map((o) => {
    const left = `  ${o.flag}${o.arg ? ' ' + o.arg : ''}`;
    const dflt = o.default === undefined ? '' : ` [default: ${String(o.default)}]`;
    return `${left.padEnd(34)} ${o.help}${dflt}\n${''.padEnd(35)}env ${o.env}`;
  });
  return rows.join('\n');
}
