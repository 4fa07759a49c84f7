// The JSON Schema a tool advertises: compact and portable. The operation's zod schema still validates every call in
// full (src/ops/pipeline.ts); what a model is shown keeps the shape (properties, types, required, enums) and drops
// what only the server needs to check (lengths, ranges, patterns, defaults), and is written in the subset that
// OpenAI strict function calling, Gemini function declarations (the OpenAPI subset: one `type` per node, string
// enums, no `const`/`oneOf`) and Anthropic tool input schemas all accept: test/unit/mcp-schema-portability.test.ts
// holds those rule sets and checks every tool against them, and test/e2e/mcp-inspector.test.ts runs the MCP
// Inspector's --strict lint over tools/list.
import { z } from 'zod';
import { SERVICE_PRESETS } from '../ops/toolsets.ts';

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

/**
 * Arguments many tools share, explained once in the server's instructions (initialize) instead of in every tool:
 * their per-tool descriptions are left out.
 */
export const GLOSSARY: Readonly<Record<string, string>> = {
  inboxId: 'an inbox id (inb_…)',
  messageId: 'a message id (msg_…)',
  threadId: 'a thread id (thr_…)',
  runId: 'a run id (run_…)',
  accountId: 'a connected mailbox or calendar account (pac_…), or "local"',
  accountIds: 'accounts to read (pac_… or "local"); default all',
  calendarIds: 'calendars of those accounts; default all',
  cursor: 'the nextCursor of the previous page',
  limit: 'how many at most (a page)',
  since: 'an ISO 8601 time or a msg_… id: only what came after it',
  timeZone: 'an IANA time zone (Europe/Berlin); default UTC',
  idempotencyKey: 'the same key returns the first result for 24 h',
  me: 'your own address, so mail from it counts as yours',
  engine: 'auto (models, then built-in) or builtin',
  service: `a service preset: ${SERVICE_PRESETS.join(', ')}`,
};

/** The glossary as the server's instructions carry it, one line per argument. */
export function glossaryText(): string {
  return `Arguments many tools share:\n${Object.entries(GLOSSARY)
    .map(([k, v]) => `- ${k}: ${v}`)
    .join('\n')}`;
}

/** Ids in answers: their values say what they are. */
export const OUTPUT_IDS: ReadonlySet<string> = new Set(['inboxId', 'messageId', 'threadId', 'runId', 'nextCursor']);

/** Arguments whose name and type say what they are: no description. */
export const SELF_DESCRIBING: ReadonlySet<string> = new Set([
  ...'subject text html to cc bcc replyTo from title description location start end timeMin timeMax attendees'.split(' '),
  ...'filename contentType contentBase64 domain domainId monitorId reminderId ruleId draftId attachmentId stepId'.split(' '),
  ...'user username password host port secure smtpHost smtpPort smtpUser smtpPassword smtpSecure tlsInsecure'.split(' '),
  ...'clientId clientSecret refreshToken accessToken serverUrl calendarUrl calendarId name labels'.split(' '),
  ...'timeoutSeconds ttlMinutes durationMinutes bufferBeforeMinutes bufferAfterMinutes stepMinutes count'.split(' '),
  ...'workdayStart workdayEnd workDays enabled intervalSeconds goal dueAt dueBefore status kind category'.split(' '),
  ...'reason reasons maxResults maxMessages top type date subjectContains textContains expectFrom'.split(' '),
  ...'ms n p seed windowSeconds bytesPerSecond retryAfterSeconds permanent per recipient sender stage'.split(' '),
  ...'withinMinutes localPart deleteAfter'.split(' '),
]);

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
 * constraints and `additionalProperties` dropped, descriptions cut to their first clause.
 */
function rewrite(input: unknown): unknown {
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
    } else {
      const branches = raw.map((b) => rewrite(b)) as Node[];
      if (isListOrOne(branches)) {
        // "One value or a list" (a comma-separated string is accepted too): advertised as the list.
        delete n.anyOf;
        n = { ...branches.find((b) => b.type === 'array')!, ...n };
      } else n.anyOf = branches;
    }
  }
  if (Array.isArray(n.enum) && n.enum.some((v) => typeof v !== 'string')) {
    const values = n.enum as unknown[];
    delete n.enum;
    n = withValues(n, values);
  }
  if (isNode(n.properties)) n.properties = Object.fromEntries(Object.entries(n.properties).map(([k, v]) => [k, rewrite(v)]));
  if (Array.isArray(n.enum) && typeof n.description === 'string') {
    // "What to deliver: otp, magic_link, …" says the enum again: the part before the list is enough.
    const at = n.description.indexOf(': ');
    const rest = at < 0 ? '' : n.description.slice(at);
    if (at > 0 && (n.enum as string[]).every((v) => rest.includes(v))) n.description = n.description.slice(0, at);
  }
  if (n.items !== undefined) n.items = rewrite(n.items);
  if (Array.isArray(n.prefixItems)) {
    const branches = (n.prefixItems as unknown[]).map((b) => rewrite(b)) as Node[];
    delete n.prefixItems;
    const distinct = [...new Map(branches.map((b) => [JSON.stringify(b), b])).values()];
    n.items = distinct.length === 1 ? distinct[0] : { anyOf: distinct };
  }
  if (Array.isArray(n.allOf)) n.allOf = (n.allOf as unknown[]).map((b) => rewrite(b));
  if (isNode(n.additionalProperties)) {
    // A free-form map (z.record): an object whose keys the caller chooses. Said as a plain object.
    delete n.additionalProperties;
    n.type ??= 'object';
  }
  // Closed objects are the server's business (it refuses unknown arguments); a strict client closes them itself.
  delete n.additionalProperties;
  if (typeof n.description === 'string') n.description = brief(n.description);
  if (!Object.keys(n).some((k) => TYPED.has(k))) {
    // Any JSON value (z.unknown): said as the union of every type, which single-`type` dialects can carry.
    return { ...n, anyOf: ANY_TYPE.map((type) => ({ type })) };
  }
  return n;
}

/**
 * A parameter's description as a tool shows it: its first clause (up to the first "; ", " (" or ". "), which names
 * the thing; the rest (ranges, defaults, the full grammar) is the REST reference's (GET /v1/openapi.json).
 */
export function brief(d: string): string {
  const t = d.replace(/,? e\.g\.? .*$/, '');
  const cut = Math.min(...['; ', ' (', '. '].map((m) => t.indexOf(m)).filter((i) => i >= 8), t.length);
  return t.slice(0, cut).replace(/[.:,]$/, '');
}

/** `anyOf: [{type: T}, {type: array, items: {type: T}}]` in either order. */
function isListOrOne(branches: unknown[]): boolean {
  if (branches.length !== 2 || !branches.every(isNode)) return false;
  const [a, b] = branches as Node[];
  const one = a!.type === 'array' ? b! : a!;
  const list = a!.type === 'array' ? a! : b!;
  return list.type === 'array' && isNode(list.items) && list.items.type === one.type && Object.keys(one).length === 1;
}

function pick(o: Node, keys: string[]): Node {
  return Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
}

/**
 * Drops the descriptions of glossary and self-describing arguments (at any depth), after the tool's renames; in an
 * output schema (`only`) only those of the glossary's ids, whose values say what they are (inb_…, msg_…).
 */
export function undescribeCommon(schema: JsonSchema, only?: ReadonlySet<string>): JsonSchema {
  const walk = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(walk);
    if (!isNode(n)) return n;
    const out: Node = {};
    for (const [k, v] of Object.entries(n)) {
      if (k === 'properties' && isNode(v))
        out[k] = Object.fromEntries(
          Object.entries(v).map(([name, p]) => {
            const r = walk(p) as Node;
            if (only ? only.has(name) : name in GLOSSARY || SELF_DESCRIBING.has(name)) delete r.description;
            // The glossary lists the values (the server still refuses any other).
            if (!only && name in GLOSSARY && r.type === 'string') delete r.enum;
            return [name, r];
          }),
        );
      else out[k] = k === 'enum' || k === 'required' ? v : walk(v);
    }
    return out;
  };
  return walk(schema) as JsonSchema;
}

/** The JSON Schema of a zod schema as a tool advertises it (see the top of this file). */
export function toolSchema(t: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const s = z.toJSONSchema(t, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rewrite(s) as JsonSchema;
}
