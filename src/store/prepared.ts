// Hot-path queries compiled by Kysely once, then re-run with new values. The SQL still comes from the query
// builder (so it follows the dialect), but the per-call cost of building and compiling the query tree is gone.
import { CompiledQuery } from 'kysely';

const MARK = '\u0000param:';

/**
 * `build` receives a placeholder for every named value and returns the compiled query; the result turns a set
 * of real values into a ready CompiledQuery with the same SQL text.
 */
export function precompile<K extends string>(
  keys: readonly K[],
  build: (p: Record<K, string>) => CompiledQuery,
): (values: Record<K, unknown>) => CompiledQuery {
  const placeholders = Object.fromEntries(keys.map((k) => [k, MARK + k])) as Record<K, string>;
  const compiled = build(placeholders);
  type Slot = { key: K; value?: undefined } | { key?: undefined; value: unknown };
  const slots: Slot[] = compiled.parameters.map((v) =>
    typeof v === 'string' && v.startsWith(MARK) ? { key: v.slice(MARK.length) as K } : { value: v },
  );
  for (const k of keys) if (!slots.some((s) => s.key === k)) throw new Error(`precompile: ${k} is not used by the query`);
  return (values) =>
    CompiledQuery.raw(
      compiled.sql,
      slots.map((s) => (s.key !== undefined ? values[s.key] : s.value)),
    );
}
