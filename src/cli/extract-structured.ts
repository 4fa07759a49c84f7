// `inboxd extract --preset NAME FILE.eml` / `--schema FILE.json FILE.eml`: the structured extraction the route
// answers ({data, engine, model, validated, fallbacks, checks, sources, sourceText}), offline, with no server.
// Models from INBOXD_MODELS are used when set, as on the server; the built-in engine is always the last link. The command makes its own small
// sandbox (caller schemas and the built-in engine run there) and closes it when done.

import { readFile } from 'node:fs/promises';
import { AiService, type ExtractRequest, isPresetName, PRESET_NAMES, standaloneSandbox } from '../ai/service.ts';
import type { Sandbox } from '../budget/sandbox.ts';
import { AppError } from '../errors.ts';
import { parseMessage } from '../mail/parse.ts';

export async function structuredCommand(
  file: string,
  opts: { preset: string | undefined; schemaFile: string | undefined },
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  if (opts.preset !== undefined && opts.schemaFile !== undefined) {
    err.write('inboxd extract: give either --preset or --schema, not both\n');
    return 2;
  }
  if (opts.preset !== undefined && !isPresetName(opts.preset)) {
    err.write(`inboxd extract: unknown preset '${opts.preset}'; valid: ${PRESET_NAMES.join(', ')}\n`);
    return 2;
  }
  let schema: Record<string, unknown> | undefined;
  if (opts.schemaFile !== undefined) {
    try {
      schema = JSON.parse(await readFile(opts.schemaFile, 'utf8')) as Record<string, unknown>;
    } catch (e) {
      err.write(`inboxd extract: cannot read schema ${opts.schemaFile}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const budgetMs = process.env.INBOXD_SCHEMA_BUDGET_MS ? Number(process.env.INBOXD_SCHEMA_BUDGET_MS) : undefined;
  const sandbox: Sandbox = standaloneSandbox(budgetMs);
  try {
    let ai: AiService;
    try {
      ai = new AiService({
        ...(process.env.INBOXD_MODELS ? { models: process.env.INBOXD_MODELS } : {}),
        ...(process.env.INBOXD_MODEL_TIMEOUT_MS ? { timeoutMs: Number(process.env.INBOXD_MODEL_TIMEOUT_MS) } : {}),
        ...(budgetMs !== undefined ? { schemaBudgetMs: budgetMs } : {}),
        ...(process.env.INBOXD_SCHEMA_MAX_DEPTH ? { schemaLimits: { depth: Number(process.env.INBOXD_SCHEMA_MAX_DEPTH) } } : {}),
        sandbox,
      });
    } catch (e) {
      err.write(`inboxd extract: ${(e as Error).message}\n`);
      return 2;
    }
    const req: ExtractRequest = isPresetName(opts.preset) ? { preset: opts.preset } : { schema: schema! };
    return await run(ai, file, req, out, err);
  } finally {
    await sandbox.close();
  }
}

async function run(
  ai: AiService,
  file: string,
  req: ExtractRequest,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
): Promise<number> {
  try {
    await ai.prepare(req);
  } catch (e) {
    err.write(`inboxd extract: ${e instanceof AppError ? e.message : (e as Error).message}\n`);
    return 2;
  }
  let raw: Buffer;
  try {
    raw = await readFile(file);
  } catch (e) {
    err.write(`inboxd extract: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`);
    return 1;
  }
  try {
    const msg = await parseMessage(raw);
    const result = await ai.extract(msg, file, req);
    out.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (e) {
    err.write(`inboxd extract: cannot extract from ${file}: ${(e as Error).message}\n`);
    return 1;
  }
}
