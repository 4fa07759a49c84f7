// How the IMAP adapter groups messages into threads and reads what FETCH returns: the thread key (X-GM-THRID or
// THREADID, else the References root / In-Reply-To / own Message-ID, else the normalised subject), the opaque
// thread id and cursor shapes, the References header, and attachments from BODYSTRUCTURE.
import type { FetchMessageObject, MessageStructureObject } from 'imapflow';
import { parseSubject } from '../../mail/threads.ts';
import { pickHeaders } from './mime.ts';
import type { AttachmentInfo } from './types.ts';

export type Key = { g: string } | { r: string } | { s: string };
export interface ThreadRef {
  f: string;
  k: Key;
}
export function isRef(v: unknown): v is ThreadRef {
  if (typeof v !== 'object' || v === null || typeof (v as ThreadRef).f !== 'string') return false;
  const k = (v as ThreadRef).k as Record<string, unknown> | null;
  return typeof k === 'object' && k !== null && ['g', 'r', 's'].some((n) => typeof k[n] === 'string');
}
export const isPage = (v: unknown): v is { v: string; b: number } =>
  typeof v === 'object' && v !== null && typeof (v as { v: unknown }).v === 'string' && Number.isInteger((v as { b: unknown }).b);

const bare = (id: string | null | undefined) => (id ?? '').trim().replace(/^<|>$/g, '').toLowerCase();
export function refsOf(headers: Buffer | undefined): { references: string[]; raw: Record<string, string> } {
  const text = headers?.toString('utf8') ?? '';
  const unfolded = text.replace(/\r?\n[ \t]+/g, ' ');
  const lines: Array<[string, string]> = [];
  for (const l of unfolded.split(/\r?\n/)) {
    const i = l.indexOf(':');
    if (i > 0) lines.push([l.slice(0, i).trim(), l.slice(i + 1).trim()]);
  }
  const refLine = lines.find(([k]) => k.toLowerCase() === 'references')?.[1] ?? '';
  return { references: refLine.match(/<[^>]+>/g) ?? [], raw: pickHeaders(lines) };
}

export function keyOf(m: FetchMessageObject, gm: boolean, references: string[]): Key {
  if (gm && m.threadId) return { g: m.threadId };
  const root = bare(references[0]) || bare(m.envelope?.inReplyTo) || bare(m.envelope?.messageId);
  if (root) return { r: root };
  return { s: parseSubject(m.envelope?.subject ?? '').base.toLowerCase() };
}

export function attachmentsOf(node: MessageStructureObject | undefined, out: AttachmentInfo[] = []): AttachmentInfo[] {
  if (!node) return out;
  if (node.childNodes?.length) for (const c of node.childNodes) attachmentsOf(c, out);
  else {
    const filename = node.dispositionParameters?.filename ?? node.parameters?.name ?? null;
    if (node.disposition === 'attachment' || (filename && !node.type.startsWith('text/')))
      out.push({ filename, contentType: node.type, size: node.size ?? 0 });
  }
  return out;
}
