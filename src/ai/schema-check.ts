// A caller's JSON Schema is checked here, on the main thread, before anything compiles or runs it: a few bounded
// walks (each stops at its limit, none recurses deeper than the limits allow) that bound what compiling and
// validating can cost by construction — size in bytes, nesting depth with $refs followed, properties, enum values,
// $refs, and the number of subschemas once $refs are expanded. A $ref cycle (a recursive schema) is refused: a
// reference that reaches itself never ends. Every refusal is a 400 `validation_failed` naming the JSON path of the
// offending part (`schema/$defs/a/$ref`). Compiling and validating then run in the sandbox (src/ai/schema.ts).

import { AppError } from '../errors.ts';

export interface SchemaLimits {
  /** JSON size of the schema. */
  bytes: number;
  /** Nesting depth of subschemas, counted through $refs (--schema-max-depth). */
  depth: number;
  properties: number;
  enumValues: number;
  refs: number;
  /** Subschemas once every $ref is replaced by its target. */
  expanded: number;
}

export const SCHEMA_LIMITS: SchemaLimits = { bytes: 32 * 1024, depth: 8, properties: 200, enumValues: 200, refs: 64, expanded: 2000 };

/** Nesting of plain JSON values (default, examples, enum, const) inside a schema. */
const VALUE_DEPTH = 32;

export const KEYWORDS = new Set([
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

type Node = Record<string, unknown>;

function bad(detail: string, path: string): never {
  throw new AppError('validation_failed', `${detail} (at schema${path})`, { errors: [{ path: `schema${path}`, message: detail }] });
}

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON size without JSON.stringify (which recurses): an explicit stack, stopped at the byte and nesting limits. */
function sizeOf(root: unknown, limits: SchemaLimits): number {
  let size = 0;
  const maxDepth = limits.depth * 3 + VALUE_DEPTH;
  const stack: Array<{ v: unknown; depth: number }> = [{ v: root, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (depth > maxDepth) bad(`the schema nests JSON deeper than ${maxDepth} levels (its default, examples, enum or const values)`, '');
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null) size += String(v).length;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (const x of v) stack.push({ v: x, depth: depth + 1 });
    } else if (typeof v === 'object') {
      const entries = Object.entries(v as Node);
      size += 2 + entries.length;
      for (const [k, x] of entries) {
        size += k.length + 3;
        stack.push({ v: x, depth: depth + 1 });
      }
    } else bad(`a ${typeof v} is not JSON`, '');
    if (size > limits.bytes) bad(`the schema is more than ${limits.bytes} bytes; send a smaller schema`, '');
  }
  return size;
}

interface RefSite {
  path: string;
  /** Key in the defs table, or '#' for the root. */
  target: string;
}

/** The defs table zod's z.fromJSONSchema resolves `#/<key>/NAME` in, and that key (it depends on $schema). */
function defsOf(root: Node): { key: string; table: Node } {
  const draft = root.$schema === 'http://json-schema.org/draft-07/schema#' || root.$schema === 'http://json-schema.org/draft-04/schema#';
  const table = isNode(root.$defs) ? root.$defs : isNode(root.definitions) ? root.definitions : {};
  return { key: draft ? 'definitions' : '$defs', table };
}

/** Keywords, formats, counts and $ref targets; the walk stops at the literal depth limit. */
function checkKeywords(root: Node, limits: SchemaLimits): Map<unknown, RefSite[]> {
  const { key: defsKey, table } = defsOf(root);
  const refsOf = new Map<unknown, RefSite[]>();
  let props = 0;
  let refs = 0;
  const walk = (node: unknown, path: string, depth: number): void => {
    if (depth > limits.depth) bad(`the schema is nested deeper than ${limits.depth} levels`, path);
    if (typeof node === 'boolean') return;
    if (!isNode(node)) bad('every subschema must be an object or a boolean', path);
    for (const [k, v] of Object.entries(node)) {
      const at = `${path}/${k}`;
      if (!KEYWORDS.has(k)) bad(`keyword '${k}' is not supported; supported: ${[...KEYWORDS].join(', ')}`, at);
      if (k === '$ref') {
        if (typeof v !== 'string' || !v.startsWith('#'))
          bad(`$ref '${String(v)}' points outside the schema; only local refs (#/...) are allowed`, at);
        if (++refs > limits.refs) bad(`the schema has more than ${limits.refs} $refs`, at);
        const segs = v.slice(1).split('/').filter(Boolean);
        let target = '#';
        if (segs.length > 0) {
          const name = segs[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
          if (segs.length !== 2 || segs[0] !== defsKey || name === undefined)
            bad(`$ref '${v}' is not supported; use '#' or '#/${defsKey}/NAME'`, at);
          if (!Object.hasOwn(table, name)) bad(`$ref '${v}' names no entry of ${defsKey}`, at);
          target = name;
        }
        const list = refsOf.get(node);
        if (list) list.push({ path: at, target });
        else refsOf.set(node, [{ path: at, target }]);
      }
      if (k === 'format' && (typeof v !== 'string' || !FORMATS.has(v)))
        bad(`format '${String(v)}' is not supported; supported: ${[...FORMATS].join(', ')}`, at);
      if (k === 'pattern' && typeof v !== 'string') bad('pattern must be a string', at);
      if (k === 'enum' && (!Array.isArray(v) || v.length > limits.enumValues))
        bad(`enum must be an array of at most ${limits.enumValues} values`, at);
      if (k === 'required' && (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))) bad('required must be an array of names', at);
      if (k === 'properties' || k === '$defs' || k === 'definitions') {
        if (!isNode(v)) bad(`'${k}' must be an object`, at);
        const entries = Object.entries(v);
        if (k === 'properties') {
          props += entries.length;
          if (props > limits.properties) bad(`the schema has more than ${limits.properties} properties`, at);
        }
        for (const [pk, pv] of entries) walk(pv, `${at}/${pk}`, depth + 1);
      } else if (k === 'items' || k === 'additionalProperties') {
        if (typeof v === 'object' || typeof v === 'boolean') walk(v, at, depth + 1);
      } else if (k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'prefixItems') {
        if (!Array.isArray(v)) bad(`'${k}' must be an array`, at);
        for (const [i, s] of v.entries()) walk(s, `${at}/${i}`, depth + 1);
      }
    }
  };
  walk(root, '', 0);
  return refsOf;
}

/** Children of a subschema that the compiled validator walks (not $defs: those count where they are referenced). */
function children(node: Node, path: string): Array<{ node: unknown; path: string }> {
  const out: Array<{ node: unknown; path: string }> = [];
  if (isNode(node.properties)) for (const [k, v] of Object.entries(node.properties)) out.push({ node: v, path: `${path}/properties/${k}` });
  for (const k of ['items', 'additionalProperties']) if (isNode(node[k])) out.push({ node: node[k], path: `${path}/${k}` });
  for (const k of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const list = node[k];
    if (Array.isArray(list)) for (const [i, v] of list.entries()) out.push({ node: v, path: `${path}/${k}/${i}` });
  }
  return out;
}

interface Measure {
  /** Subschemas once $refs are expanded. */
  size: number;
  /** Levels below this subschema once $refs are followed. */
  height: number;
}

/**
 * Follows every $ref: refuses a cycle (naming the chain), a depth over the limit and an expansion over the limit.
 * Each $defs entry is measured once (memoised), so this is linear in the schema; its recursion is bounded by the
 * depth limit times the number of $refs, both already checked.
 */
function checkExpansion(root: Node, refsOf: Map<unknown, RefSite[]>, limits: SchemaLimits): void {
  const { key: defsKey, table } = defsOf(root);
  const memo = new Map<string, Measure>();
  const open: string[] = [];
  const nameOf = (t: string) => (t === '#' ? '#' : `#/${defsKey}/${t}`);
  const measureDef = (target: string, path: string): Measure => {
    const known = memo.get(target);
    if (known) return known;
    if (open.includes(target))
      bad(
        `$ref cycle ${[...open.slice(open.indexOf(target)), target].map(nameOf).join(' → ')}: recursive schemas are not accepted; nest a fixed number of levels instead`,
        path,
      );
    open.push(target);
    const m = measure(target === '#' ? root : table[target], target === '#' ? '' : `/${defsKey}/${target}`, 0);
    open.pop();
    memo.set(target, m);
    return m;
  };
  const measure = (node: unknown, path: string, depth: number): Measure => {
    if (!isNode(node)) return { size: 1, height: 0 };
    let size = 1;
    let height = 0;
    for (const site of refsOf.get(node) ?? []) {
      const m = measureDef(site.target, site.path);
      if (depth + m.height > limits.depth)
        bad(`following its $refs, the schema is nested deeper than ${limits.depth} levels (--schema-max-depth)`, site.path);
      size += m.size;
      height = Math.max(height, m.height);
      if (size > limits.expanded)
        bad(`the schema expands to more than ${limits.expanded} subschemas once its $refs are followed`, site.path);
    }
    for (const c of children(node, path)) {
      const m = measure(c.node, c.path, depth + 1);
      size += m.size;
      height = Math.max(height, m.height + 1);
      if (size > limits.expanded) bad(`the schema expands to more than ${limits.expanded} subschemas once its $refs are followed`, c.path);
    }
    return { size, height };
  };
  measureDef('#', '');
  for (const name of Object.keys(table)) measureDef(name, `/${defsKey}/${name}`);
}

/** Throws 400 naming the first problem and where it is; returns nothing when the schema is within every limit. */
export function checkSchema(schema: unknown, limits: SchemaLimits = SCHEMA_LIMITS): asserts schema is Record<string, unknown> {
  if (!isNode(schema)) bad('schema must be a JSON Schema object', '');
  const refsOf = checkKeywords(schema, limits);
  sizeOf(schema, limits);
  checkExpansion(schema, refsOf, limits);
}
