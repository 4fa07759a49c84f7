// Which message verify considers (CONTRACT §4): the newest matching one that has a code or a link, each read once
// per wake-up however many calls want it; and the per-inbox mark of the message verify last handed out.

import { type MailWaits, matches, type WaitFilter } from '../inboxes/wait.ts';
import type { Ingest } from '../ingest/ingest.ts';
import type { IngestWriter } from '../ingest/writer.ts';
import type { Extraction } from '../mail/extract/index.ts';
import type { PresetId } from '../mail/presets.ts';
import type { MessageRepo, MessageRow } from '../store/messages.ts';
import { parsedFromRow } from './extraction.ts';
import type { VerifyMark, VerifyRepo } from './repo.ts';
import type { HandedOut } from './verify.ts';

/** How many codeless messages are re-extracted with the service preset (full row read) per look. */
const FULL_LOOKS = 25;
const SCAN_LIMIT = 500;

/** A message as verify considers it: the row without its bodies, and its extraction (with the service preset). */
export interface Considered {
  row: MessageRow;
  x: Extraction;
}

export interface Picked {
  /** The newest matching message with a code or link. */
  usable: Considered | null;
  /** The newest matching message without either (the `received` answer when nothing better comes). */
  newestPlain: Considered | null;
  /** The highest sequence looked at, so a later look starts after it. */
  newestSeen: number | null;
}

export class MessagePicker {
  private readonly messages: MessageRepo;
  private readonly repo: VerifyRepo;
  private readonly ingest: Pick<Ingest, 'extract'>;
  private readonly writer: Pick<IngestWriter, 'run'>;
  private readonly waits: Pick<MailWaits, 'shared'>;
  private readonly trustedHost: () => string;
  private readonly now: () => number;

  constructor(d: {
    messages: MessageRepo;
    repo: VerifyRepo;
    ingest: Pick<Ingest, 'extract'>;
    writer: Pick<IngestWriter, 'run'>;
    /** The once-per-wake-up cache shared by the waits. */
    waits: Pick<MailWaits, 'shared'>;
    /** inboxd's own host: its links are trusted even on localhost. */
    trustedHost: () => string;
    now: () => number;
  }) {
    this.messages = d.messages;
    this.repo = d.repo;
    this.ingest = d.ingest;
    this.writer = d.writer;
    this.waits = d.waits;
    this.trustedHost = d.trustedHost;
    this.now = d.now;
  }

  /** Among the messages matching `filter`, the newest with a code or link, else the newest without. */
  async pickUsable(inboxId: string, filter: WaitFilter, service: PresetId | undefined): Promise<Picked> {
    const rows = (await this.messages.after(inboxId, filter.since ?? {}, SCAN_LIMIT)).filter((m) => matches(m, filter));
    let newestPlain: Considered | null = null;
    let looks = 0;
    for (const m of rows) {
      const stored = m.otp !== null || m.primary_link !== null;
      // With a preset, a message is re-extracted (its code shape may differ from the generic guess), up to a bound.
      const full = service !== undefined && (stored || looks++ < FULL_LOOKS);
      if (!stored && !full) {
        if (!newestPlain) newestPlain = await this.consider(inboxId, m.id, service, false);
        continue;
      }
      const c = await this.consider(inboxId, m.id, service, full);
      if (!c) continue;
      if (c.x.otp || c.x.primaryLink) return { usable: c, newestPlain, newestSeen: rows[0]!.seq };
      if (!newestPlain) newestPlain = c;
    }
    return { usable: null, newestPlain, newestSeen: rows[0]?.seq ?? null };
  }

  /** The message verify last handed out on this inbox, if any. */
  mark(inboxId: string): Promise<VerifyMark | undefined> {
    return this.repo.mark(inboxId);
  }

  /**
   * What a later verify tells its caller about the message handed out before (`mark`), when that message matches the
   * caller's filter and is still there: it did arrive, and `since` gets it again.
   */
  async handedOut(inboxId: string, mark: VerifyMark, filter: WaitFilter): Promise<HandedOut | undefined> {
    const row = await this.repo.light(inboxId, mark.messageId);
    if (!row || !matches(row, { ...filter, since: undefined })) return undefined;
    return {
      messageId: row.id,
      subject: row.subject,
      receivedAt: new Date(row.received_at).toISOString(),
      handedOutAt: new Date(mark.at).toISOString(),
      since: new Date(row.received_at - 1).toISOString(),
    };
  }

  async setMark(inboxId: string, m: MessageRow): Promise<void> {
    const now = this.now();
    await this.writer.run(() => this.repo.setMark(inboxId, m, now));
  }

  /**
   * Reads and extracts one message for verify, once for all the calls that want it at about the same time (a
   * hundred verify waiters woken by one large message read it once); bodies are read only to re-extract with a preset.
   */
  private consider(inboxId: string, id: string, service: PresetId | undefined, full: boolean): Promise<Considered | null> {
    const key = `verify:${inboxId}:${id}:${full ? (service ?? '') : ''}`;
    return this.waits.shared<Considered | null>(key, async () => {
      if (full && service) {
        const row = await this.messages.get(inboxId, id);
        if (!row) return null;
        // Re-extraction with the preset runs in the ingest workers, not on the main thread.
        const x = await this.ingest.extract(
          parsedFromRow(row),
          service,
          [this.trustedHost()],
          JSON.parse(row.extraction_json) as Extraction,
        );
        return { row: { ...row, text_body: null, html_body: null, headers_json: '[]' }, x };
      }
      const row = await this.repo.light(inboxId, id);
      if (!row) return null;
      return { row, x: JSON.parse(row.extraction_json) as Extraction };
    });
  }
}
