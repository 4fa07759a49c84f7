// Custom mail domains (CONTRACT §10): admin only. The DKIM private key is never part of any answer.
import { z } from 'zod';
import type { DomainRow, DomainService } from '../../domains/service.ts';
import { decodeCursor, pageOf } from '../../lib/cursor.ts';
import { principal } from '../common.ts';
import { op } from '../op.ts';
import { Cursor, Limit, listOf } from '../views.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const DomainId = z.string().min(1).max(64).describe('Domain id (dom_…)');

export const RecordView = z.object({
  purpose: z.enum(['verification', 'mx', 'spf', 'dkim', 'dmarc']).describe('What the record is for'),
  type: z.enum(['TXT', 'MX']).describe('DNS record type'),
  name: z.string().describe('Fully qualified record name (some DNS panels want only the part before the domain)'),
  value: z.string().describe('Value to publish (TXT: one string; a DNS server may split a long one into 255-byte chunks)'),
  priority: z.number().optional().describe('MX preference'),
  requiredFor: z
    .enum(['verified', 'signing'])
    .nullable()
    .describe('verified: needed for the domain to be served · signing: needed for DKIM-signed outbound mail · null: advisory'),
  status: z.enum(['unchecked', 'found', 'missing', 'mismatch']).describe('Result of the last verify (unchecked before the first)'),
  foundValues: z.array(z.string()).describe('What DNS answered at that name at the last verify'),
  error: z.string().nullable().describe('Why the lookup itself failed (DNS server unreachable, SERVFAIL); null when DNS answered'),
  hint: z.string().nullable().describe('What to change when the record is missing or differs'),
});

export const DomainView = z.object({
  domainId: z.string(),
  domain: z.string().describe('The domain as served: lower case, IDNs in punycode'),
  status: z.enum(['pending', 'verified']).describe('verified: served (SMTP accepts mail for it, inboxes can be created at it)'),
  signing: z.boolean().describe('Outbound mail from this domain is DKIM-signed'),
  signingNote: z.string().nullable().describe('Why it is not signing, when it is not'),
  dkimSelector: z.string(),
  records: z.array(RecordView),
  createdAt: z.string(),
  verifiedAt: z.string().nullable(),
  lastCheckedAt: z.string().nullable(),
});

function domainView(svc: DomainService, r: DomainRow): z.infer<typeof DomainView> {
  const note = svc.signingNote(r);
  return {
    domainId: r.id,
    domain: r.name,
    status: r.status,
    signing: note === null,
    signingNote: note,
    dkimSelector: r.dkim_selector,
    records: svc.records(r),
    createdAt: iso(r.created_at)!,
    verifiedAt: iso(r.verified_at),
    lastCheckedAt: iso(r.checked_at),
  };
}

export const addDomain = op({
  name: 'domains.create',
  summary: 'Add a custom domain',
  description:
    'Registers a domain of the team and answers the DNS records to publish (verification TXT, MX, SPF, DKIM with a key generated for the domain, DMARC). Then call verify. A domain held by another team, or added before, is 409.',
  access: 'admin',
  http: { method: 'POST', path: '/v1/domains', status: 201 },
  tool: {
    name: 'svc_add_domain',
    description: 'Add a custom mail domain (admin); returns the DNS records to publish, then call svc_verify_domain.',
  },
  input: z.strictObject({
    domain: z.string().min(1).max(1000).describe('The domain, e.g. mail.example.com (IDNs are stored as punycode; no IPs or wildcards)'),
  }),
  output: DomainView,
  audit: { action: 'domain.create', target: (_i, o) => o.domainId },
  async handler(ctx, input) {
    const svc = ctx.services.domains;
    return domainView(svc, await svc.create(principal(ctx), input.domain));
  },
});

type DomainCursor = { c: number; i: string };
const isDomainCursor = (v: unknown): v is DomainCursor =>
  typeof v === 'object' && v !== null && typeof (v as DomainCursor).c === 'number' && typeof (v as DomainCursor).i === 'string';

export const listDomains = op({
  name: 'domains.list',
  summary: 'List custom domains',
  description: "The team's custom domains, newest first, each with its records and the last verify's results.",
  access: 'admin',
  http: { method: 'GET', path: '/v1/domains' },
  tool: {
    name: 'svc_list_domains',
    description: "List the team's custom domains (admin) with status, signing state and DNS records.",
    annotations: { readOnlyHint: true },
  },
  input: z.strictObject({ limit: Limit, cursor: Cursor }),
  output: listOf(DomainView),
  async handler(ctx, input) {
    const svc = ctx.services.domains;
    const rows = await svc.list(principal(ctx), input.limit + 1, decodeCursor(input.cursor, isDomainCursor));
    return pageOf(
      rows,
      input.limit,
      (r) => domainView(svc, r),
      (r) => ({ c: r.created_at, i: r.id }),
    );
  },
});

export const getDomain = op({
  name: 'domains.get',
  summary: 'Get a custom domain',
  access: 'admin',
  http: { method: 'GET', path: '/v1/domains/:id' },
  input: z.strictObject({ id: DomainId }),
  output: DomainView,
  async handler(ctx, input) {
    const svc = ctx.services.domains;
    return domainView(svc, await svc.get(principal(ctx), input.id));
  },
});

export const verifyDomain = op({
  name: 'domains.verify',
  summary: 'Verify a custom domain over DNS',
  description:
    'Looks each record up in DNS and reports found/missing/mismatch per record. The domain becomes verified (and is served) when the verification TXT and MX records match; SPF and DKIM must match too for DKIM signing. A verified domain is the team’s alone: other teams’ inboxes at it (possible only with --accept-any-domain) are removed with their mail. A failed lookup (DNS server unreachable) is reported per record and changes nothing.',
  access: 'admin',
  http: { method: 'POST', path: '/v1/domains/:id/verify' },
  tool: {
    name: 'svc_verify_domain',
    description: "Check a custom domain's DNS records now (admin): status and what to fix per record.",
    args: { domainId: 'id' },
    annotations: { idempotentHint: true, openWorldHint: true },
  },
  input: z.strictObject({ id: DomainId }),
  output: DomainView,
  audit: { action: 'domain.verify', target: (i) => i.id },
  async handler(ctx, input) {
    const svc = ctx.services.domains;
    return domainView(svc, await svc.verify(principal(ctx), input.id));
  },
});

export const deleteDomain = op({
  name: 'domains.delete',
  summary: 'Delete a custom domain',
  description: 'Stops serving the domain at once, then removes every inbox at it with its mail, and its unclaimed mail.',
  access: 'admin',
  http: { method: 'DELETE', path: '/v1/domains/:id' },
  input: z.strictObject({ id: DomainId }),
  output: z.object({
    deleted: z.literal(true),
    domainId: z.string(),
    domain: z.string(),
    inboxesDeleted: z.number().describe('Inboxes at the domain that were removed'),
    messagesDeleted: z.number().describe('Messages removed with them (including unclaimed mail for the domain)'),
  }),
  audit: { action: 'domain.delete', target: (i) => i.id },
  async handler(ctx, input) {
    const r = await ctx.services.domains.delete(principal(ctx), input.id);
    return { deleted: true as const, domainId: r.row.id, domain: r.row.name, inboxesDeleted: r.inboxes, messagesDeleted: r.messages };
  },
});

export const domainOps = [addDomain, listDomains, getDomain, verifyDomain, deleteDomain];
