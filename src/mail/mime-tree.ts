// The MIME structure of a raw message with byte offsets, for IMAP (BODYSTRUCTURE, ENVELOPE, BODY[section]): header
// and body of every part, raw header values (IMAP hands them out undecoded). Pure and bounded: at most MAX_PARTS parts
// and MAX_DEPTH levels; deeper or further structure is treated as an opaque body.

export const MAX_PARTS = 1000;
export const MAX_DEPTH = 32;

export interface MimePart {
  /** [start, end) of the header block (without the empty line that ends it). */
  headerStart: number;
  headerEnd: number;
  /** [start, end) of the body. */
  bodyStart: number;
  bodyEnd: number;
  /** Header fields in order: lower-cased name, unfolded raw value. */
  headers: Array<[string, string]>;
  type: string;
  subtype: string;
  params: Array<[string, string]>;
  /** Children of a multipart. */
  parts: MimePart[];
  /** The encapsulated message of a message/rfc822 part. */
  message: MimePart | null;
}

export function header(part: MimePart, name: string): string | null {
  const n = name.toLowerCase();
  for (const [k, v] of part.headers) if (k === n) return v;
  return null;
}

export function parseMime(raw: Buffer): MimePart {
  const budget = { parts: 0 };
  return parsePart(raw, 0, raw.length, 0, budget, null);
}

function parsePart(
  raw: Buffer,
  start: number,
  end: number,
  depth: number,
  budget: { parts: number },
  parentDefault: string | null,
): MimePart {
  budget.parts++;
  const { headerEnd, bodyStart } = splitHeader(raw, start, end);
  const headers = parseHeaders(headerText(raw.subarray(start, headerEnd)));
  const part: MimePart = {
    headerStart: start,
    headerEnd,
    bodyStart,
    bodyEnd: end,
    headers,
    type: 'text',
    subtype: 'plain',
    params: [],
    parts: [],
    message: null,
  };
  const ct = headerOf(headers, 'content-type');
  if (ct) {
    const parsed = parseParams(ct);
    const slash = parsed.value.indexOf('/');
    if (slash > 0) {
      part.type = parsed.value.slice(0, slash).trim().toLowerCase() || 'text';
      part.subtype =
        parsed.value
          .slice(slash + 1)
          .trim()
          .toLowerCase() || 'plain';
    }
    part.params = parsed.params;
  } else if (parentDefault === 'message/rfc822') {
    part.type = 'message';
    part.subtype = 'rfc822';
  }
  if (part.type === 'text' && !ct) part.params = [['charset', 'us-ascii']];
  const limited = depth >= MAX_DEPTH || budget.parts >= MAX_PARTS;
  if (part.type === 'multipart' && !limited) {
    const boundary = part.params.find(([k]) => k === 'boundary')?.[1];
    if (boundary) {
      const childDefault = part.subtype === 'digest' ? 'message/rfc822' : null;
      for (const [s, e] of splitMultipart(raw, bodyStart, end, boundary)) {
        if (budget.parts >= MAX_PARTS) break;
        part.parts.push(parsePart(raw, s, e, depth + 1, budget, childDefault));
      }
    }
    if (part.parts.length === 0) {
      // A multipart without parts is not valid IMAP structure: show it as a plain text body.
      part.type = 'text';
      part.subtype = 'plain';
    }
  } else if (part.type === 'multipart') {
    part.type = 'application';
    part.subtype = 'octet-stream';
  } else if (part.type === 'message' && part.subtype === 'rfc822') {
    if (!limited) part.message = parsePart(raw, bodyStart, end, depth + 1, budget, null);
    else {
      // Past the bounds an encapsulated message is an opaque body (IMAP's MESSAGE/RFC822 needs its structure).
      part.type = 'application';
      part.subtype = 'octet-stream';
    }
  }
  return part;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Header bytes as text: UTF-8 when they are (RFC 6532 headers), else one character per byte. */
function headerText(b: Buffer): string {
  try {
    return UTF8.decode(b);
  } catch {
    return b.toString('latin1');
  }
}

function headerOf(headers: Array<[string, string]>, name: string): string | null {
  for (const [k, v] of headers) if (k === name) return v;
  return null;
}

/** Where the header ends (the CRLF CRLF or LF LF) and the body begins. */
function splitHeader(raw: Buffer, start: number, end: number): { headerEnd: number; bodyStart: number } {
  // A part that starts with an empty line has no header.
  if (raw[start] === 0x0a) return { headerEnd: start, bodyStart: start + 1 };
  if (raw[start] === 0x0d && raw[start + 1] === 0x0a) return { headerEnd: start, bodyStart: start + 2 };
  for (let i = start; i < end; i++) {
    if (raw[i] !== 0x0a) continue;
    if (raw[i + 1] === 0x0a && i + 1 < end) return { headerEnd: i + 1, bodyStart: i + 2 };
    if (raw[i + 1] === 0x0d && raw[i + 2] === 0x0a && i + 2 < end) return { headerEnd: i + 1, bodyStart: i + 3 };
  }
  return { headerEnd: end, bodyStart: end };
}

export function parseHeaders(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue;
    if ((line[0] === ' ' || line[0] === '\t') && out.length > 0) {
      out[out.length - 1]![1] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    out.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return out;
}

/** `value; a=b; c="d e"` → the value and its parameters (names lower-cased, quotes removed, values undecoded). */
export function parseParams(v: string): { value: string; params: Array<[string, string]> } {
  const params: Array<[string, string]> = [];
  let i = v.indexOf(';');
  const value = (i < 0 ? v : v.slice(0, i)).trim();
  while (i >= 0 && i < v.length) {
    i++;
    while (v[i] === ' ' || v[i] === '\t') i++;
    const eq = v.indexOf('=', i);
    if (eq < 0) break;
    const name = v.slice(i, eq).trim().toLowerCase();
    let j = eq + 1;
    while (v[j] === ' ' || v[j] === '\t') j++;
    let val = '';
    if (v[j] === '"') {
      j++;
      while (j < v.length && v[j] !== '"') {
        if (v[j] === '\\' && j + 1 < v.length) j++;
        val += v[j];
        j++;
      }
      j = v.indexOf(';', j);
    } else {
      const semi = v.indexOf(';', j);
      val = (semi < 0 ? v.slice(j) : v.slice(j, semi)).trim();
      j = semi;
    }
    if (name) params.push([name, val]);
    i = j;
  }
  return { value, params };
}

/** The [start, end) of each body part between `--boundary` lines (the CRLF before a delimiter belongs to it). */
function splitMultipart(raw: Buffer, start: number, end: number, boundary: string): Array<[number, number]> {
  const delim = Buffer.from(`--${boundary}`, 'latin1');
  const out: Array<[number, number]> = [];
  let partStart = -1;
  let pos = start;
  while (pos < end) {
    const at = raw.indexOf(delim, pos);
    if (at < 0 || at >= end) break;
    const atLineStart = at === start || raw[at - 1] === 0x0a;
    if (!atLineStart) {
      pos = at + 1;
      continue;
    }
    const closing = raw[at + delim.length] === 0x2d && raw[at + delim.length + 1] === 0x2d;
    if (partStart >= 0) {
      let e = at;
      if (raw[e - 1] === 0x0a) e--;
      if (raw[e - 1] === 0x0d) e--;
      out.push([partStart, Math.max(partStart, e)]);
    }
    if (closing) return out;
    const nl = raw.indexOf(0x0a, at + delim.length);
    if (nl < 0 || nl >= end) return out;
    partStart = nl + 1;
    pos = partStart;
  }
  // No closing delimiter: the last part runs to the end.
  if (partStart >= 0 && partStart <= end) out.push([partStart, end]);
  return out;
}

/** Lines of a body (for text/* and message/rfc822 in BODYSTRUCTURE). */
export function countLines(raw: Buffer, start: number, end: number): number {
  if (end <= start) return 0;
  let n = 0;
  for (let i = raw.indexOf(0x0a, start); i >= 0 && i < end; i = raw.indexOf(0x0a, i + 1)) n++;
  return raw[end - 1] === 0x0a ? n : n + 1;
}

/**
 * The part a section path names ("1.2" → second child of the first child). Of a message that is not multipart, part 1
 * is its body; under a message/rfc822 part, numbers continue in the encapsulated message. Null when it does not exist.
 */
export function partAt(root: MimePart, path: number[]): MimePart | null {
  let cur = root;
  let messageNode = true;
  for (const n of path) {
    let kids: MimePart[];
    if (messageNode) kids = cur.type === 'multipart' ? cur.parts : [cur];
    else if (cur.type === 'multipart') kids = cur.parts;
    else if (cur.message) kids = cur.message.type === 'multipart' ? cur.message.parts : [cur.message];
    else return null;
    const next = kids[n - 1];
    if (!next) return null;
    cur = next;
    messageNode = false;
  }
  return cur;
}
