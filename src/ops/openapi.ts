// /v1/openapi.json, generated from the operation registry: paths, parameters and bodies all come from the
// same zod schemas the pipeline validates with, so the document cannot drift from the behaviour.
import { z } from 'zod';
import { NAME, VERSION } from '../version.ts';
import type { Operation } from './op.ts';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] };

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const s = z.toJSONSchema(schema, { target: 'openapi-3.0', io, unrepresentable: 'any' }) as JsonSchema;
  delete s.$schema;
  return s;
}

export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
}

export function openapiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

const PROBLEM: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

function problemResponse(description: string) {
  return { description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
}

export function buildOpenApi(ops: readonly Operation[], baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const o of ops) {
    if (!o.http) continue;
    const { method, path } = o.http;
    const params = pathParams(path);
    const input = jsonSchema(o.input, 'input');
    const props = input.properties ?? {};
    const required = new Set(input.required ?? []);
    const parameters: unknown[] = params.map((p) => ({ name: p, in: 'path', required: true, schema: props[p] ?? { type: 'string' } }));
    const bodyLike = method !== 'GET' && method !== 'DELETE';
    const rest = Object.fromEntries(Object.entries(props).filter(([k]) => !params.includes(k)));
    if (!bodyLike) {
      for (const [k, s] of Object.entries(rest)) {
        const { description, ...schema } = s;
        parameters.push({ name: k, in: 'query', required: required.has(k), schema, ...(description ? { description } : {}) });
      }
    }
    const status = String(o.http.status ?? 200);
    const content: Record<string, unknown> = {};
    if (o.http.raw) for (const ct of o.http.raw) content[ct] = { schema: { type: 'string', format: 'binary' } };
    content['application/json'] = { schema: jsonSchema(o.output, 'output') };
    const responses: Record<string, unknown> = { [status]: { description: o.summary, content } };
    responses['400'] = problemResponse('Invalid input');
    if (o.access !== 'public') {
      responses['401'] = problemResponse('Missing or invalid API key / access token');
      responses['403'] = problemResponse('The key may not do this (read-only, scope or role)');
    }
    responses.default = problemResponse('Error');
    const entry: Record<string, unknown> = {
      operationId: o.name,
      summary: o.summary,
      ...(o.description ? { description: o.description } : {}),
      tags: [o.name.split('.')[0]],
      parameters,
      responses,
      security: o.access === 'public' ? [] : [{ bearerAuth: [] }],
    };
    if (bodyLike && o.http.body === 'raw') {
      entry.requestBody = { required: true, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } };
    } else if (bodyLike && Object.keys(rest).length > 0) {
      const bodyRequired = [...required].filter((k) => !params.includes(k));
      entry.requestBody = {
        required: bodyRequired.length > 0,
        content: Object.fromEntries(
          (o.http.body === 'form' ? ['application/json', 'application/x-www-form-urlencoded'] : ['application/json']).map((ct) => [
            ct,
            { schema: { ...input, properties: rest, ...(bodyRequired.length ? { required: bodyRequired } : { required: undefined }) } },
          ]),
        ),
      };
    }
    (paths[openapiPath(path)] ??= {})[method.toLowerCase()] = entry;
  }
  return JSON.parse(
    JSON.stringify({
      openapi: '3.0.3',
      info: {
        title: NAME,
        version: VERSION,
        description: 'Disposable inboxes for AI agents and CI: SMTP in, one-time codes and magic links out.',
      },
      servers: [{ url: baseUrl }],
      paths,
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (ibx_…) or an access token (ibt_…)' } },
        schemas: { Problem: PROBLEM },
      },
    }),
  ) as Record<string, unknown>;
}
