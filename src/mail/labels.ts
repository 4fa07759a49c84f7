// Labels a message carries from its own addressing and headers (README "Labels by rule"): the tag of a plus address
// (`user+tag@domain` reaches the inbox `user@domain`) and an `X-Tags: a, b` header (as Mailpit reads it). Pure.

/** Labels one message may carry, from every source together (plus tag, X-Tags, rules); more are dropped. */
export const MAX_MESSAGE_LABELS = 20;
/** Characters of one label. */
export const MAX_LABEL_CHARS = 64;

/**
 * A label as stored: trimmed, lower case, inner white space as one space, control characters removed; null when
 * nothing is left or it is longer than MAX_LABEL_CHARS.
 */
export function normalizeLabel(raw: string): string | null {
  const v = raw
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
  if (v === '' || v.length > MAX_LABEL_CHARS) return null;
  return v;
}

/**
 * `user+tag@domain` → base `user@domain` and tag `tag` (the first `+` splits; `a+b+c@d` → `a@d`, tag `b+c`). Null when
 * the local part has no `+`, starts with one, or the tag is empty.
 */
export function plusAddress(address: string): { base: string; tag: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const local = address.slice(0, at);
  const plus = local.indexOf('+');
  if (plus <= 0 || plus === local.length - 1) return null;
  const tag = normalizeLabel(local.slice(plus + 1));
  if (!tag) return null;
  return { base: `${local.slice(0, plus)}${address.slice(at)}`.toLowerCase(), tag };
}

/** The labels of `X-Tags` headers (comma-separated, every such header), normalized, at most MAX_MESSAGE_LABELS. */
export function headerTags(headers: ReadonlyArray<readonly [string, string]>): string[] {
  const out = new Set<string>();
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== 'x-tags') continue;
    for (const part of value.slice(0, 4096).split(',')) {
      const l = normalizeLabel(part);
      if (l) out.add(l);
      if (out.size >= MAX_MESSAGE_LABELS) return [...out];
    }
  }
  return [...out];
}
