// Health, discovery and the machine-readable description: open without a key (CONTRACT §3). The storage checks
// behind /health live in src/store/health.ts (services.storageHealth); discovery and OpenAPI read ctx.operations.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { PRESET_IDS } from '../../mail/presets.ts';
import { NAME, VERSION } from '../../version.ts';
import { op } from '../op.ts';
import { buildOpenApi } from '../openapi.ts';
import { ToolsetView, toolsetListing } from '../toolsets.ts';
import { cluster } from './cluster.ts';

const NoInput = z.strictObject({});

export const health = op({
  name: 'system.health',
  summary: 'Health check',
  description:
    'Reports whether the service and its database answer and the store can write, which database engine (`sqlite`, `postgres`) and blob store (`local`, `s3`) it runs on, and for `s3` whether the bucket answered. 200 when healthy; 503 `{"status":"degraded","reason"}` when the data dir is short of space or not writable or the bucket does not answer; 503 problem+json when the database does not answer.',
  access: 'public',
  http: { method: 'GET', path: '/health' },
  input: NoInput,
  output: z.object({
    status: z.literal('ok'),
    name: z.string(),
    version: z.string(),
    db: z.literal('ok'),
    database: z.enum(['sqlite', 'postgres']).describe('the database engine'),
    blobStore: z
      .object({
        kind: z.enum(['local', 's3']),
        bucket: z.string().optional().describe('s3 only'),
        reachable: z.boolean().optional().describe('s3 only: the bucket answered a HEAD (checked at most every 5 s)'),
      })
      .describe('where raw messages and attachments are kept'),
    uptimeSeconds: z.number(),
  }),
  audit: false,
  async handler(ctx) {
    const s = ctx.services;
    const report = await s.storageHealth.check();
    if (report.database === 'down') throw new AppError('unavailable', `database check failed: ${report.detail}`);
    const { database, blobStore, reason } = report;
    if (reason) {
      const body = { status: 'degraded', name: NAME, version: VERSION, db: 'ok', database, blobStore, reason };
      return {
        kind: 'raw' as const,
        status: 503,
        contentType: 'application/json; charset=utf-8',
        body: Buffer.from(JSON.stringify(body)),
        headers: { 'Cache-Control': 'no-store' },
      };
    }
    return {
      status: 'ok' as const,
      name: NAME,
      version: VERSION,
      db: 'ok' as const,
      database,
      blobStore,
      uptimeSeconds: Math.round((s.clock.now() - s.startedAt) / 1000),
    };
  },
});

const Endpoint = z.object({
  method: z.string(),
  path: z.string(),
  operation: z.string(),
  summary: z.string(),
  auth: z.enum(['none', 'key', 'admin']),
});

export const discovery = op({
  name: 'system.discovery',
  summary: 'Discovery: endpoints, service presets and tool names',
  description:
    'Everything a client needs to find its way: every HTTP endpoint, the 25 service presets, the MCP tool names and useful links.',
  access: 'public',
  http: { method: 'GET', path: '/v1' },
  input: NoInput,
  output: z.object({
    name: z.string(),
    version: z.string(),
    endpoints: z.array(Endpoint),
    services: z.array(z.string()),
    tools: z.array(z.string()),
    toolsets: z.array(ToolsetView).describe('MCP toolsets: connect to /mcp?toolsets=a,b to be given only their tools'),
    links: z.object({ openapi: z.string(), agent: z.string(), health: z.string(), mcp: z.string() }),
    mail: z.object({
      domains: z.array(z.string()),
      smtp: z
        .object({
          starttls: z
            .enum(['off', 'auto', 'files'])
            .describe('off: no STARTTLS; auto: a self-signed certificate made by inboxd (--smtp-tls auto); files: --smtp-tls-cert/key'),
          requireTls: z.boolean().describe('AUTH is refused before STARTTLS (--smtp-require-tls)'),
          fingerprintSha256: z
            .string()
            .nullable()
            .describe('SHA-256 fingerprint of the certificate (AA:BB:…, as openssl x509 -fingerprint -sha256 prints it), to pin it'),
          certificate: z.string().nullable().describe('The certificate (PEM), to give a client as its only CA'),
          validTo: z.string().nullable(),
        })
        .describe('STARTTLS of the SMTP listener (the same certificate serves POP3 and IMAP)'),
    }),
    checks: z
      .array(z.object({ name: z.string(), description: z.string(), version: z.string() }))
      .describe(
        'The message checks this server runs (POST /v1/inboxes/:id/messages/:messageId/checks); compat names the date of its caniemail data',
      ),
  }),
  audit: false,
  handler(ctx) {
    const s = ctx.services;
    const base = s.baseUrl();
    return {
      name: NAME,
      version: VERSION,
      endpoints: ctx.operations.flatMap((o) =>
        o.http
          ? [
              {
                method: o.http.method,
                path: o.http.path,
                operation: o.name,
                summary: o.summary,
                auth: o.access === 'public' ? ('none' as const) : o.access === 'admin' ? ('admin' as const) : ('key' as const),
              },
            ]
          : [],
      ),
      services: [...PRESET_IDS],
      tools: ctx.operations.flatMap((o) => (o.tool ? [o.tool.name] : [])),
      toolsets: toolsetListing(ctx.operations.flatMap((o) => (o.tool ? [o.tool.name] : []))),
      links: { openapi: `${base}/v1/openapi.json`, agent: `${base}/v1/agent`, health: `${base}/health`, mcp: `${base}/mcp` },
      mail: {
        domains: s.served.list(),
        smtp: {
          starttls: s.smtpTls?.source ?? ('off' as const),
          requireTls: s.smtpTls?.requireTls ?? false,
          fingerprintSha256: s.smtpTls?.fingerprint ?? null,
          certificate: s.smtpTls?.certificate ?? null,
          validTo: s.smtpTls?.validTo ?? null,
        },
      },
      checks: s.checks.catalogue().map(({ name, description, version }) => ({ name, description, version })),
    };
  },
});

export const openapi = op({
  name: 'system.openapi',
  summary: 'OpenAPI 3.0.3 description of this API',
  access: 'public',
  http: { method: 'GET', path: '/v1/openapi.json' },
  input: NoInput,
  output: z.record(z.string(), z.unknown()),
  audit: false,
  handler(ctx) {
    return buildOpenApi(ctx.operations, ctx.services.baseUrl());
  },
});

export const systemOps = [health, discovery, openapi, cluster];
