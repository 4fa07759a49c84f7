// Search (CONTRACT §11): one inbox, or every inbox in the key's scope. The query language is in src/search/query.ts.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { decodeCursor, encodeCursor } from '../../lib/cursor.ts';
import type { SearchScope } from '../../search/engine.ts';
import { MAX_QUERY_CHARS } from '../../search/query.ts';
import type { SearchCursor, SearchMode } from '../../search/service.ts';
import { InboxId, inboxOf, principal, singleLine } from '../common.ts';
import { type OpContext, op } from '../op.ts';
import { MessageSummary, messageSummary } from '../views.ts';

const Query = z
  .string()
  .max(MAX_QUERY_CHARS, `q is longer than the ${MAX_QUERY_CHARS}-character limit; shorten the query`)
  .describe(
    'The query: words, "exact phrases", -excluded, a OR b, from: to: subject: label: has:attachment has:code has:link before: after: (2026-11-20, 2026-11-20T14:00, 14:00 or an age such as 2h, 3d)',
  );
const Mode = z
  .enum(['keyword', 'semantic', 'hybrid'])
  .default('keyword')
  .describe('keyword (default; bm25), semantic (meaning, needs --embeddings) or hybrid (both, fused); without a model: keyword');
const SearchLimit = z.coerce
  .number()
  .int('limit must be a whole number')
  .min(1)
  .max(100)
  .default(20)
  .describe('Results per page, 1-100 (default 20)');
const SearchCursorField = z.string().max(512).optional().describe('nextCursor of the previous page (same q and mode)');

const SearchItem = MessageSummary.extend({
  snippet: z.string().nullable().describe('A passage of the body (or the subject) with the matched words marked «like this»'),
  inboxAddress: z.string().nullable().describe('The address of the inbox the message is in'),
  score: z.number().describe('Relevance in this answer (higher is better): -bm25 for keyword, cosine for semantic, fused rank for hybrid'),
});

const SearchOutput = z.object({
  items: z.array(SearchItem),
  nextCursor: z.string().nullable(),
  mode: z.enum(['keyword', 'semantic', 'hybrid']).describe('The ranking used: keyword when no embeddings model could be used'),
  semantic: z.boolean().describe('Whether the meaning of the query took part (an embeddings model was configured and answered)'),
  partial: z
    .object({ reason: z.string() })
    .nullable()
    .describe('Set when the search ran out of its time budget mid-scan: the items are the newest matches found so far, and why'),
});

const isCursor = (v: unknown): v is SearchCursor => {
  if (typeof v !== 'object' || v === null) return false;
  const c = v as Record<string, unknown>;
  return (
    Number.isInteger(c.o) &&
    (c.o as number) >= 0 &&
    (c.o as number) <= 10_000 &&
    Number.isInteger(c.hi) &&
    ['keyword', 'semantic', 'hybrid'].includes(c.m as string)
  );
};

async function run(ctx: OpContext, scope: SearchScope, input: { q: string; mode: SearchMode; limit: number; cursor?: string | undefined }) {
  if (input.q.trim() === '')
    throw new AppError('validation_failed', 'q is empty: give words, "a phrase" or an operator such as from:alice@example.com', {
      errors: [{ path: 'q', message: 'empty query' }],
    });
  const s = ctx.services;
  const r = await s.search.search({
    scope,
    q: input.q,
    mode: input.mode,
    limit: input.limit,
    cursor: decodeCursor(input.cursor, isCursor),
    now: s.clock.now(),
  });
  return {
    items: r.rows.map((x) => ({ ...messageSummary(x.row, s.baseUrl()), snippet: x.snippet, inboxAddress: x.inboxAddress, score: x.score })),
    nextCursor: r.next ? encodeCursor(r.next) : null,
    mode: r.mode,
    semantic: r.semantic,
    partial: r.partial,
  };
}

export const searchInbox = op({
  name: 'messages.search',
  summary: 'Search the messages of an inbox',
  description:
    'Full-text search of one inbox (subject, sender, recipients, body, attachment names), ranked by relevance with newer mail first on ties. mode=semantic|hybrid adds meaning-based ranking when an embeddings model is configured.',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/search' },
  input: z.strictObject({ id: InboxId, q: Query, mode: Mode, limit: SearchLimit, cursor: SearchCursorField }),
  output: SearchOutput,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    const p = principal(ctx);
    return run(ctx, { teamId: p.teamId, labelPrefix: p.scope.labelPrefix, inboxId: inbox.id }, input);
  },
});

export const searchAll = op({
  name: 'messages.search_all',
  summary: 'Search every inbox in the key’s scope',
  description:
    'The same search over every inbox the key may see (its team, inside its label scope); `label` narrows it to the inboxes with that exact label.',
  access: 'read',
  http: { method: 'GET', path: '/v1/search' },
  tool: {
    name: 'svc_search_messages',
    args: { query: 'q' },
    description:
      'Search mail: words, "phrase", -not, OR, from: to: subject: label: has:code|link|attachment, before:/after:. One inbox or all.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    q: Query,
    inboxId: InboxId.optional().describe('Search only this inbox (inb_…); omit to search every inbox in scope'),
    label: singleLine(z.string().min(1).max(200)).optional().describe('Only inboxes with exactly this label'),
    mode: Mode,
    limit: SearchLimit,
    cursor: SearchCursorField,
  }),
  output: SearchOutput,
  async handler(ctx, input) {
    const p = principal(ctx);
    const inboxId = input.inboxId === undefined ? undefined : (await inboxOf(ctx, input.inboxId)).id;
    return run(ctx, { teamId: p.teamId, labelPrefix: p.scope.labelPrefix, inboxId, label: input.label }, input);
  },
});

export const searchOps = [searchInbox, searchAll];
