// JSON.parse with a bound on the work it can be made to do. Parsing is linear in the input, but the values it builds
// are not free: 25 MB of "[" is 25 million nested arrays, and "[1,1,1,…]" 12 million numbers, each costing memory and
// seconds of a blocked main thread. One cheap pass over the text counts nesting and values first.

export const MAX_JSON_DEPTH = 64;
export const MAX_JSON_VALUES = 200_000;

export type JsonShapeProblem = { kind: 'depth'; limit: number } | { kind: 'values'; limit: number };

/** Why the text is too deep or has too many values, or null. Strings are skipped, so their content never counts. */
export function jsonShapeProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): JsonShapeProblem | null {
  let depth = 0;
  let separators = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string; an unterminated one is left for JSON.parse to report.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > maxDepth) return { kind: 'depth', limit: maxDepth };
      if (++separators > maxValues) return { kind: 'values', limit: maxValues };
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    } else if (c === 0x2c /* , */) {
      if (++separators > maxValues) return { kind: 'values', limit: maxValues };
    }
  }
  return null;
}

/** The sentence for an error detail, e.g. "nested deeper than 64 levels". */
export function describeJsonShapeProblem(p: JsonShapeProblem): string {
  return p.kind === 'depth' ? `nested deeper than ${p.limit} levels` : `more than ${p.limit} values`;
}
