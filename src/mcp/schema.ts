// The JSON Schema a tool advertises: compact and portable. The operation's zod schema still validates every call in
// full (src/ops/pipeline.ts); what a model is shown keeps the shape (properties, types, required, enums) and drops
// what only the server needs to check (lengths, ranges, patterns, defaults), and is written in the subset that
// OpenAI strict function calling, Gemini function declarations (the OpenAPI subset: one `type` per node, string
// enums, no `const`/`oneOf`) and Anthropic tool input schemas all accept: test/unit/mcp-schema-portability.test.ts
// holds those rule sets and checks every tool against them, and test/e2e/mcp-inspector.test.ts runs the MCP
// Inspector's --strict lint over tools/list.
import { z } from 'zod';

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] };

/** Checked by the server, redundant for a model (the tool's description or the parameter's says what matters). */
const DROPPED = new Set([
  '$schema',
  '$id',
  'title',
  'default',
  'examples',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'propertyNames',
  'minProperties',
  'maxProperties',
]);
/** The one string format every provider's subset has; others (uri, email, date) are said in the description. */
const FORMATS = new Set(['date-time']);

/** Keywords that say what a value is; a node with none of them accepts anything. */
const TYPED = new Set(['type', 'enum', 'anyOf', 'allOf', '$ref', 'properties', 'items']);
const ANY_TYPE = ['object', 'array', 'string', 'number', 'boolean', 'null'];

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Values listed after a description: enums a single-`type` string-enum dialect cannot carry (numbers, booleans). */
function withValues(node: Node, values: unknown[]): Node {
  const list = values.map((v) => JSON.stringify(v)).join(', ');
  const d = typeof node.description === 'string' ? `${node.description} ` : '';
  return { ...node, description: `${d}(one of ${list})`.trim() };
}

function typeOfValue(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/**
 * One schema node rewritten: `oneOf` → `anyOf`, `const` → a one-value `enum` (strings) or the bare type, a type
 * array → `anyOf` branches, an `anyOf` of literals → one `enum`, a free-form map → a plain object; server-only
 * constraints dropped. `output` also drops `additionalProperties` (an agent reads the fields it knows).
 */
function rewrite(input: unknown, output: boolean): unknown {
  if (!isNode(input)) return input;
  let n: Node = {};
  for (const [k, v] of Object.entries(input)) {
    if (DROPPED.has(k)) continue;
    if (k === 'format' && !FORMATS.has(String(v))) continue;
    n[k] = v;
  }
  if (n.oneOf) {
    n.anyOf = n.oneOf;
    delete n.oneOf;
  }
  if ('const' in n) {
    const v = n.const;
    delete n.const;
    n.type ??= typeOfValue(v);
    if (typeof v === 'string') n.enum = [v];
    else n = withValues(n, [v]);
  }
  if (Array.isArray(n.type)) {
    const types = n.type as string[];
    delete n.type;
    const rest = { ...n };
    n = { anyOf: types.map((t) => ({ type: t })) };
    if (rest.description) n.description = rest.description;
    delete rest.description;
    // Keywords that belong to one of the types go with it (items to array, properties to object, enum to string).
    n.anyOf = (n.anyOf as Node[]).map((b) => {
      if (b.type === 'array' && rest.items) return { ...b, items: rest.items };
      if (b.type === 'object' && (rest.properties || rest.additionalProperties !== undefined))
        return { ...b, ...pick(rest, ['properties', 'required', 'additionalProperties']) };
      if (b.type === 'string' && rest.enum) return { ...b, enum: (rest.enum as unknown[]).filter((e) => typeof e === 'string') };
      if (b.type === 'string' && rest.format) return { ...b, format: rest.format };
      return b;
    });
  }
  if (Array.isArray(n.anyOf)) {
    const raw = n.anyOf as unknown[];
    const consts = raw.every((b) => isNode(b) && 'const' in b) ? raw.map((b) => (b as Node).const) : null;
    const types = new Set(consts?.map(typeOfValue));
    if (consts && types.size === 1) {
      // A union of literals (z.union of z.literal): one type and its values.
      delete n.anyOf;
      n.type = [...types][0];
      if (n.type === 'string') n.enum = consts;
      else n = withValues(n, consts);
    } else n.anyOf = raw.map((b) => rewrite(b, output));
  }
  if (Array.isArray(n.enum) && n.enum.some((v) => typeof v !== 'string')) {
    const values = n.enum as unknown[];
    delete n.enum;
    n = withValues(n, values);
  }
  if (isNode(n.properties)) n.properties = Object.fromEntries(Object.entries(n.properties).map(([k, v]) => [k, rewrite(v, output)]));
  if (n.items !== undefined) n.items = rewrite(n.items, output);
  if (Array.isArray(n.prefixItems)) {
    const branches = (n.prefixItems as unknown[]).map((b) => rewrite(b, output)) as Node[];
    delete n.prefixItems;
    const distinct = [...new Map(branches.map((b) => [JSON.stringify(b), b])).values()];
    n.items = distinct.length === 1 ? distinct[0] : { anyOf: distinct };
  }
  if (Array.isArray(n.allOf)) n.allOf = (n.allOf as unknown[]).map((b) => rewrite(b, output));
  if (isNode(n.additionalProperties)) {
    // A free-form map (z.record): an object whose keys the caller chooses. Said as a plain object.
    delete n.additionalProperties;
    n.type ??= 'object';
  }
  if (output) delete n.additionalProperties;
  if (!Object.keys(n).some((k) => TYPED.has(k))) {
    // Any JSON value (z.unknown): said as the union of every type, which single-`type` dialects can carry.
    return { ...n, anyOf: ANY_TYPE.map((type) => ({ type })) };
  }
  return n;
}

function pick(o: Node, keys: string[]): Node {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/** The JSON Schema of a zod schema as a tool advertises it (see the top of this file). */
export function toolSchema(t: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const s = z.toJSONSchema(t, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rewrite(s, io === 'output') as JsonSchema;
}
