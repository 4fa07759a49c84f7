// Hot-path queries compiled by Kysely once, then re-run with new values. The SQL still comes from the query
// builder (so it follows the dialect), but the per-call cost of building and compiling the query tree is gone.
// Their texts are fixed, so on PostgreSQL each is also a named prepared statement (parsed and planned once per
// connection, src/store/pg.ts), and a write whose result nobody reads (`deferrable`) is pipelined inside a
// transaction: sent at once, not waited for; its error surfaces at the next statement or at COMMIT.
import { CompiledQuery } from 'kysely';

const MARK = '\u0000param:';

/** The precompiled texts by their statement names (`q1`, `q2`, …), and which of them are deferrable writes. */
const named = new Map<string, string>();
const deferrable = new Set<string>();
const appendable = new Set<string>();

/** The prepared statement name of a precompiled query's text (undefined: a text built per call, left unnamed). */
export function statementName(text: string): string | undefined {
  return named.get(text);
}

/** Whether the text is a precompiled write whose result its callers never read. */
export function isDeferrable(text: string): boolean {
  return deferrable.has(text);
}

/** Whether the text is a deferrable plain one-row INSERT that may go with other rows of its kind (see precompile). */
export function isAppendable(text: string): boolean {
  return appendable.has(text);
}

/**
 * `build` receives a placeholder for every named value and returns the compiled query; the result turns a set
 * of real values into a ready CompiledQuery with the same SQL text. `deferrable`: a write whose result (rows, the
 * count of rows) no caller reads, so PostgreSQL may run it pipelined (see above). `'append'`: moreover a plain
 * `insert … values (…)` of one row that no row written by the same transaction's other deferrable writes depends on
 * (no foreign key to them, no conflict with them): on PostgreSQL the rows of a transaction's run of deferred writes
 * go as one multi-row INSERT, at the place of the first.
 */
export function precompile<K extends string>(
  keys: readonly K[],
  build: (p: Record<K, string>) => CompiledQuery,
  opts: { deferrable?: boolean | 'append' } = {},
): (values: Record<K, unknown>) => CompiledQuery {
  const placeholders = Object.fromEntries(keys.map((k) => [k, MARK + k])) as Record<K, string>;
  const compiled = build(placeholders);
  type Slot = { key: K; value?: undefined } | { key?: undefined; value: unknown };
  const slots: Slot[] = compiled.parameters.map((v) =>
    typeof v === 'string' && v.startsWith(MARK) ? { key: v.slice(MARK.length) as K } : { value: v },
  );
  for (const k of keys) if (!slots.some((s) => s.key === k)) throw new Error(`precompile: ${k} is not used by the query`);
  if (!named.has(compiled.sql)) named.set(compiled.sql, `q${named.size + 1}`);
  if (opts.deferrable) deferrable.add(compiled.sql);
  if (opts.deferrable === 'append') appendable.add(compiled.sql);
  return (values) =>
    CompiledQuery.raw(
      compiled.sql,
      slots.map((s) => (s.key !== undefined ? values[s.key] : s.value)),
    );
}
