// Compiling a JSON Schema into a validator (zod 4's z.fromJSONSchema) and validating an answer with it. A caller's
// schema is checked first on the main thread (src/ai/schema-check.ts: bounded by construction) and then compiled
// and applied only in the sandbox (the `schema.validate` task, src/workers/sandbox-tasks.ts), under a time budget enforced
// from outside: its `pattern`s are JavaScript regular expressions, which may backtrack for a very long time. The
// presets' own schemas are ours and are compiled once on the main thread.

import { z } from 'zod';

export interface Validation {
  ok: boolean;
  errors: Array<{ path: string; message: string }>;
}

/** Compiles a schema that checkSchema() accepted; throws (an Error naming the problem) when zod cannot use it. */
export function compileSchema(schema: Record<string, unknown>): z.ZodType {
  // A registry of its own: a caller's metadata must not pile up in zod's global one.
  return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0], { registry: z.registry() });
}

export function validate(v: z.ZodType, data: unknown): Validation {
  const r = v.safeParse(data);
  if (r.success) return { ok: true, errors: [] };
  return {
    ok: false,
    errors: r.error.issues.slice(0, 20).map((i) => ({ path: `/${i.path.map(String).join('/')}`, message: i.message })),
  };
}

export interface SchemaJob {
  schema: Record<string, unknown>;
  /** Answers to validate; none = only check that the schema compiles. */
  values: unknown[];
}

export type SchemaJobResult = { compileError: string } | { compileError: null; results: Validation[] };

// Compiled validators of the worker thread, by schema text: one caller validates several answers in a row.
const compiled = new Map<string, z.ZodType>();
const COMPILED_MAX = 32;

/** The sandbox task: compile (cached) and validate each value. Runs in a worker under a time budget. */
export function runSchemaJob(job: SchemaJob): SchemaJobResult {
  const key = JSON.stringify(job.schema);
  let v = compiled.get(key);
  if (!v) {
    try {
      v = compileSchema(job.schema);
    } catch (e) {
      return { compileError: (e as Error).message };
    }
    if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value as string);
    compiled.set(key, v);
  }
  const validator = v;
  return {
    compileError: null,
    results: job.values.map((data) => {
      try {
        return validate(validator, data);
      } catch (e) {
        return { ok: false, errors: [{ path: '/', message: `the schema could not be applied: ${(e as Error).message}` }] };
      }
    }),
  };
}
