// The body limit of a wait's answer (--wait-max-body-chars): text, html and headers cut so that each fits in the
// limit as the answer's JSON writes it. A control character is six characters there (\u0001), a quote or a backslash
// two; counted in plain characters, a body of control characters came out six times the limit, for every waiter's
// socket.

/** The parts of a message answer the limit bounds. */
export interface BodyFields {
  text: string | null;
  html: string | null;
  headers: Array<{ name: string; value: string }>;
}

const ESCAPED = /[\u0000-\u001f"\\\ud800-\udfff]/;

function encodedSize(code: number): number {
  if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return 2;
  if (code < 0x20) return 6;
  return 1;
}

/** Characters of `t` whose JSON encoding fits in `limit` (surrogates count one each: an unpaired one is rare). */
function encodedCut(t: string, limit: number): number {
  if (t.length * 6 <= limit || (t.length <= limit && !ESCAPED.test(t))) return t.length;
  let used = 0;
  for (let i = 0; i < t.length; i++) {
    used += encodedSize(t.charCodeAt(i));
    if (used > limit) return i;
  }
  return t.length;
}

function encodedLength(t: string): number {
  if (!ESCAPED.test(t)) return t.length;
  let n = 0;
  for (let i = 0; i < t.length; i++) n += encodedSize(t.charCodeAt(i));
  return n;
}

/** `v` with text, html and headers bounded by `limit` characters each (0: left out), and whether anything was cut. */
export function withBodyLimit<V extends BodyFields>(v: V, limit: number): V & { truncated: boolean } {
  let truncated = false;
  const cut = (t: string | null): string | null => {
    if (t === null) return null;
    if (limit === 0) {
      truncated = true;
      return null;
    }
    const end = encodedCut(t, limit);
    if (end === t.length) return t;
    truncated = true;
    return t.slice(0, end);
  };
  const headers: BodyFields['headers'] = [];
  let used = 0;
  for (const h of v.headers) {
    used += encodedLength(h.name) + encodedLength(h.value);
    if (used > limit) {
      truncated = true;
      break;
    }
    headers.push(h);
  }
  return { ...v, text: cut(v.text), html: cut(v.html), headers, truncated };
}
