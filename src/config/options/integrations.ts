// Options, part 4 of 4 in --help order: the outbound relay, logs and audit, models, custom-domain DNS, search, Gmail.
// One entry per option (src/config/define.ts says what an entry is); its Config field is typed from its schema.
import { z } from 'zod';
import { parseModels } from '../../ai/models.ts';
import { parseEmbeddings } from '../../search/embeddings.ts';
import { atLeast, between, checkedBy, commaList, dnsServerAddress, flagBool, hostname, httpBase, type OptionEntry } from '../define.ts';

export const INTEGRATION_OPTIONS = {
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
      .refine((u) => ['', '/'].includes(new URL(u).pathname) && new URL(u).search === '', { error: 'must be only smtp[s]://host:port' })
      .optional(),
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
    schema: commaList((d) => d.trim().toLowerCase().replace(/\.$/, '')).pipe(z.array(z.union([z.literal('*'), hostname]))),
    default: '',
  },
  releaseAllow: {
    flag: '--release-allow',
    env: 'INBOXD_RELEASE_ALLOW',
    arg: 'GLOB[,GLOB…]',
    help: 'addresses a captured message may be released to through --smtp-relay (POST …/messages/:messageId/release): user@domain globs (* within a part, e.g. *@staging.example.com), a bare domain glob (example.com, *.example.com), or * for any; empty (the default) = release is off',
    schema: commaList((d) => d.trim().toLowerCase()).pipe(
      z.array(
        z
          .string()
          .max(320)
          .regex(/^[a-z0-9*._+=!#$%&'/?^`{|}~@-]+$/, 'a release glob is an address or domain with * wildcards, e.g. *@example.com')
          .refine((g) => (g.match(/@/g) ?? []).length <= 1, 'a release glob has at most one @'),
      ),
    ),
    default: '',
  },
  maxSendsPerMinute: {
    flag: '--max-sends-per-minute',
    env: 'INBOXD_MAX_SENDS_PER_MINUTE',
    arg: 'N',
    help: 'sends and replies per minute per team (0 = no limit); more get 429 with Retry-After',
    schema: atLeast(0, 1_000_000),
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
    schema: atLeast(0, 36_500),
    default: 90,
  },
  auditMaxRows: {
    flag: '--audit-max-rows',
    env: 'INBOXD_AUDIT_MAX_ROWS',
    arg: 'N',
    help: 'at most this many audit events are kept, the oldest deleted first by the periodic sweep (0 = no limit)',
    schema: atLeast(0),
    default: 1_000_000,
  },
  healthMinFreeMb: {
    flag: '--health-min-free-mb',
    env: 'INBOXD_HEALTH_MIN_FREE_MB',
    arg: 'MB',
    help: "GET /health answers 503 degraded when the data dir's file system has less free space than this (0 = only a full disk)",
    schema: atLeast(0),
    default: 64,
  },
  models: {
    flag: '--models',
    env: 'INBOXD_MODELS',
    arg: 'PROVIDER:MODEL@URL[,…]',
    help: 'model fallback chain for structured extraction (providers openai, anthropic, ollama); the built-in engine is always last',
    schema: checkedBy(parseModels, /^--models: /).optional(),
  },
  modelTimeoutMs: {
    flag: '--model-timeout-ms',
    env: 'INBOXD_MODEL_TIMEOUT_MS',
    arg: 'MS',
    help: 'time limit of one model call; the next link of the chain is tried after it',
    schema: atLeast(100, 600_000),
    default: 30_000,
  },
  modelMaxInputChars: {
    flag: '--model-max-input-chars',
    env: 'INBOXD_MODEL_MAX_INPUT_CHARS',
    arg: 'N',
    help: 'characters of message text sent to a model (the rest is cut)',
    schema: atLeast(1000, 1_000_000),
    default: 20_000,
  },
  schemaMaxDepth: {
    flag: '--schema-max-depth',
    env: 'INBOXD_SCHEMA_MAX_DEPTH',
    arg: 'N',
    help: 'nesting depth of a caller extraction schema, counted through its $refs; deeper schemas are refused (400)',
    schema: between(2, 32),
    default: 8,
  },
  schemaBudgetMs: {
    flag: '--schema-budget-ms',
    env: 'INBOXD_SCHEMA_BUDGET_MS',
    arg: 'MS',
    help: 'time budget of compiling a caller extraction schema or validating one answer with it (in the sandbox); over it answers 422',
    schema: between(10, 60_000),
    default: 1000,
  },
  mxHost: {
    flag: '--mx-host',
    env: 'INBOXD_MX_HOST',
    arg: 'HOST',
    help: 'the MX target custom domains are told to publish and checked against (default: the host of --base-url)',
    schema: hostname.transform((h) => h.toLowerCase()).optional(),
  },
  dnsServer: {
    flag: '--dns-server',
    env: 'INBOXD_DNS_SERVER',
    arg: 'IP[:PORT]',
    help: 'DNS server that custom domains are verified against, e.g. 10.0.0.53 or [fd00::53]:5353 (default: the system resolver)',
    schema: z
      .string()
      .superRefine((s, c) => {
        if (dnsServerAddress(s) === null)
          c.addIssue({ code: 'custom', message: 'must be an IP address with an optional port: 10.0.0.53, 10.0.0.53:5353, [fd00::53]:53' });
      })
      .optional(),
  },
  dnsTimeoutMs: {
    flag: '--dns-timeout-ms',
    env: 'INBOXD_DNS_TIMEOUT_MS',
    arg: 'MS',
    help: 'time limit of one DNS query when verifying a custom domain (each query is tried twice)',
    schema: atLeast(50, 30_000),
    default: 2000,
  },
  dnsFixtures: {
    flag: '--dns-fixtures',
    env: 'INBOXD_DNS_FIXTURES',
    arg: 'FILE',
    help: 'zone file of DNS records the auth check uses before asking DNS (BIND-like lines: name [ttl] [IN] TXT|A|AAAA|MX|CNAME|PTR data; ≤ 1 MiB)',
    schema: z.string().min(1).optional(),
  },
  spamd: {
    flag: '--spamd',
    env: 'INBOXD_SPAMD',
    arg: 'HOST:PORT',
    help: 'SpamAssassin daemon the spam check asks (SPAMC protocol), e.g. 127.0.0.1:783 (default: the built-in content lint)',
    schema: z
      .string()
      .regex(/^(\[[0-9a-fA-F:.]+\]|[^:\s]+)(:\d{1,5})?$/, 'must be HOST:PORT, e.g. 127.0.0.1:783')
      .optional(),
  },
  rspamd: {
    flag: '--rspamd',
    env: 'INBOXD_RSPAMD',
    arg: 'URL',
    help: 'rspamd the spam check asks (POST URL/checkv2), e.g. http://127.0.0.1:11334; wins over --spamd when both are set',
    schema: httpBase.optional(),
  },
  spamTimeoutMs: {
    flag: '--spam-timeout-ms',
    env: 'INBOXD_SPAM_TIMEOUT_MS',
    arg: 'MS',
    help: 'time limit of one spam daemon exchange (over it the spam check answers error)',
    schema: between(100, 120_000),
    default: 10_000,
  },
  searchBudgetMs: {
    flag: '--search-budget-ms',
    env: 'INBOXD_SEARCH_BUDGET_MS',
    arg: 'MS',
    help: 'time budget of one search, enforced from outside it (over it: 422 budget_exceeded, or a partial answer)',
    schema: between(10, 600_000),
    default: 2000,
  },
  searchMaxTerms: {
    flag: '--search-max-terms',
    env: 'INBOXD_SEARCH_MAX_TERMS',
    arg: 'N',
    help: 'terms (words, phrases, operators) one search query may have',
    schema: between(1, 256),
    default: 32,
  },
  searchMaxTermWords: {
    flag: '--search-max-term-words',
    env: 'INBOXD_SEARCH_MAX_TERM_WORDS',
    arg: 'N',
    help: 'words one search term may expand to (a phrase, a-hyphenated-word, a Chinese or Japanese run as character pairs)',
    schema: between(1, 256),
    default: 16,
  },
  embeddings: {
    flag: '--embeddings',
    env: 'INBOXD_EMBEDDINGS',
    arg: 'PROVIDER:MODEL@URL',
    help: 'embeddings model for semantic and hybrid search (openai = any OpenAI-compatible /v1/embeddings, or ollama); unset = keyword search only',
    schema: checkedBy(parseEmbeddings, /^--(models|embeddings): /).optional(),
  },
  embeddingsRetrySeconds: {
    flag: '--embeddings-retry-seconds',
    env: 'INBOXD_EMBEDDINGS_RETRY_SECONDS',
    arg: 'S',
    help: 'first wait before embeddings are retried after the model failed (doubles per failure, at most 10 minutes)',
    schema: atLeast(1, 600),
    default: 30,
  },
  gmailApiBase: {
    flag: '--gmail-api-base',
    env: 'INBOXD_GMAIL_API_BASE',
    arg: 'URL',
    help: 'Gmail REST API base URL for connected Gmail mailboxes (a compatible on-prem server or a local fake can stand in)',
    schema: httpBase,
    default: 'https://gmail.googleapis.com',
  },
} satisfies Record<string, OptionEntry>;
