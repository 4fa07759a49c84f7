// What the built-in engine is handed of a message (kept apart from the engine: src/ai/service.ts needs only this at
// start, and the engine's vocabularies load with the first extraction).
import type { ParsedMessage } from '../../mail/types.ts';

/** XML attachments up to this size are handed to the engine with their bytes (e-invoices). */
export const MAX_XML_BYTES = 2 * 1024 * 1024;

/** What the built-in engine needs of a message, to hand to the sandbox: only XML attachments carry their bytes. */
export function builtinInput(msg: ParsedMessage): ParsedMessage {
  const xml = (a: ParsedMessage['attachments'][number]) =>
    (/xml/i.test(a.contentType) || /\.xml$/i.test(a.filename ?? '')) && a.content.length <= MAX_XML_BYTES;
  return { ...msg, attachments: msg.attachments.filter(xml) };
}
