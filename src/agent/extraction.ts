// A stored message as verify extracts it: the generic extraction stored at ingest, or (with a service preset) a
// new one from the stored parse, without the raw bytes. Pure: no I/O.

import { type Extraction, extractVerification } from '../mail/extract/index.ts';
import type { PresetId } from '../mail/presets.ts';
import { senderOf } from '../mail/summary.ts';
import type { ParsedMessage } from '../mail/types.ts';
import type { MessageRow } from '../store/messages.ts';

/** The stored parse of a message, enough to extract again (e.g. with a service preset) without the raw bytes. */
export function parsedFromRow(m: MessageRow): ParsedMessage {
  return {
    messageId: m.message_id_header,
    subject: m.subject,
    from: senderOf(m),
    to: JSON.parse(m.to_json) as ParsedMessage['to'],
    cc: JSON.parse(m.cc_json) as ParsedMessage['cc'],
    replyTo: [],
    date: m.date === null ? null : new Date(m.date),
    inReplyTo: m.in_reply_to,
    references: JSON.parse(m.references_json) as string[],
    headers: JSON.parse(m.headers_json) as Array<[string, string]>,
    text: m.text_body,
    html: m.html_body,
    attachments: [],
  };
}

export function extractionOf(m: MessageRow, service: PresetId | undefined, trustedHosts: readonly string[] = []): Extraction {
  if (!service) return JSON.parse(m.extraction_json) as Extraction;
  return extractVerification(parsedFromRow(m), { service, trustedHosts });
}
