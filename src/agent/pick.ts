// Which message verify considers (CONTRACT §4): the newest matching one that has a code or a link, each read once
// per wake-up however many calls want it; and the per-inbox mark of the message verify last handed out.
import type { WaitFilter } from '../inboxes/wait.ts';
import { matches } from '../inboxes/wait.ts';
import { extractVerification, type Extraction } from '../mail/extract/index.ts';
import type { PresetId } from '../mail/presets.ts';
import type { ParsedMessage } from '../mail/types.ts';
import type { Services } from '../services.ts';
import { type MessageRow, SUMMARY_COLUMNS } from '../store/messages.ts';

/** The stored parse of a message, enough to extract again (e.g. with a service preset) without the raw bytes. */
export function parsedFromRow(m: MessageRow): ParsedMessage {
  return {
    messageId: m.message_id_header,
    subject: m.subject,
    from: m.from_address === null ? null : { name: m.from_name ?? '', address: m.from_address },
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

/** How many codeless messages are re-extracted with the service preset (full row read) per look. */
const FULL_LOOKS = 25;
const SCAN_LIMIT = 500;

/** A message as verify considers it: the row without its bodies, and its extraction (with the service preset). */
export interface Considered {
  row: MessageRow;
  x: Extraction;
}

const LIGHT_COLUMNS = [...SUMMARY_COLUMNS, 'extraction_json'] as const;

/**
 * Reads and extracts one message for verify, once for all the calls that want it at about the same time (a
 * hundred verify waiters woken by one large message read it once); bodies are read only to re-extract with a preset.
 */
function consider(s: Services, inboxId: string, id: string, service: PresetId | undefined, full: boolean): Promise<Considered | null> {
  const key = `verify:${inboxId}:${id}:${full ? (service ?? '') : ''}`;
  return s.waits.shared<Considered | null>(key, async () => {
    if (full && service) {
      const row = await s.messages.get(inboxId, id);
      if (!row) return null;
      // Re-extraction with the preset runs in the ingest workers, not on the main thread.
      const x = await s.ingest.extract(
        parsedFromRow(row),
        service,
        [new URL(s.baseUrl()).hostname],
        JSON.parse(row.extraction_json) as Extraction,
      );
      return { row: { ...row, text_body: null, html_body: null, headers_json: '[]' }, x };
    }
    const light = await s.store.db
      .selectFrom('messages')
      .select(LIGHT_COLUMNS)
      .where('id', '=', id)
      .where('inbox_id', '=', inboxId)
      .executeTakeFirst();
    if (!light) return null;
    const row: MessageRow = { ...light, text_body: null, html_body: null, headers_json: '[]' };
    return { row, x: JSON.parse(light.extraction_json) as Extraction };
  });
}

/**
 * Among the messages matching `filter`, the newest with a code or link (`usable`), else the newest without
 * (`newestPlain`); `newestSeen` is the highest sequence looked at, so a later look starts after it.
 */
export async function pickUsable(
  s: Services,
  inboxId: string,
  filter: WaitFilter,
  service: PresetId | undefined,
): Promise<{ usable: Considered | null; newestPlain: Considered | null; newestSeen: number | null }> {
  const rows = (await s.messages.after(inboxId, filter.since ?? {}, SCAN_LIMIT)).filter((m) => matches(m, filter));
  let newestPlain: Considered | null = null;
  let looks = 0;
  for (const m of rows) {
    const stored = m.otp !== null || m.primary_link !== null;
    // With a preset, a message is re-extracted (its code shape may differ from the generic guess), up to a bound.
    const full = service !== undefined && (stored || looks++ < FULL_LOOKS);
    if (!stored && !full) {
      if (!newestPlain) newestPlain = await consider(s, inboxId, m.id, service, false);
      continue;
    }
    const c = await consider(s, inboxId, m.id, service, full);
    if (!c) continue;
    if (c.x.otp || c.x.primaryLink) return { usable: c, newestPlain, newestSeen: rows[0]!.seq };
    if (!newestPlain) newestPlain = c;
  }
  return { usable: null, newestPlain, newestSeen: rows[0]?.seq ?? null };
}

export async function markOf(s: Services, inboxId: string): Promise<WaitFilter['since']> {
  const r = await s.store.db.selectFrom('verify_marks').select('seq').where('inbox_id', '=', inboxId).executeTakeFirst();
  return r ? { seq: r.seq } : undefined;
}

export async function setMark(s: Services, inboxId: string, m: MessageRow): Promise<void> {
  const row = { inbox_id: inboxId, message_id: m.id, seq: m.seq, updated_at: s.clock.now() };
  await s.writer.run(async () => {
    // The inbox may be gone meanwhile (deleted by another call); then there is nothing to remember.
    const exists = await s.store.db.selectFrom('inboxes').select('id').where('id', '=', inboxId).executeTakeFirst();
    if (!exists) return;
    await s.store.db
      .insertInto('verify_marks')
      .values(row)
      .onConflict((oc) => oc.column('inbox_id').doUpdateSet({ message_id: row.message_id, seq: row.seq, updated_at: row.updated_at }))
      .execute();
  });
}
