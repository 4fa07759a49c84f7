// JSON Schemas accepted for extraction: checked before anything runs (size, depth, property count, keywords,
// local $ref only), then compiled once with zod 4's z.fromJSONSchema() and used to validate every answer.

import { z } from 'zod';
import { AppError } from '../errors.ts';

export const SCHEMA_LIMITS = { bytes: 32 * 1024, depth: 8, properties: 200, enumValues: 200 } as const;

const KEYWORDS = new Set([
  '$schema',
  '$id',
  '$defs',
  'definitions',
  '$ref',
  '$comment',
  'title',
  'description',
  'examples',
  'default',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'enum',
  'const',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'anyOf',
  'oneOf',
  'allOf',
  'nullable',
  'minProperties',
  'maxProperties',
]);
const FORMATS = new Set(['email', 'date', 'date-time', 'time', 'uri', 'url', 'uuid', 'ipv4', 'ipv6', 'hostname']);

function bad(detail: string, path: string): never {
  throw new AppError('validation_failed', detail, { errors: [{ path: `schema${path}`, message: detail }] });
}

/** Throws 400 naming the first problem; returns the compiled validator. */
export function compileSchema(schema: unknown): z.ZodType {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) bad('schema must be a JSON Schema object', '');
  const size = JSON.stringify(schema).length;
  if (size > SCHEMA_LIMITS.bytes) bad(`schema is ${size} bytes; at most ${SCHEMA_LIMITS.bytes} are accepted — send a smaller schema`, '');
  let props = 0;
  const walk = (node: unknown, path: string, depth: number): void => {
    if (depth > SCHEMA_LIMITS.depth) bad(`schema is nested deeper than ${SCHEMA_LIMITS.depth} levels`, path);
    if (typeof node === 'boolean') return;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) bad('every subschema must be an object or a boolean', path);
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if (!KEYWORDS.has(k)) bad(`keyword '${k}' is not supported; supported: ${[...KEYWORDS].join(', ')}`, `${path}/${k}`);
      if (k === '$ref' && (typeof v !== 'string' || !v.startsWith('#')))
        bad(`$ref '${String(v)}' points outside the schema; only local refs (#/...) are allowed`, `${path}/$ref`);
      if (k === 'format' && (typeof v !== 'string' || !FORMATS.has(v)))
        bad(`format '${String(v)}' is not supported; supported: ${[...FORMATS].join(', ')}`, `${path}/format`);
      if (k === 'enum' && Array.isArray(v) && v.length > SCHEMA_LIMITS.enumValues)
        bad(`enum has ${v.length} values; at most ${SCHEMA_LIMITS.enumValues}`, `${path}/enum`);
      if (k === 'properties' || k === '$defs' || k === 'definitions') {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) bad(`'${k}' must be an object`, `${path}/${k}`);
        const entries = Object.entries(v as Record<string, unknown>);
        if (k === 'properties') {
          props += entries.length;
          if (props > SCHEMA_LIMITS.properties) bad(`schema has more than ${SCHEMA_LIMITS.properties} properties`, `${path}/properties`);
        }
        for (const [pk, pv] of entries) walk(pv, `${path}/${k}/${pk}`, depth + 1);
      } else if (k === 'items' || k === 'additionalProperties') {
        if (typeof v === 'object' || typeof v === 'boolean') walk(v, `${path}/${k}`, depth + 1);
      } else if (k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'prefixItems') {
        if (!Array.isArray(v)) bad(`'${k}' must be an array`, `${path}/${k}`);
        for (const [i, s] of v.entries()) walk(s, `${path}/${k}/${i}`, depth + 1);
      }
    }
  };
  walk(schema, '', 0);
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (e) {
    bad(`schema cannot be used: ${(e as Error).message}`, '');
  }
}

export interface Validation {
  ok: boolean;
  errors: Array<{ path: string; message: string }>;
}

export function validate(v: z.ZodType, data: unknown): Validation {
  const r = v.safeParse(data);
  if (r.success) return { ok: true, errors: [] };
  return {
    ok: false,
    errors: r.error.issues.slice(0, 20).map((i) => ({ path: `/${i.path.map(String).join('/')}`, message: i.message })),
  };
}
