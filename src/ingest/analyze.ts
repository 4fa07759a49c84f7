// Everything ingest learns from the raw bytes before it stores them: the parsed message, the extracted verification
// code and link, and the content hashes of the raw message and its attachments. Pure CPU work with no I/O, so it can
// run on the main thread or in a worker thread (src/ingest/analyze-worker.ts) with the same result.
import crypto from 'node:crypto';
import { extractVerification } from '../mail/extract/index.ts';
import { parseMessage } from '../mail/parse.ts';
import type { ParsedMessage } from '../mail/types.ts';

export interface Analysis {
  parsed: ParsedMessage;
  extraction: ReturnType<typeof extractVerification>;
  rawSha256: string;
  /** sha256 of each attachment's content, in the order of parsed.attachments. */
  attachmentSha256: string[];
  /** Set when the message could not be parsed and is stored raw with empty parsed fields. */
  parseError: string | null;
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
