// The AI layer's one interface: structured extraction over the model chain with the built-in engine as the
// always-present last link, answer validation, a per-message result cache, and model status/probe. Search
// (embeddings) and the workspace (summaries, drafts) are meant to reuse the chain through this service. Built once by
// the composition root (src/server/wire.ts) with the server's sandbox; a one-off use (the CLI, tests) brings its own.

import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { budgetProblem, Sandbox } from '../budget/sandbox.ts';
import { AppError } from '../errors.ts';
import { silentLogger } from '../log.ts';
import type { ParsedMessage } from '../mail/types.ts';
import type { PresetName } from './builtin/index.ts';
import { builtinInput } from './builtin/input.ts';
import type { Sources } from './builtin/provenance.ts';
import { type ChainConfig, callModel, type ModelLink, parseModels, probeModel } from './models.ts';
import { INVOICE_SCHEMA, RECEIPT_SCHEMA, TWOFA_SCHEMA } from './preset-schemas.ts';
import { extractionPrompt } from './prompt.ts';
import type { Check, Reviewed } from './review.ts';
import { compileSchema, type SchemaJobResult, type Validation, validate } from './schema.ts';
import { checkSchema, SCHEMA_LIMITS, type SchemaLimits } from './schema-check.ts';

export const PRESET_NAMES: readonly PresetName[] = ['2fa', 'invoice', 'receipt'];
const PRESET_DESCRIPTIONS: Record<PresetName, string> = {
  '2fa': 'Sign-in and verification mails: one-time code, verification link, service, validity in minutes',
  invoice: 'Invoices and credit notes: number, vendor, dates, currency, total, subtotal, tax, line items, payment link',
  receipt:
    'Receipts (orders, payments, subscriptions, rides, bookings, refunds): merchant, date, total, order number, items, payment method',
};

export const PRESET_SCHEMAS: Record<PresetName, Record<string, unknown>> = {
  '2fa': TWOFA_SCHEMA,
  invoice: INVOICE_SCHEMA,
  receipt: RECEIPT_SCHEMA,
};
const PRESET_VALIDATORS = Object.fromEntries(PRESET_NAMES.map((p) => [p, compileSchema(PRESET_SCHEMAS[p])])) as Record<
  PresetName,
  z.ZodType
>;

export function listPresets(): Array<{ preset: PresetName; description: string; fields: string[]; schema: Record<string, unknown> }> {
  return PRESET_NAMES.map((p) => ({
    preset: p,
    description: PRESET_DESCRIPTIONS[p],
    fields: Object.keys((PRESET_SCHEMAS[p].properties ?? {}) as object),
    schema: PRESET_SCHEMAS[p],
  }));
}

export interface ExtractRequest {
  preset?: PresetName;
  schema?: Record<string, unknown>;
  instructions?: string;
  /** `builtin` skips the model chain. */
  engine?: 'auto' | 'builtin';
}

export interface Fallback {
  model: string;
  error: string;
}

export interface ExtractResult {
  data: unknown;
  engine: 'builtin' | 'model';
  model: string | null;
  /** The schema matches and every check passed. */
  validated: boolean;
  fallbacks: Fallback[];
  errors?: Array<{ path: string; message: string }>;
  /** What a reader would check (src/ai/review.ts); a check that could not run is not listed. */
  checks: Check[];
  /** Where each filled value came from, by JSON Pointer. */
  sources: Sources;
  /** The text the `sources` spans index into: subject line, newline, the visible body lines read (to the last span). */
  sourceText: string;
}

export interface AiOptions {
  models?: string;
  timeoutMs?: number;
  maxInputChars?: number;
  maxResponseBytes?: number;
  env?: Record<string, string | undefined>;
  cacheSize?: number;
  /** Where caller schemas are compiled and applied and the built-in engine runs (the server's, or `standaloneSandbox`). */
  sandbox: Sandbox;
  /** Time budget of compiling or validating with one caller schema, in ms (--schema-budget-ms). */
  schemaBudgetMs?: number;
  schemaLimits?: Partial<SchemaLimits>;
}

export interface ProbeState {
  at: string;
  ok: boolean;
  latencyMs: number;
  error: string | null;
}

export interface ModelStatus {
  provider: string;
  model: string;
  host: string;
  credentials: boolean;
  ready: boolean;
  lastProbe: ProbeState | null;
}

export class AiService {
  readonly links: ModelLink[];
  private readonly cfg: ChainConfig;
  private readonly maxInputChars: number;
  private readonly cache = new Map<string, ExtractResult>();
  private readonly cacheSize: number;
  readonly probes = new Map<string, ProbeState>();
  private readonly schemaLimits: SchemaLimits;
  private readonly schemaBudgetMs: number;
  private readonly sandbox: Sandbox;
  /** Hashes of caller schemas that compiled (oldest first). */
  private readonly compiled = new Set<string>();

  constructor(opts: AiOptions) {
    const env = opts.env ?? process.env;
    this.links = opts.models ? parseModels(opts.models) : [];
    this.cfg = {
      links: this.links,
      timeoutMs: opts.timeoutMs ?? 30_000,
      maxResponseBytes: opts.maxResponseBytes ?? 1024 * 1024,
      keys: {
        ...(env.INBOXD_OPENAI_API_KEY ? { openai: env.INBOXD_OPENAI_API_KEY } : {}),
        ...(env.INBOXD_ANTHROPIC_API_KEY ? { anthropic: env.INBOXD_ANTHROPIC_API_KEY } : {}),
      },
    };
    this.maxInputChars = opts.maxInputChars ?? 20_000;
    this.cacheSize = opts.cacheSize ?? 1000;
    this.schemaLimits = { ...SCHEMA_LIMITS, ...opts.schemaLimits };
    this.schemaBudgetMs = opts.schemaBudgetMs ?? 1000;
    this.sandbox = opts.sandbox;
  }

  /**
   * Checks the request's schema (400 naming the offending part) before the message is loaded: first its bounds on
   * this thread, then that it compiles, in the sandbox under the schema budget.
   */
  async prepare(req: ExtractRequest, owner?: string): Promise<Prepared> {
    if (req.preset) return { name: req.preset, schema: PRESET_SCHEMAS[req.preset], validator: PRESET_VALIDATORS[req.preset] };
    if (!req.schema) throw new AppError('validation_failed', 'give either preset (2fa, invoice, receipt) or schema');
    checkSchema(req.schema, this.schemaLimits);
    // A schema that compiled once needs no second trip to the sandbox (the route prepares, then extracts).
    const id = createHash('sha256').update(JSON.stringify(req.schema)).digest('base64url');
    if (!this.compiled.has(id)) {
      await this.validateCustom(req.schema, [], owner);
      if (this.compiled.size >= 256) this.compiled.delete(this.compiled.values().next().value as string);
      this.compiled.add(id);
    }
    return { name: 'custom', schema: req.schema, validator: null };
  }

  async extract(msg: ParsedMessage, messageKey: string, req: ExtractRequest, signal?: AbortSignal, owner?: string): Promise<ExtractResult> {
    const p = await this.prepare(req, owner);
    const check = async (data: unknown): Promise<Validation> =>
      p.validator ? validate(p.validator, data) : (await this.validateCustom(p.schema, [data], owner))[0]!;
    const links = req.engine === 'builtin' ? [] : this.links;
    const key = createHash('sha256')
      .update(JSON.stringify([messageKey, p.schema, req.instructions ?? '', links.map((l) => `${l.id}@${l.baseUrl}`)]))
      .digest('hex');
    const hit = this.cache.get(key);
    if (hit) return hit;
    const fallbacks: Fallback[] = [];
    let result: ExtractResult | null = null;
    // The engine's view of the message (its vocabularies load with the first model extraction, not at start).
    const view = links.length > 0 ? (await import('./builtin/view.ts')).viewOf(msg) : null;
    for (const link of links) {
      let data: unknown;
      try {
        const call = extractionPrompt(msg, view!, p.name, p.schema, { instructions: req.instructions, maxInputChars: this.maxInputChars });
        data = await callModel(link, call, this.cfg, signal);
      } catch (e) {
        fallbacks.push({ model: link.id, error: (e as Error).message.slice(0, 300) });
        if (signal?.aborted) throw new AppError('unavailable', 'the request was cancelled');
        continue;
      }
      // Over the schema budget is the schema's doing, not the model's: that answers the request (422), no next link.
      const v = await check(data);
      if (v.ok) {
        result = await this.reviewModel(msg, data, link.id, fallbacks, req, check, signal, owner);
        break;
      }
      fallbacks.push({
        model: link.id,
        error: `answer does not match the schema: ${v.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`.slice(0, 300),
      });
    }
    if (!result) {
      const r = await this.builtin(msg, req.preset ?? null, req.preset ? null : p.schema, owner);
      const v = await check(r.data);
      result = {
        data: r.data,
        engine: 'builtin',
        model: null,
        validated: v.ok && r.checks.every((c) => c.ok),
        fallbacks,
        ...(v.ok ? {} : { errors: v.errors }),
        checks: r.checks,
        sources: r.sources,
        sourceText: r.sourceText,
      };
    }
    this.remember(key, result);
    return result;
  }

  /**
   * A model's answer that matched the schema, reviewed in the sandbox against the mail (src/ai/review.ts): numbers
   * and dates the mail does not write become null — when the schema allows null there — and fail `supported`.
   */
  private async reviewModel(
    msg: ParsedMessage,
    data: unknown,
    model: string,
    fallbacks: Fallback[],
    req: ExtractRequest,
    check: (data: unknown) => Promise<Validation>,
    signal?: AbortSignal,
    owner?: string,
  ): Promise<ExtractResult> {
    let r: Reviewed & { unsupported: string[] };
    try {
      r = await this.sandbox.run(
        'ai.verify',
        { msg: builtinInput(msg), data, preset: req.preset ?? null, ...(req.instructions ? { instructions: req.instructions } : {}) },
        owner ? { owner } : {},
      );
    } catch (e) {
      if (signal?.aborted) throw new AppError('unavailable', 'the request was cancelled');
      // the answer stands, unchecked: it is not validated, and the check says why
      const why = budgetProblem(e, "checking the model's answer against the message", 'raise --sandbox-timeout-ms').message;
      const checks = [{ name: 'supported', ok: false, detail: `not checked: ${why}`.slice(0, 600) }];
      return { data, engine: 'model', model, validated: false, fallbacks, checks, sources: {}, sourceText: '' };
    }
    let out = r.data;
    const checks = r.checks;
    if (r.unsupported.length > 0 && !(await check(out)).ok) {
      out = data;
      for (const pointer of r.unsupported) r.sources[pointer] = { from: 'model' };
      const s = checks.find((c) => c.name === 'supported');
      if (s) s.detail = s.detail.replace('set to null', 'kept (the schema does not allow null there)');
    }
    return {
      data: out,
      engine: 'model',
      model,
      validated: checks.every((c) => c.ok),
      fallbacks,
      checks,
      sources: r.sources,
      sourceText: r.sourceText,
    };
  }

  /**
   * The built-in engine over the message, in the sandbox: its parsing of a stranger's HTML and text is bounded by
   * the sandbox's time budget (--sandbox-timeout-ms) instead of running on the thread that serves requests.
   */
  private builtin(
    msg: ParsedMessage,
    preset: PresetName | null,
    schema: Record<string, unknown> | null,
    owner?: string,
  ): Promise<Reviewed> {
    return this.sandbox.run('ai.builtin', { msg: builtinInput(msg), preset, schema }, owner ? { owner } : {}).catch((e: unknown) => {
      throw budgetProblem(
        e,
        'the built-in extractor',
        'this message is too large or too complex for it; configure a model (--models) or raise --sandbox-timeout-ms',
      );
    });
  }

  /** Compiles a caller's schema and validates `values` with it in the sandbox, under the schema budget. */
  private async validateCustom(schema: Record<string, unknown>, values: unknown[], owner?: string): Promise<Validation[]> {
    let r: SchemaJobResult;
    try {
      r = await this.sandbox.run('schema.validate', { schema, values }, { ...(owner ? { owner } : {}), timeoutMs: this.schemaBudgetMs });
    } catch (e) {
      const patterns = patternPaths(schema);
      throw budgetProblem(
        e,
        values.length === 0 ? 'compiling the schema' : 'validating against the schema',
        patterns.length > 0
          ? `its pattern${patterns.length > 1 ? 's' : ''} (${patterns.slice(0, 5).join(', ')}) may backtrack without end on this text: simplify ${patterns.length > 1 ? 'them' : 'it'} (no nested quantifiers such as (a+)+), or an operator may raise --schema-budget-ms`
          : 'simplify the schema (fewer anyOf/oneOf/allOf alternatives), or an operator may raise --schema-budget-ms',
      );
    }
    if (r.compileError !== null)
      throw new AppError('validation_failed', `schema cannot be used: ${r.compileError}`, {
        errors: [{ path: 'schema', message: r.compileError }],
      });
    return r.results;
  }

  private remember(key: string, r: ExtractResult): void {
    if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, r);
  }

  status(): ModelStatus[] {
    const rows: ModelStatus[] = this.links.map((l) => {
      const credentials = l.provider === 'openai' ? !!this.cfg.keys.openai : l.provider === 'anthropic' ? !!this.cfg.keys.anthropic : false;
      const needsKey = l.provider === 'anthropic' && new URL(l.baseUrl).hostname === 'api.anthropic.com';
      const probe = this.probes.get(l.id) ?? null;
      return {
        provider: l.provider,
        model: l.model,
        host: new URL(l.baseUrl).host,
        credentials,
        ready: (!needsKey || credentials) && (probe ? probe.ok : true),
        lastProbe: probe,
      };
    });
    rows.push({ provider: 'builtin', model: 'builtin', host: 'local', credentials: false, ready: true, lastProbe: null });
    return rows;
  }

  async probe(): Promise<Array<{ model: string; ok: boolean; latencyMs: number; error: string | null }>> {
    const out = [];
    for (const l of this.links) {
      const r = await probeModel(l, this.cfg);
      this.probes.set(l.id, { at: new Date().toISOString(), ...r });
      out.push({ model: l.id, ...r });
    }
    out.push({ model: 'builtin', ok: true, latencyMs: 0, error: null });
    return out;
  }

  /** Credentials set in the environment with no link that uses them: a likely misconfiguration. */
  warnings(): string[] {
    const w: string[] = [];
    if (this.cfg.keys.openai && !this.links.some((l) => l.provider === 'openai'))
      w.push('INBOXD_OPENAI_API_KEY is set but --models has no openai link; the key is unused');
    if (this.cfg.keys.anthropic && !this.links.some((l) => l.provider === 'anthropic'))
      w.push('INBOXD_ANTHROPIC_API_KEY is set but --models has no anthropic link; the key is unused');
    return w;
  }
}

/**
 * A small sandbox for a one-off use of the service outside the server (the CLI's extract, tests): one worker with
 * the schema budget as its default time limit. Whoever makes it closes it.
 */
export function standaloneSandbox(budgetMs = 1000): Sandbox {
  return new Sandbox({ threads: 1, timeoutMs: budgetMs, maxHeapMb: 128, maxQueued: 16, ownerShare: 1, log: silentLogger });
}

export function isPresetName(s: unknown): s is PresetName {
  return typeof s === 'string' && (PRESET_NAMES as readonly string[]).includes(s);
}

interface Prepared {
  name: string;
  schema: Record<string, unknown>;
  /** Compiled on this thread for the presets only; a caller's schema is applied in the sandbox. */
  validator: z.ZodType | null;
}

/** JSON paths of the `pattern`s in a checked schema (bounded: the schema passed checkSchema). */
function patternPaths(schema: unknown, path = 'schema', out: string[] = []): string[] {
  if (typeof schema !== 'object' || schema === null || out.length >= 20) return out;
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (k === 'pattern' && typeof v === 'string') out.push(`${path}/pattern`);
    else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') patternPaths(v, `${path}/${k}`, out);
  }
  return out;
}
