// Structured extraction and model status (CONTRACT §12): the extract route over the model chain with the
// built-in engine last, the presets with their JSON Schemas, model readiness (no secrets) and a live probe, all
// through the server's one AiService (Services.ai, built in src/server/wire.ts).
import { z } from 'zod';
import { listPresets, PRESET_NAMES } from '../../ai/service.ts';
import { AppError } from '../../errors.ts';
import { InboxId, inboxOf, MessageId } from '../common.ts';
import { op } from '../op.ts';

const JsonObject = z.record(z.string(), z.unknown());

export const extractPresets = op({
  name: 'inboxes.extract_presets',
  summary: 'List the structured-extraction presets with their JSON Schemas',
  access: 'read',
  http: { method: 'GET', path: '/v1/inboxes/:id/extract/presets' },
  input: z.strictObject({ id: InboxId }),
  output: z.object({
    items: z.array(z.object({ preset: z.string(), description: z.string(), fields: z.array(z.string()), schema: JsonObject })),
    nextCursor: z.null(),
  }),
  async handler(ctx, input) {
    await inboxOf(ctx, input.id);
    return { items: listPresets(), nextCursor: null };
  },
});

const ExtractResult = z.object({
  data: z.unknown().describe('The extraction; validates against the preset or the given schema when `validated` is true'),
  engine: z.enum(['builtin', 'model']),
  model: z.string().nullable().describe('provider:model of the link that answered; null for the built-in engine'),
  validated: z
    .boolean()
    .describe('True only when `data` matches the schema AND every entry of `checks` passed (a check that could not run is not listed)'),
  fallbacks: z.array(z.object({ model: z.string(), error: z.string() })).describe('Links tried before, and why each was skipped'),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  checks: z
    .array(
      z.object({
        name: z
          .string()
          .describe(
            'lineAmounts, linesTotal, subtotalTaxTotal, dueDate, currency, totalPresent, totalSign (invoice, receipt); supported (model answers)',
          ),
        ok: z.boolean(),
        detail: z.string().describe('What was compared, e.g. "/lineItems/0: 3 × 50.00 = 150.00 ≠ 3150.00"'),
      }),
    )
    .describe('What a reader would check before trusting the answer; only checks whose inputs are present are listed'),
  sources: z
    .record(
      z.string(),
      z.object({
        from: z.enum(['text', 'jsonld', 'xml', 'header', 'link', 'model']),
        span: z.tuple([z.number().int(), z.number().int()]).optional().describe('[start, end) in `sourceText`'),
        text: z.string().optional().describe('sourceText.slice(span[0], span[1]); for a link, its anchor text'),
        path: z.string().optional().describe('JSONPath in the JSON-LD block, element path in the XML attachment, header name or link URL'),
      }),
    )
    .describe(
      'Where each filled value came from, keyed by JSON Pointer ("/total", "/lineItems/0/amount"); from "model": found nowhere in the mail',
    ),
  sourceText: z
    .string()
    .describe(
      "The text the spans index into: the message's subject, a newline, then the body lines read (HTML rendered or text/plain, quoted replies dropped)",
    ),
});

export const extractStructured = op({
  name: 'messages.extract_structured',
  summary: 'Extract structured data from a message (preset or JSON Schema)',
  description: [
    'Body `{preset: "2fa"|"invoice"|"receipt"}` or `{schema: <JSON Schema>, instructions?}`.',
    'Models configured with --models are tried in order; the built-in offline engine is the last link. A model answer',
    'that does not validate against the schema is discarded and the next link is tried. `engine: "builtin"` skips the models.',
    'Fields the message does not state are null. Results are cached per message, schema and chain.',
    '`checks` says what a reader would check (line arithmetic, totals, dates, currency; for a model, that its numbers and dates are',
    'written in the mail — those that are not become null); `validated` is true only when the schema matches and every check passed.',
    '`sources` says where each value came from (a span of `sourceText`, a JSON-LD/XML path, a header, a link).',
  ].join(' '),
  access: 'read',
  audit: false,
  http: { method: 'POST', path: '/v1/inboxes/:id/messages/:messageId/extract' },
  tool: {
    name: 'svc_extract_structured',
    description: 'Extract data from a message: preset invoice, receipt or 2fa, or your own JSON Schema. Trust it when validated is true.',
    args: { inboxId: 'id' },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({
    id: InboxId,
    messageId: MessageId,
    preset: z
      .enum(PRESET_NAMES as unknown as ['2fa', 'invoice', 'receipt'])
      .optional()
      .describe('2fa, invoice or receipt'),
    schema: JsonObject.optional().describe('A JSON Schema (draft 2020-12 subset) for the answer; instead of preset'),
    instructions: z
      .string()
      .max(2000, 'instructions must be at most 2000 characters')
      .optional()
      .describe('Extra guidance for the model (with schema), e.g. amounts in cents; the mail itself is always treated as data'),
    engine: z.enum(['auto', 'builtin']).optional().describe('auto (default): models then built-in; builtin: offline engine only'),
  }),
  output: ExtractResult,
  async handler(ctx, input) {
    const inbox = await inboxOf(ctx, input.id);
    if ((input.preset === undefined) === (input.schema === undefined))
      throw new AppError('validation_failed', 'give exactly one of preset (2fa, invoice, receipt) or schema', {
        errors: [{ path: 'preset', message: 'give preset or schema' }],
      });
    const ai = ctx.services.ai;
    const req = {
      ...(input.preset ? { preset: input.preset } : {}),
      ...(input.schema ? { schema: input.schema } : {}),
      ...(input.instructions ? { instructions: input.instructions } : {}),
      ...(input.engine ? { engine: input.engine } : {}),
    };
    const owner = ctx.principal?.teamId;
    await ai.prepare(req, owner); // a bad schema is a 400 before the message is read
    const { row, parsed } = await ctx.services.inboxMessages.parsed(inbox, input.messageId);
    return ai.extract(parsed, `${row.id}:${row.raw_sha256}`, req, ctx.signal, owner);
  },
});

const ModelRow = z.object({
  provider: z.string(),
  model: z.string(),
  host: z.string(),
  credentials: z.boolean().describe('Whether an API key is set for this provider (the key itself is never shown)'),
  ready: z.boolean(),
  lastProbe: z.object({ at: z.string(), ok: z.boolean(), latencyMs: z.number(), error: z.string().nullable() }).nullable(),
});

export const modelStatus = op({
  name: 'workspace.models',
  summary: 'Model fallback order and readiness (no secrets)',
  access: 'read',
  http: { method: 'GET', path: '/v1/workspace/models' },
  tool: {
    name: 'svc_workspace_model_status',
    description: "The model fallback chain for extraction: each model's readiness and last probe; no secrets.",
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  input: z.strictObject({}),
  output: z.object({ items: z.array(ModelRow), warnings: z.array(z.string()) }),
  handler(ctx) {
    const ai = ctx.services.ai;
    return { items: ai.status(), warnings: ai.warnings() };
  },
});

export const modelProbe = op({
  name: 'workspace.models_probe',
  summary: 'Probe each model of the chain live (admin)',
  access: 'admin',
  audit: false,
  http: { method: 'POST', path: '/v1/workspace/models/probe' },
  input: z.strictObject({}),
  output: z.object({
    items: z.array(z.object({ model: z.string(), ok: z.boolean(), latencyMs: z.number(), error: z.string().nullable() })),
  }),
  async handler(ctx) {
    return { items: await ctx.services.ai.probe() };
  },
});

export const aiOps = [extractPresets, extractStructured, modelStatus, modelProbe];
