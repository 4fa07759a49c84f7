// Everything ingest learns from the raw bytes before it stores them: the parsed message, the extracted verification
// code and link, and the content hashes of the raw message and its attachments. Pure CPU work with no I/O, so it can
// run on the main thread or in a worker thread (src/ingest/analyze-worker.ts) with the same result.
import crypto from 'node:crypto';
import { extractVerification } from '../mail/extract/index.ts';
import { attachmentCountOf } from '../mail/inline.ts';
import { parseMessage } from '../mail/parse.ts';
import { type ThreadFields, threadFieldsOf } from '../mail/threads.ts';
import type { ParsedMessage } from '../mail/types.ts';
import { type SearchDoc, searchDoc } from '../search/text.ts';
import type { ContentTable } from '../store/schema.ts';

export interface Analysis {
  parsed: ParsedMessage;
  extraction: ReturnType<typeof extractVerification>;
  rawSha256: string;
  /** sha256 of each attachment's content, in the order of parsed.attachments. */
  attachmentSha256: string[];
  /** Set when the message could not be parsed and is stored raw with empty parsed fields. */
  parseError: string | null;
}

/** The parsed columns of a `contents` row (migration 004), JSON already serialised: all but its key and size. */
export type ContentFields = Omit<ContentTable, 'sha256' | 'size'>;

/**
 * What ingest stores from an analysis: the row's columns as strings and the attachments, plus what threading and the
 * full-text index need (pure functions of the parse, so they are made here, in the worker, and not on the main
 * thread that runs SMTP and the SQLite commit). A worker thread sends only this back, so the main thread neither
 * deserialises the parse's object tree nor serialises it to JSON again.
 */
export interface StoredAnalysis {
  content: ContentFields;
  threadFields: ThreadFields;
  searchDoc: SearchDoc;
  attachments: ParsedMessage['attachments'];
  rawSha256: string;
  attachmentSha256: string[];
  parseError: string | null;
}

export function forStorage(a: Analysis): StoredAnalysis {
  const { parsed, extraction } = a;
  const content: ContentFields = {
    from_address: parsed.from?.address.toLowerCase() ?? null,
    from_name: parsed.from?.name || null,
    to_json: JSON.stringify(parsed.to),
    cc_json: JSON.stringify(parsed.cc),
    subject: parsed.subject,
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date.getTime() : null,
    message_id_header: parsed.messageId,
    in_reply_to: parsed.inReplyTo,
    references_json: JSON.stringify(parsed.references),
    text_body: parsed.text,
    html_body: parsed.html,
    headers_json: JSON.stringify(parsed.headers),
    // inline parts (drawn by the HTML through cid: URLs) are not attachments to a reader (src/mail/inline.ts)
    attachment_count: attachmentCountOf(parsed.attachments, parsed.html),
    otp: extraction.otp,
    primary_link: extraction.primaryLink,
    extraction_json: JSON.stringify(extraction),
  };
  return {
    content,
    threadFields: threadFieldsOf(content),
    searchDoc: searchDoc(
      content,
      parsed.attachments.map((x) => x.filename),
    ),
    attachments: parsed.attachments,
    rawSha256: a.rawSha256,
    attachmentSha256: a.attachmentSha256,
    parseError: a.parseError,
  };
}

export function sha256(bytes: Uint8Array): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

export const EMPTY_PARSE: Readonly<ParsedMessage> = Object.freeze({
  messageId: null,
  subject: '',
  from: null,
  to: [],
  cc: [],
  replyTo: [],
  date: null,
  inReplyTo: null,
  references: [],
  headers: [],
  text: null,
  html: null,
  attachments: [],
});

export async function analyze(raw: Buffer, trustedHosts: string[]): Promise<Analysis> {
  let parsed: ParsedMessage;
  let parseError: string | null = null;
  try {
    parsed = await parseMessage(raw);
  } catch (e) {
    // A mail sink keeps what it was given: unparseable mail is stored raw, with empty parsed fields.
    parseError = (e as Error).message;
    parsed = { ...EMPTY_PARSE, to: [], cc: [], replyTo: [], references: [], headers: [], attachments: [] };
  }
  return analyzeParsed(raw, parsed, parseError, trustedHosts);
}

/** The rest of the analysis for a message whose parse is known (also the fallback after a worker gave up on it). */
export function analyzeParsed(raw: Buffer, parsed: ParsedMessage, parseError: string | null, trustedHosts: string[]): Analysis {
  return {
    parsed,
    extraction: extractVerification(parsed, { trustedHosts }),
    rawSha256: sha256(raw),
    attachmentSha256: parsed.attachments.map((a) => sha256(a.content)),
    parseError,
  };
}
