// Turns inboxd's OpenAPI 3.0.3 document into the TypeScript types of clients/typescript (src/openapi.gen.ts).
// openapi-typescript would do this, but it needs TypeScript 5 and we are on 7; the document uses a small part of
// JSON Schema (what zod's toJSONSchema writes for OpenAPI 3.0), so a converter of our own is short. Pure: document in,
// source text out, deterministic (document order), so a test can regenerate it and compare bytes.

type Schema = {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  format?: string;
  description?: string;
};
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema; description?: string };
type Media = Record<string, { schema?: Schema }>;
type Entry = {
  operationId: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Media };
  responses: Record<string, { content?: Media }>;
};
export type OpenApiDocument = {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Entry>>;
  components?: { schemas?: Record<string, Schema> };
};

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));
const pad = (depth: number) => '  '.repeat(depth);

function doc(text: string | undefined, depth: number): string {
  if (!text) return '';
  const lines = text.replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1) return `${pad(depth)}/** ${lines[0]} */\n`;
  return `${pad(depth)}/**\n${lines.map((l) => `${pad(depth)} * ${l}`.trimEnd()).join('\n')}\n${pad(depth)} */\n`;
}

/** A TypeScript type for a schema; `depth` is the indentation of the line the type starts on. */
export function schemaType(s: Schema | undefined, depth = 0): string {
  if (!s) return 'unknown';
  const t = bare(s, depth);
  return s.nullable && t !== 'unknown' && t !== 'null' ? `${t} | null` : t;
}

function member(s: Schema, depth: number): string {
  const t = schemaType(s, depth);
  return /^[\w.'"[\]<>]+$/.test(t) || t.startsWith('{') ? t : `(${t})`;
}

function bare(s: Schema, depth: number): string {
  if (s.$ref) return s.$ref.replace(/^#\/components\/schemas\//, '');
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ') || 'never';
  if (s.anyOf ?? s.oneOf) return unique((s.anyOf ?? s.oneOf)!.map((x) => member(x, depth))).join(' | ');
  if (s.allOf) return unique(s.allOf.map((x) => member(x, depth))).join(' & ');
  switch (s.type) {
    case 'string':
      return s.format === 'binary' ? 'Blob' : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return `${member(s.items ?? {}, depth)}[]`;
    case 'object':
      return objectType(s, depth);
    default:
      return s.properties ? objectType(s, depth) : 'unknown';
  }
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

function objectType(s: Schema, depth: number): string {
  const props = Object.entries(s.properties ?? {});
  const extra = s.additionalProperties;
  const rest = extra === false ? null : typeof extra === 'object' ? schemaType(extra, depth + 1) : 'unknown';
  if (props.length === 0) return rest === null ? 'Record<string, never>' : `Record<string, ${rest}>`;
  const required = new Set(s.required ?? []);
  let out = '{\n';
  for (const [name, p] of props) {
    out += doc(p.description, depth + 1);
    out += `${pad(depth + 1)}${key(name)}${required.has(name) ? '' : '?'}: ${schemaType(p, depth + 1)};\n`;
  }
  // Only an explicit schema for further keys is worth an index signature; "any other key" is left out.
  if (typeof extra === 'object') out += `${pad(depth + 1)}[key: string]: unknown;\n`;
  return `${out}${pad(depth)}}`;
}

function paramsType(params: Parameter[], depth: number): string {
  if (params.length === 0) return 'Record<string, never>';
  let out = '{\n';
  for (const p of params) {
    out += doc(p.description ?? p.schema?.description, depth + 1);
    out += `${pad(depth + 1)}${key(p.name)}${p.required ? '' : '?'}: ${schemaType(p.schema, depth + 1)};\n`;
  }
  return `${out}${pad(depth)}}`;
}

function bodyType(e: Entry, depth: number): string {
  const content = e.requestBody?.content;
  if (!content) return 'undefined';
  if (content['application/json']) return schemaType(content['application/json'].schema, depth);
  return 'Blob | Uint8Array | string';
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function generateTypes(d: OpenApiDocument): string {
  let out = `// Generated from the OpenAPI document of ${d.info.title} ${d.info.version} by scripts/clients/generate-types.ts.
// Do not edit: run \`npm run clients:types\` (test/unit/clients-types.test.ts checks it is current).

`;
  for (const [name, s] of Object.entries(d.components?.schemas ?? {})) {
    out += `${doc(s.description, 0)}export type ${name} = ${schemaType(s, 0)};\n\n`;
  }
  const table: string[] = [];
  out +=
    '/** Every operation of the REST API by its operationId: how it is called and what it answers. */\nexport interface Operations {\n';
  for (const [path, methods] of Object.entries(d.paths)) {
    for (const method of METHODS) {
      const e = methods[method];
      if (!e) continue;
      const params = e.parameters ?? [];
      const [status, ok] = Object.entries(e.responses).find(([code]) => /^2\d\d$/.test(code)) ?? ['200', {}];
      const M = method.toUpperCase();
      out += doc(`${e.summary ?? e.operationId} — \`${M} ${path}\``, 1);
      out += `  ${JSON.stringify(e.operationId)}: {\n`;
      out += `    method: ${JSON.stringify(M)};\n    path: ${JSON.stringify(path)};\n    status: ${status};\n`;
      const inPath = params.filter((p) => p.in === 'path');
      const inQuery = params.filter((p) => p.in === 'query');
      out += `    pathParams: ${paramsType(inPath, 2)};\n    query: ${paramsType(inQuery, 2)};\n`;
      out += `    body: ${bodyType(e, 2)};\n`;
      out += `    bodyRequired: ${e.requestBody?.required === true};\n`;
      out += `    response: ${schemaType(ok.content?.['application/json']?.schema, 2)};\n  };\n`;
      table.push(
        `  ${JSON.stringify(e.operationId)}: { method: ${JSON.stringify(M)}, path: ${JSON.stringify(path)}, status: ${status} },\n`,
      );
    }
  }
  out += '}\n\nexport type OperationId = keyof Operations;\n\n';
  out += '/** Method, path template and success status of every operation (what the client needs at run time). */\n';
  out += `export const OPERATIONS: { readonly [K in OperationId]: { readonly method: Operations[K]['method']; readonly path: Operations[K]['path']; readonly status: Operations[K]['status'] } } = {\n${table.join('')}};\n`;
  return out;
}
