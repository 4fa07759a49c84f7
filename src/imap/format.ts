// IMAP response data (RFC 3501 §9 "response"): strings, ENVELOPE, BODY/BODYSTRUCTURE and dates, from the MIME tree
// of src/mail/mime-tree.ts. Header values go out undecoded (encoded words stay encoded: clients decode them).
import { countLines, header, type MimePart, parseParams } from '../mail/mime-tree.ts';

/** A response item: text as is, or bytes sent as a literal. */
export type Out = string | Buffer;

/** A string as a quoted string when it can be one, else as a literal (`{n}\r\n` + bytes). */
export function str(s: string | null | undefined): string {
  if (s === null || s === undefined) return 'NIL';
  if (s.length < 1024 && /^[\x20-\x7e]*$/.test(s)) return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  const b = Buffer.from(s, 'utf8');
  return `{${b.length}}\r\n${b.toString('utf8')}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** INTERNALDATE: `"27-Nov-2026 07:15:57 +0000"`. */
export function internalDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `"${p(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000"`;
}

/** An IMAP date (`1-Feb-2026`, SEARCH SINCE/BEFORE/ON) as the UTC midnight it names, or null. */
export function parseSearchDate(s: string): number | null {
  const m = /^(\d{1,2})-([A-Za-z]{3})-(\d{4})$/.exec(s);
  if (!m) return null;
  const month = MONTHS.findIndex((x) => x.toLowerCase() === m[2]!.toLowerCase());
  if (month < 0) return null;
  return Date.UTC(Number(m[3]), month, Number(m[1]));
}

export function envelope(raw: Buffer, part: MimePart): string {
  const h = (n: string) => header(part, n);
  const from = addresses(h('from'));
  const sender = addresses(h('sender')) ?? from;
  const replyTo = addresses(h('reply-to')) ?? from;
  void raw;
  return `(${[
    str(h('date')),
    str(h('subject')),
    from ?? 'NIL',
    sender ?? 'NIL',
    replyTo ?? 'NIL',
    addresses(h('to')) ?? 'NIL',
    addresses(h('cc')) ?? 'NIL',
    addresses(h('bcc')) ?? 'NIL',
    str(h('in-reply-to')),
    str(h('message-id')),
  ].join(' ')})`;
}

/** An address list header as IMAP address structures `((name adl mailbox host) …)`, or null when empty. */
export function addresses(v: string | null): string | null {
  if (!v) return null;
  const out: string[] = [];
  for (const a of splitAddresses(v).slice(0, 1000)) {
    // A group `name: a, b;` is flattened to its members.
    const email = /<([^<>]*)>\s*$/.exec(a);
    let name: string | null = null;
    let addr = a.trim();
    if (email) {
      addr = email[1]!.trim();
      name =
        a
          .slice(0, email.index)
          .trim()
          .replace(/^"(.*)"$/s, '$1') || null;
    } else {
      const comment = /\(([^()]*)\)\s*$/.exec(addr);
      if (comment) {
        name = comment[1]!.trim() || null;
        addr = addr.slice(0, comment.index).trim();
      }
    }
    // A group `name: a, b;`: the members count, the group name does not.
    const group = /^[^@"<]*:\s*(.*)$/s.exec(addr);
    if (group && !email) addr = group[1]!.trim();
    if (!addr && !name) continue;
    const at = addr.lastIndexOf('@');
    const mailbox = at > 0 ? addr.slice(0, at) : addr;
    const host = at > 0 ? addr.slice(at + 1) : null;
    out.push(`(${str(name)} NIL ${str(mailbox || null)} ${str(host)})`);
  }
  return out.length > 0 ? `(${out.join('')})` : null;
}

/** Splits an address list at commas outside quotes, angle brackets and comments. */
function splitAddresses(v: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote = false;
  let angle = 0;
  let paren = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c === '\\' && quote) {
      cur += c + (v[i + 1] ?? '');
      i++;
      continue;
    }
    if (c === '"') quote = !quote;
    else if (!quote && c === '<') angle++;
    else if (!quote && c === '>') angle = Math.max(0, angle - 1);
    else if (!quote && c === '(') paren++;
    else if (!quote && c === ')') paren = Math.max(0, paren - 1);
    else if (!quote && !angle && !paren && (c === ',' || c === ';')) {
      if (cur.trim()) out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur.trim()) out.push(cur);
  return out;
}

function paramList(params: Array<[string, string]>): string {
  if (params.length === 0) return 'NIL';
  return `(${params.map(([k, v]) => `${str(k.toUpperCase())} ${str(v)}`).join(' ')})`;
}

/** BODYSTRUCTURE (`ext` true) or BODY (`ext` false) of a part. */
export function bodyStructure(raw: Buffer, part: MimePart, ext: boolean): string {
  if (part.type === 'multipart') {
    const kids = part.parts.map((p) => bodyStructure(raw, p, ext)).join('');
    if (!ext) return `(${kids} ${str(part.subtype.toUpperCase())})`;
    return `(${kids} ${str(part.subtype.toUpperCase())} ${paramList(part.params)} ${disposition(part)} ${str(header(part, 'content-language'))} ${str(header(part, 'content-location'))})`;
  }
  const size = part.bodyEnd - part.bodyStart;
  const encoding = (header(part, 'content-transfer-encoding') ?? '7bit').trim().toUpperCase() || '7BIT';
  const fields = [
    str(part.type.toUpperCase()),
    str(part.subtype.toUpperCase()),
    paramList(part.params),
    str(header(part, 'content-id')),
    str(header(part, 'content-description')),
    str(encoding),
    String(size),
  ];
  if (part.type === 'text') fields.push(String(countLines(raw, part.bodyStart, part.bodyEnd)));
  else if (part.type === 'message' && part.subtype === 'rfc822' && part.message)
    fields.push(envelope(raw, part.message), bodyStructure(raw, part.message, ext), String(countLines(raw, part.bodyStart, part.bodyEnd)));
  if (ext)
    fields.push(
      str(header(part, 'content-md5')),
      disposition(part),
      str(header(part, 'content-language')),
      str(header(part, 'content-location')),
    );
  return `(${fields.join(' ')})`;
}

function disposition(part: MimePart): string {
  const d = header(part, 'content-disposition');
  if (!d) return 'NIL';
  const p = parseParams(d);
  if (!p.value) return 'NIL';
  return `(${str(p.value.toUpperCase())} ${paramList(p.params)})`;
}
