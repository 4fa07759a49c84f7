// Every tool's advertised input schema against the JSON Schema subsets the three large model providers document for
// tool (function) definitions. The rule sets are data, each with its source; a finding names the tool, the path and
// the rule. OpenAI strict mode also wants every property required (optional ones written as nullable): that is the
// rewrite a strict client makes (the OpenAI Agents SDK's strict-schema conversion does), so the check runs on that
// rewrite of each schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listTools } from '../../src/mcp/tools.ts';
import { OPERATIONS } from '../../src/ops/registry.ts';

type Node = Record<string, any>;

interface RuleSet {
  name: string;
  source: string;
  /** Keywords a schema node may carry. */
  keywords: ReadonlySet<string>;
  /** Values of `type`; `typeArrays`: whether `type` may be a list. */
  types: ReadonlySet<string>;
  typeArrays: boolean;
  /** Allowed `format` per type. */
  formats: Readonly<Record<string, readonly string[]>>;
  /** Enums only on strings, with string values. */
  stringEnumsOnly: boolean;
  /** Every object closed with `additionalProperties: false`. */
  closedObjects: boolean;
  /** `additionalProperties` may only be false. */
  additionalPropertiesFalseOnly: boolean;
  /** Deepest nesting of objects/arrays; most properties in one schema; most enum values in one schema. */
  maxDepth: number;
  maxProperties: number;
  maxEnumValues: number;
  /** The root may not be a union. */
  rootNotUnion: boolean;
  toolName: RegExp;
  propertyName: RegExp;
}

/** Keywords all three rule sets below list (each then adds its own). */
const CORE = ['type', 'description', 'title', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf'];

// OpenAI function calling with `strict: true` (Structured Outputs): "Supported schemas" — types string, number,
// boolean, integer, object, array, enum, anyOf; string: pattern, format (date-time, time, date, duration, email,
// hostname, ipv4, ipv6, uuid); number: multipleOf, maximum, exclusiveMaximum, minimum, exclusiveMinimum; array:
// minItems, maxItems; definitions with $defs/$ref; root must be an object and not anyOf; every object needs
// additionalProperties: false and every field required (optional = union with null); up to 5000 properties, 10
// levels of nesting, 1000 enum values. Function name ^[a-zA-Z0-9_-]{1,64}$.
// Source: https://platform.openai.com/docs/guides/structured-outputs#supported-schemas and
// https://platform.openai.com/docs/guides/function-calling#strict-mode
const OPENAI_STRICT: RuleSet = {
  name: 'OpenAI strict function calling',
  source: 'https://platform.openai.com/docs/guides/structured-outputs#supported-schemas',
  keywords: new Set([
    ...CORE,
    ...['const', '$ref', '$defs', 'pattern', 'format', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum'],
    ...['exclusiveMinimum', 'minItems', 'maxItems'],
  ]),
  types: new Set(['string', 'number', 'boolean', 'integer', 'object', 'array', 'null']),
  typeArrays: true,
  formats: { string: ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'] },
  stringEnumsOnly: false,
  closedObjects: true,
  additionalPropertiesFalseOnly: true,
  maxDepth: 10,
  maxProperties: 5000,
  maxEnumValues: 1000,
  rootNotUnion: true,
  toolName: /^[a-zA-Z0-9_-]{1,64}$/,
  propertyName: /^.+$/,
};

// Gemini function declarations: `parameters` is "a select subset of an OpenAPI 3.0 schema object" — Schema fields
// type (one of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL; a single value), format (STRING: enum,
// date-time; NUMBER: float, double; INTEGER: int32, int64), title, description, nullable, enum (string[] of a
// STRING), maxItems, minItems, properties, required, minProperties, maxProperties, minLength, maxLength, pattern,
// example, anyOf, propertyOrdering, default, items, minimum, maximum; Vertex AI's Schema adds additionalProperties.
// No const, oneOf, allOf, not, $ref across documents. Function name: letters, digits, underscores, dots, dashes,
// starting with a letter or underscore, at most 64; parameter names [a-zA-Z_][a-zA-Z0-9_]{0,63}.
// Source: https://ai.google.dev/api/caching#Schema, https://ai.google.dev/gemini-api/docs/function-calling and
// https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration
const GEMINI: RuleSet = {
  name: 'Gemini function declarations',
  source: 'https://ai.google.dev/api/caching#Schema',
  keywords: new Set([
    ...CORE,
    ...['format', 'nullable', 'maxItems', 'minItems', 'minProperties', 'maxProperties', 'minLength', 'maxLength'],
    ...['pattern', 'example', 'propertyOrdering', 'default', 'minimum', 'maximum'],
  ]),
  types: new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']),
  typeArrays: false,
  formats: { string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'] },
  stringEnumsOnly: true,
  closedObjects: false,
  additionalPropertiesFalseOnly: true,
  maxDepth: Number.POSITIVE_INFINITY,
  maxProperties: Number.POSITIVE_INFINITY,
  maxEnumValues: Number.POSITIVE_INFINITY,
  rootNotUnion: true,
  toolName: /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/,
  propertyName: /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/,
};

// Anthropic tool use: `input_schema` is a JSON Schema object with type "object" at the root; with strict tool use
// the schema must fit the structured-outputs limits — supported: basic types, enum (strings, numbers, booleans,
// nulls), const, anyOf, allOf, $ref/$defs, default, required, additionalProperties: false, string formats date-time,
// time, date, duration, email, hostname, uri, ipv4, ipv6, uuid, minItems 0 or 1; not supported: numerical
// constraints (minimum, maximum, multipleOf), string length constraints, other array constraints, additionalProperties
// other than false. Tool name ^[a-zA-Z0-9_-]{1,64}$.
// Source: https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use and
// https://docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations
const ANTHROPIC: RuleSet = {
  name: 'Anthropic tool input schemas (strict tool use)',
  source: 'https://docs.claude.com/en/docs/build-with-claude/structured-outputs#json-schema-limitations',
  keywords: new Set([...CORE, 'const', 'allOf', '$ref', '$defs', 'default', 'format', 'pattern', 'minItems']),
  types: new Set(['string', 'number', 'boolean', 'integer', 'object', 'array', 'null']),
  typeArrays: true,
  formats: { string: ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid'] },
  stringEnumsOnly: false,
  closedObjects: false,
  additionalPropertiesFalseOnly: true,
  maxDepth: Number.POSITIVE_INFINITY,
  maxProperties: Number.POSITIVE_INFINITY,
  maxEnumValues: Number.POSITIVE_INFINITY,
  rootNotUnion: true,
  toolName: /^[a-zA-Z0-9_-]{1,64}$/,
  propertyName: /^.+$/,
};

/**
 * Free-form maps (keys the caller chooses): an object that cannot be closed. OpenAI strict mode has no way to say
 * one, so a strict OpenAI client sends these tools non-strict; every other rule still holds for them.
 */
const FREE_FORM = new Set([
  'svc_start_run.metadata',
  'svc_patch_run_session.metadata',
  'svc_extract_structured.schema',
  'svc_workspace_rules_evaluate.message.headers',
]);

/**
 * What OpenAI strict mode is sent: every property required, optional ones nullable, objects with properties closed
 * (as strict clients rewrite); a free-form map stays open (closing it would allow only {}).
 */
function strictForm(n: Node): Node {
  if (Array.isArray(n)) return n.map(strictForm) as unknown as Node;
  if (typeof n !== 'object' || n === null) return n;
  const out: Node = {};
  for (const [k, v] of Object.entries(n)) out[k] = k === 'enum' || k === 'required' ? v : strictForm(v as Node);
  if (out.properties) {
    const req = new Set<string>(out.required ?? []);
    for (const [k, v] of Object.entries<Node>(out.properties))
      if (!req.has(k)) out.properties[k] = { anyOf: [v, { type: 'null' }], ...(v.description ? { description: v.description } : {}) };
    out.required = Object.keys(out.properties);
    out.additionalProperties ??= false;
  }
  return out;
}

function check(rules: RuleSet, tool: string, schema: Node): string[] {
  const found: string[] = [];
  let properties = 0;
  let enumValues = 0;
  const walk = (n: Node, path: string, depth: number) => {
    const at = `${tool}${path}`;
    if (depth > rules.maxDepth) found.push(`${at}: deeper than ${rules.maxDepth} levels`);
    for (const k of Object.keys(n)) if (!rules.keywords.has(k)) found.push(`${at}: keyword ${k}`);
    if (Array.isArray(n.type)) {
      if (!rules.typeArrays) found.push(`${at}: type is a list ${JSON.stringify(n.type)}`);
    } else if (n.type !== undefined && !rules.types.has(n.type)) found.push(`${at}: type ${n.type}`);
    if (n.format !== undefined && !(rules.formats[n.type] ?? []).includes(n.format)) found.push(`${at}: format ${n.format} on ${n.type}`);
    if (n.enum) {
      enumValues += n.enum.length;
      if (rules.stringEnumsOnly && (n.type !== 'string' || n.enum.some((v: unknown) => typeof v !== 'string')))
        found.push(`${at}: enum on ${n.type}`);
    }
    if (n.additionalProperties !== undefined && n.additionalProperties !== false && rules.additionalPropertiesFalseOnly)
      found.push(`${at}: additionalProperties is not false`);
    if (
      n.type === 'object' &&
      rules.closedObjects &&
      n.additionalProperties !== false &&
      !FREE_FORM.has(`${tool}${path}`.replace(/\.anyOf\[0\]/g, '').replace(/\.properties\./g, '.'))
    )
      found.push(`${at}: object not closed (additionalProperties: false)`);
    if (n.properties) {
      for (const [k, v] of Object.entries<Node>(n.properties)) {
        properties++;
        if (!rules.propertyName.test(k)) found.push(`${at}: property name ${k}`);
        walk(v, `${path}.properties.${k}`, depth + 1);
      }
      for (const r of n.required ?? []) if (!(r in n.properties)) found.push(`${at}: required ${r} is not a property`);
    }
    if (n.items) walk(n.items, `${path}.items`, depth + 1);
    for (const key of ['anyOf', 'allOf'] as const)
      for (const [i, b] of ((n[key] ?? []) as Node[]).entries()) walk(b, `${path}.${key}[${i}]`, depth);
  };
  if (schema.type !== 'object') found.push(`${tool}: root type is ${schema.type}, not object`);
  if (rules.rootNotUnion && (schema.anyOf || schema.oneOf)) found.push(`${tool}: root is a union`);
  if (!rules.toolName.test(tool)) found.push(`${tool}: tool name`);
  walk(schema, '', 0);
  if (properties > rules.maxProperties) found.push(`${tool}: ${properties} properties`);
  if (enumValues > rules.maxEnumValues) found.push(`${tool}: ${enumValues} enum values`);
  return found;
}

const tools = listTools(OPERATIONS);

for (const rules of [OPENAI_STRICT, GEMINI, ANTHROPIC]) {
  test(`every tool's input schema fits ${rules.name} (${rules.source})`, () => {
    assert.ok(tools.length >= 70);
    const findings = tools.flatMap((t) => {
      const schema = t.inputSchema as Node;
      return check(rules, t.name, rules === OPENAI_STRICT ? strictForm(schema) : schema);
    });
    assert.deepEqual(findings, []);
  });
}

test('the free-form maps exempted from closed objects are still free-form maps (the list is not stale)', () => {
  for (const path of FREE_FORM) {
    const [tool, ...props] = path.split('.');
    let n = tools.find((t) => t.name === tool)?.inputSchema as Node | undefined;
    for (const p of props) n = n?.properties?.[p];
    assert.ok(n, `${path} exists`);
    assert.equal(n.type, 'object', path);
    assert.equal(n.properties, undefined, `${path} has no fixed properties`);
  }
});
