// Parses raw RFC 5322 bytes into a ParsedMessage with mailparser's simpleParser, bounded and best-effort:
// huge headers, many parts, NUL bytes, bare LF, broken charsets and invalid UTF-8 all come out as a
// message. Only input that is not a message at all (empty) is an Error.

import type { AddressObject, Attachment, EmailAddress, ParsedMail } from 'mailparser';
import type { MailAddress, ParsedAttachment, ParsedMessage } from './types.ts';

/** A parse that takes longer than this is abandoned and the fallback parser is used. */
const PARSE_TIMEOUT_MS = 15_000;
/** Limits handed to mailsplit (its defaults, 1 MiB of header and 1,000 nodes, reject real mail). */
const MAX_HEAD_SIZE = 8 * 1024 * 1024;
const MAX_CHILD_NODES = 20_000;
/** Cap on one decoded header value kept in `headers` (display only). */
const MAX_HEADER_VALUE = 64 * 1024;
/** Cap on the number of header lines kept. */
const MAX_HEADER_LINES = 2_000;

// mailparser (with its charset tables and linkify) is loaded with the first message parsed on this thread: the main
// thread of a server whose ingest workers parse never loads it.
let mailparser: Promise<typeof import('mailparser')> | undefined;

export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  if (!Buffer.isBuffer(raw)) throw new TypeError('parseMessage: raw must be a Buffer');
  if (raw.length === 0 || isBlank(raw)) throw new Error('cannot parse message: input is empty');
  raw = withoutBareCR(raw);
  let mail: ParsedMail;
  try {
    mailparser ??= import('mailparser');
    const { simpleParser } = await mailparser;
    mail = await withTimeout(
      simpleParser(raw, {
        skipHtmlToText: true,
        skipTextToHtml: true,
        skipTextLinks: true,
        skipImageLinks: true,
        keepCidLinks: true,
        // passed through to the mailsplit Splitter
        maxHeadSize: MAX_HEAD_SIZE,
        maxChildNodes: MAX_CHILD_NODES,
      } as Parameters<typeof import('mailparser').simpleParser>[1]),
      PARSE_TIMEOUT_MS,
    );
  } catch {
    return fallbackParse(raw);
  }
  return fromMailparser(mail);
}

const CR = 0x0d;
const LF = 0x0a;

/**
 * Lines ended by a bare CR (old Mac style) look to mailparser like one endless line, and a few MB of such header
 * costs it seconds of CPU (found by fuzzing). For parsing only — the stored raw bytes stay as received — a bare CR
 * becomes CRLF. Messages without one (nearly all) are returned untouched, after one linear scan.
 */
export function withoutBareCR(raw: Buffer): Buffer {
  let bare = 0;
  for (let i = raw.indexOf(CR); i !== -1; i = raw.indexOf(CR, i + 1)) if (raw[i + 1] !== LF) bare++;
  if (bare === 0) return raw;
  const out = Buffer.allocUnsafe(raw.length + bare);
  let o = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    out[o++] = b;
    if (b === CR && raw[i + 1] !== LF) out[o++] = LF;
  }
  return out;
}

function isBlank(raw: Buffer): boolean {
  const n = Math.min(raw.length, 4096);
  for (let i = 0; i < n; i++) {
    const c = raw[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return raw.length <= 4096;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`message parse timed out after ${ms} ms`)), ms);
    t.unref?.();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// mailparser → ParsedMessage

function fromMailparser(mail: ParsedMail): ParsedMessage {
  const headers: Array<[string, string]> = [];
  for (const hl of (mail.headerLines ?? []).slice(0, MAX_HEADER_LINES)) {
    const name = String(hl.key ?? '').toLowerCase();
    if (!name) continue;
    const line = String(hl.line ?? '');
    const colon = line.indexOf(':');
    const value = colon >= 0 ? line.slice(colon + 1) : '';
    headers.push([clean(name), clean(decodeHeaderValue(raw8bit(unfold(value).slice(0, MAX_HEADER_VALUE))))]);
  }

  const refs = mail.references;
  const references = (Array.isArray(refs) ? refs : typeof refs === 'string' ? refs.split(/\s+/) : [])
    .map((r) => clean(String(r)).trim())
    .filter((r) => r.length > 0)
    .slice(0, 500);

  const date = mail.date instanceof Date && !Number.isNaN(mail.date.getTime()) ? mail.date : null;
  const text = typeof mail.text === 'string' && mail.text.trim() !== '' ? clean(mail.text) : null;
  const html = typeof mail.html === 'string' && mail.html.trim() !== '' ? clean(mail.html) : null;

  return {
    messageId: nonEmpty(mail.messageId),
    subject: clean(typeof mail.subject === 'string' ? mail.subject : '').slice(0, MAX_HEADER_VALUE),
    from: addresses(mail.from)[0] ?? null,
    to: addresses(mail.to),
    cc: addresses(mail.cc),
    replyTo: addresses(mail.replyTo),
    date,
    inReplyTo: nonEmpty(mail.inReplyTo),
    references,
    headers,
    text,
    html,
    attachments: (mail.attachments ?? []).map(toAttachment),
  };
}

function nonEmpty(s: unknown): string | null {
  if (typeof s !== 'string') return null;
  const t = clean(s).trim();
  return t === '' ? null : t;
}

/** Removes NUL bytes (kept out of storage and JSON consumers). */
function clean(s: string): string {
  return s.indexOf('\u0000') >= 0 ? s.replace(/\u0000/g, '') : s;
}

function addresses(v: AddressObject | AddressObject[] | undefined): MailAddress[] {
  const out: MailAddress[] = [];
  const push = (list: EmailAddress[] | undefined, depth: number): void => {
    for (const a of list ?? []) {
      if (out.length >= 1000) return;
      if (a.group && depth < 3) push(a.group, depth + 1);
      else if (a.address || a.name) out.push({ name: clean(a.name ?? ''), address: clean(a.address ?? '') });
    }
  };
  for (const o of Array.isArray(v) ? v : v ? [v] : []) push(o.value, 0);
  return out;
}

function toAttachment(a: Attachment): ParsedAttachment {
  const content = Buffer.isBuffer(a.content) ? a.content : Buffer.alloc(0);
  const disp = (a.contentDisposition ?? '').toLowerCase();
  const disposition: 'attachment' | 'inline' =
    disp === 'inline' || (disp === '' && a.related === true && !a.filename) ? 'inline' : 'attachment';
  const cid = typeof a.cid === 'string' && a.cid !== '' ? a.cid : null;
  return {
    filename: sanitizeFilename(a.filename),
    contentType: (a.contentType || 'application/octet-stream').toLowerCase(),
    disposition,
    contentId: cid ? clean(cid).slice(0, 998) : null,
    size: content.length,
    content,
  };
}

/** Display-only file name: last path component, no control characters, bounded length. */
export function sanitizeFilename(name: string | undefined | null): string | null {
  if (typeof name !== 'string') return null;
  let s = name.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '');
  const slash = Math.max(s.lastIndexOf('/'), s.lastIndexOf('\\'));
  if (slash >= 0) s = s.slice(slash + 1);
  s = s.trim();
  if (s === '' || s === '.' || s === '..') return null;
  if (s.length > 255) {
    const dot = s.lastIndexOf('.');
    const ext = dot > 0 && s.length - dot <= 16 ? s.slice(dot) : '';
    s = s.slice(0, 255 - ext.length) + ext;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------------
// header helpers

/** Header lines come from mailsplit as binary strings: raw UTF-8 bytes in them are decoded (RFC 6532). */
function raw8bit(v: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[\x80-\xff]/.test(v) || /[^\x00-\xff]/.test(v)) return v;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(v, 'latin1'));
  } catch {
    return v;
  }
}

function unfold(v: string): string {
  return v
    .replace(/\r?\n(?=[ \t])/g, '')
    .replace(/[\r\n]+/g, ' ')
    .trim();
}

function decodeCharset(bytes: Uint8Array, charset: string): string {
  let label = charset.trim().toLowerCase().replace(/\*.*$/, ''); // RFC 2231 language suffix
  if (label === 'utf8') label = 'utf-8';
  if (label === 'ks_c_5601-1987' || label === 'ks_c_5601') label = 'euc-kr';
  try {
    return new TextDecoder(label || 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Decodes RFC 2047 encoded words; whitespace between adjacent encoded words is dropped. */
export function decodeHeaderValue(value: string): string {
  if (value.indexOf('=?') < 0) return value;
  const re = /=\?([^?\s]{1,64})\?([bBqQ])\?([^?\s]*)\?=/g;
  let out = '';
  let last = 0;
  let prevWasWord = false;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const between = value.slice(last, m.index);
    if (!(prevWasWord && /^[ \t]*$/.test(between))) out += between;
    const [, charset = 'utf-8', enc = 'q', data = ''] = m;
    let bytes: Uint8Array;
    if (enc === 'b' || enc === 'B') {
      bytes = Buffer.from(data.replace(/[^A-Za-z0-9+/]/g, ''), 'base64');
    } else {
      const s = data.replace(/_/g, ' ');
      const arr: number[] = [];
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c === 0x3d && i + 2 < s.length + 0 && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
          arr.push(parseInt(s.slice(i + 1, i + 3), 16));
          i += 2;
        } else arr.push(c & 0xff);
      }
      bytes = Uint8Array.from(arr);
    }
    out += decodeCharset(bytes, charset);
    last = m.index + m[0].length;
    prevWasWord = true;
  }
  return out + value.slice(last);
}

// ---------------------------------------------------------------------------------------------------
// fallback: a minimal parser for input mailparser rejects (treats the body as plain text)

function fallbackParse(raw: Buffer): ParsedMessage {
  const limit = Math.min(raw.length, 32 * 1024 * 1024);
  const s = raw.subarray(0, limit).toString('utf8');
  const m = /\r?\n\r?\n/.exec(s.length > MAX_HEAD_SIZE ? s.slice(0, MAX_HEAD_SIZE) : s);
  const headEnd = m ? m.index : 0;
  const bodyStart = m ? m.index + m[0].length : 0;
  const head = s.slice(0, headEnd);
  const headers: Array<[string, string]> = [];
  const lines = head.split(/\r?\n(?![ \t])/);
  for (const line of lines) {
    if (headers.length >= MAX_HEADER_LINES) break;
    const colon = line.indexOf(':');
    if (colon <= 0 || colon > 200) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name)) continue;
    headers.push([name, clean(decodeHeaderValue(unfold(line.slice(colon + 1).slice(0, MAX_HEADER_VALUE))))]);
  }
  const get = (n: string): string | null => headers.find(([k]) => k === n)?.[1] ?? null;
  const addr = (v: string | null): MailAddress | null => {
    if (!v) return null;
    const am = /<([^<>\s]+@[^<>\s]+)>/.exec(v) ?? /([^\s<>,;"]+@[^\s<>,;"]+)/.exec(v);
    if (!am) return null;
    const name = v.slice(0, am.index).replace(/["']/g, '').trim();
    return { name, address: am[1] ?? '' };
  };
  const to = addr(get('to'));
  const dateStr = get('date');
  const date = dateStr ? new Date(dateStr) : null;
  const body = clean(s.slice(bodyStart));
  const isHtml = /^\s*text\/html/i.test(get('content-type') ?? '');
  return {
    messageId: get('message-id'),
    subject: get('subject') ?? '',
    from: addr(get('from')),
    to: to ? [to] : [],
    cc: [],
    replyTo: [],
    date: date && !Number.isNaN(date.getTime()) ? date : null,
    inReplyTo: get('in-reply-to'),
    references: (get('references') ?? '').split(/\s+/).filter(Boolean).slice(0, 500),
    headers,
    text: !isHtml && body.trim() !== '' ? body : null,
    html: isHtml && body.trim() !== '' ? body : null,
    attachments: [],
  };
}
