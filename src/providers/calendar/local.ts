// The local calendar (CONTRACT §15): zero configuration, fed by the iCalendar invitations that arrive in the team's
// inboxes. Nothing is added to ingest: at query time a sync pass reads the calendar parts (text/calendar bodies,
// .ics files) of mail received since the team's cursor. Every part is claimed in `calendar_seen` before it is read,
// so several instances syncing at once read each part once; the cursor looks back a few minutes because mail
// committed late (a slow SMTP transaction) can carry an earlier received_at than mail already synced.
// The sender controls the cost of reading an invitation and of expanding its rules: both run in the sandbox
// (src/budget/), and an invitation's VTIMEZONEs are stored once (calendar_local_zones), not once per event.
import { sql } from 'kysely';
import type { Scope } from '../../auth/principal.ts';
import { BudgetError, type Sandbox } from '../../budget/sandbox.ts';
import { randomBase62 } from '../../lib/ids.ts';
import type { BlobStore } from '../../store/blobs.ts';
import { BUDGET_HINT, type Expander } from './expand.ts';
import { buildEvent } from './ics.ts';
import { applyPart, Conflict, type Writer, zonesOf } from './local-apply.ts';
import type { CalDb, LocalEventRow } from './local-store.ts';
import type { CalendarInfo, CalendarProvider, Created, Listed, ListOptions, NewEvent, Occurrence, Range } from './types.ts';

const LOOKBACK_MS = 10 * 60_000;
const BATCH = 200;
/** A part still `reading` after this long belongs to an instance that stopped: it is read again. */
const STALE_CLAIM_MS = 5 * 60_000;
/** Larger calendar parts are skipped with a reason: an invitation is a few KB. */
const MAX_PART = 1024 * 1024;

export interface Skipped {
  inboxId: string | null;
  messageId: string;
  reason: string;
}

export interface SyncResult {
  read: number;
  skipped: Skipped[];
  /** The sandbox was busy: some parts were left for a later read. */
  deferred: boolean;
}

const inScope = (scope: Scope) => (label: string | null) => scope.labelPrefix === null || label?.startsWith(scope.labelPrefix) === true;

export class LocalCalendar implements CalendarProvider {
  readonly accountId = 'local';
  readonly provider = 'local' as const;
  private readonly db: CalDb;
  private readonly blobs: BlobStore;
  private readonly now: () => number;
  private readonly teamId: string;
  private readonly scope: Scope;

  private readonly sandbox: Sandbox;
  private readonly expand: Expander;
  private readonly budgetMs: number;

  constructor(d: {
    db: CalDb;
    blobs: BlobStore;
    now: () => number;
    teamId: string;
    scope: Scope;
    sandbox: Sandbox;
    expand: Expander;
    budgetMs: number;
  }) {
    this.db = d.db;
    this.blobs = d.blobs;
    this.now = d.now;
    this.teamId = d.teamId;
    this.scope = d.scope;
    this.sandbox = d.sandbox;
    this.expand = d.expand;
    this.budgetMs = d.budgetMs;
  }

  async listCalendars(): Promise<CalendarInfo[]> {
    return [{ id: 'local', name: 'Invitations received in inboxd (and events created here)', primary: true }];
  }

  /** Reads the calendar parts of mail received since the cursor; what this key may see of the skipped ones is returned. */
  async sync(): Promise<SyncResult> {
    const db = this.db;
    const cur = await db.selectFrom('calendar_sync').select('cursor_at').where('team_id', '=', this.teamId).executeTakeFirst();
    let since = Math.max(0, (cur?.cursor_at ?? 0) - LOOKBACK_MS);
    // A part claimed by an instance that died while reading it is released, and the scan reaches back to it.
    const stale = await db
      .selectFrom('calendar_seen as s')
      .innerJoin('message_rows as mr', 'mr.id', 's.message_id')
      .select(['s.message_id', 's.idx', 'mr.received_at'])
      .where('s.team_id', '=', this.teamId)
      .where('s.outcome', '=', 'reading')
      .where('s.at', '<', this.now() - STALE_CLAIM_MS)
      .execute();
    for (const x of stale) {
      await db
        .deleteFrom('calendar_seen')
        .where('team_id', '=', this.teamId)
        .where('message_id', '=', x.message_id)
        .where('idx', '=', x.idx)
        .where('outcome', '=', 'reading')
        .execute();
      since = Math.min(since, x.received_at);
    }
    const visible = inScope(this.scope);
    const out: SyncResult = { read: 0, skipped: [], deferred: false };
    let maxAt = cur?.cursor_at ?? 0;
    while (!out.deferred) {
      const parts = await db
        .selectFrom('message_rows as mr')
        .innerJoin('inboxes as i', 'i.id', 'mr.inbox_id')
        .innerJoin('content_attachments as ca', 'ca.content_sha256', 'mr.content_sha256')
        .select(['mr.id as messageId', 'mr.inbox_id as inboxId', 'mr.received_at as at', 'i.label', 'ca.idx', 'ca.sha256', 'ca.size'])
        .where('i.team_id', '=', this.teamId)
        .where('mr.received_at', '>=', since)
        .where('mr.direction', '=', 'inbound')
        .where((eb) =>
          eb.or([
            eb(sql`lower(ca.content_type)`, 'in', ['text/calendar', 'application/ics', 'text/x-vcalendar']),
            eb(sql`lower(ca.filename)`, 'like', '%.ics'),
          ]),
        )
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('calendar_seen as s')
                .select('s.idx')
                .whereRef('s.message_id', '=', 'mr.id')
                .whereRef('s.idx', '=', 'ca.idx')
                .where('s.team_id', '=', this.teamId),
            ),
          ),
        )
        .orderBy('mr.received_at')
        .orderBy('mr.id')
        .limit(BATCH)
        .execute();
      for (const p of parts) {
        const claimed = await db
          .insertInto('calendar_seen')
          .values({
            team_id: this.teamId,
            message_id: p.messageId,
            idx: p.idx,
            inbox_id: p.inboxId,
            scope_label: p.label,
            outcome: 'reading',
            reason: null,
            at: this.now(),
          })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) !== 1) continue; // another instance has it
        const r = await this.readPart(p);
        if (!r) {
          // The sandbox is busy: the part is released, and the cursor stays before it, for the next read.
          await db
            .deleteFrom('calendar_seen')
            .where('team_id', '=', this.teamId)
            .where('message_id', '=', p.messageId)
            .where('idx', '=', p.idx)
            .execute();
          out.deferred = true;
          break;
        }
        maxAt = Math.max(maxAt, p.at);
        out.read++;
        await db
          .updateTable('calendar_seen')
          .set({ outcome: r.outcome, reason: r.reason })
          .where('team_id', '=', this.teamId)
          .where('message_id', '=', p.messageId)
          .where('idx', '=', p.idx)
          .execute();
        if (r.reason && visible(p.label)) out.skipped.push({ inboxId: p.inboxId, messageId: p.messageId, reason: r.reason });
      }
      if (parts.length < BATCH) break;
    }
    if (maxAt > (cur?.cursor_at ?? 0) || !cur) {
      const now = this.now();
      await db
        .insertInto('calendar_sync')
        .values({ team_id: this.teamId, cursor_at: maxAt, updated_at: now })
        .onConflict((oc) =>
          oc.column('team_id').doUpdateSet({ cursor_at: maxAt, updated_at: now }).where('calendar_sync.cursor_at', '<', maxAt),
        )
        .execute();
    }
    return out;
  }

  private writer(): Writer {
    return { db: this.db, teamId: this.teamId, sandbox: this.sandbox, budgetMs: this.budgetMs, now: this.now };
  }

  private async readPart(p: {
    messageId: string;
    inboxId: string | null;
    label: string | null;
    sha256: string;
    size: number;
  }): Promise<{ outcome: string; reason: string | null } | null> {
    if (p.size > MAX_PART) return { outcome: 'skipped', reason: `calendar part of ${p.size} bytes is larger than ${MAX_PART}` };
    let text: string;
    try {
      text = (await this.blobs.get(p.sha256)).toString('utf8');
    } catch (e) {
      return { outcome: 'skipped', reason: `calendar part unreadable: ${(e as Error).message.slice(0, 200)}` };
    }
    const inboxKey = p.inboxId ?? '';
    for (let attempt = 0; ; attempt++) {
      try {
        return await applyPart(this.writer(), { text, messageId: p.messageId, inboxId: p.inboxId, label: p.label, inboxKey });
      } catch (e) {
        if (e instanceof Conflict && attempt < 3) continue;
        if (e instanceof Conflict)
          return { outcome: 'skipped', reason: 'the events of this part kept changing while it was read; send it again' };
        if (!(e instanceof BudgetError)) throw e;
        if (e.kind === 'busy' || e.kind === 'closed') return null;
        return { outcome: 'skipped', reason: `reading this invitation ${e.message}, over its budget; ${BUDGET_HINT}` };
      }
    }
  }

  async listEvents(range: Range, opts: ListOptions): Promise<Listed> {
    const synced = await this.sync();
    let q = this.db
      .selectFrom('calendar_local_events')
      .selectAll()
      .where('team_id', '=', this.teamId)
      .where('status', '!=', 'cancelled')
      .where('first_start', '<', range.endMs)
      .where((eb) => eb.or([eb('last_end', 'is', null), eb('last_end', '>', range.startMs)]));
    const prefix = this.scope.labelPrefix;
    if (prefix !== null) q = q.where('scope_label', '>=', prefix).where('scope_label', '<', `${prefix}\u{10FFFF}`);
    const rows = await q.orderBy('first_start').execute();
    const warnings = synced.skipped.map((s) => `skipped the calendar part of ${s.messageId} (inbox ${s.inboxId}): ${s.reason}`);
    if (synced.deferred) warnings.push('some invitations received lately are not read yet (the server is busy); ask again shortly');
    const byId = new Map<string, LocalEventRow>();
    for (const r of rows) {
      if (r.skip_reason)
        warnings.push(`skipped event ${r.uid} (${r.id}): ${r.skip_reason} (remembered: a new invitation for this UID replaces it)`);
      else byId.set(r.id, r);
    }
    const live = [...byId.values()];
    const x = await this.expand(
      live.map((r) => ({ eventId: r.id, ics: r.ics, zonesId: r.zones_id, uid: r.uid })),
      {
        zones: await zonesOf(
          this.db,
          this.teamId,
          live.flatMap((r) => (r.zones_id ? [r.zones_id] : [])),
        ),
        range,
        timeZone: opts.timeZone,
        calendarId: 'local',
      },
    );
    warnings.push(...x.warnings);
    // An event that cannot be expanded for any range is remembered, so the next read does not pay for it again.
    const now = this.now();
    for (const f of x.failed) {
      if (!f.permanent || !byId.has(f.eventId)) continue;
      await this.db
        .updateTable('calendar_local_events')
        .set({
          skip_reason: `${f.uid && f.uid !== byId.get(f.eventId)?.uid ? `${f.uid}: ` : ''}${f.reason}`.slice(0, 500),
          updated_at: now,
        })
        .where('id', '=', f.eventId)
        .where('updated_at', '=', byId.get(f.eventId)!.updated_at)
        .execute();
    }
    const seen = new Set<string>();
    const events: Occurrence[] = [];
    for (const e of x.events) {
      // The same invitation delivered to several of the team's inboxes is one meeting.
      const k = `${e.uid}\u0000${e.startMs}`;
      if (seen.has(k)) continue;
      seen.add(k);
      const r = byId.get(e.eventId);
      events.push({ ...e, inboxId: r?.inbox_id ?? null, messageId: r?.message_id ?? null });
    }
    return { events, warnings };
  }

  async createEvent(e: NewEvent): Promise<Created> {
    const now = this.now();
    const id = `cev_${randomBase62(20)}`;
    await this.db
      .insertInto('calendar_local_events')
      .values({
        id,
        team_id: this.teamId,
        inbox_key: '',
        inbox_id: null,
        scope_label: this.scope.labelPrefix,
        uid: e.uid,
        sequence: 0,
        status: 'confirmed',
        source: 'created',
        message_id: null,
        ics: buildEvent({ ...e, now }),
        zones_id: null,
        skip_reason: null,
        summary: e.title.slice(0, 500),
        first_start: e.startMs,
        last_end: e.endMs,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return { eventId: id, calendarId: 'local', url: null };
  }

  /** For svc_calendar_status: how many events this key sees, the cursor, and recent skipped parts. */
  async status(): Promise<{ events: number; syncedTo: number | null; recentlySkipped: Skipped[] }> {
    await this.sync();
    const prefix = this.scope.labelPrefix;
    let q = this.db
      .selectFrom('calendar_local_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', this.teamId)
      .where('status', '!=', 'cancelled');
    if (prefix !== null) q = q.where('scope_label', '>=', prefix).where('scope_label', '<', `${prefix}\u{10FFFF}`);
    const n = await q.executeTakeFirstOrThrow();
    const cur = await this.db.selectFrom('calendar_sync').select('cursor_at').where('team_id', '=', this.teamId).executeTakeFirst();
    const skipped = await this.db
      .selectFrom('calendar_seen')
      .select(['inbox_id', 'message_id', 'reason', 'scope_label'])
      .where('team_id', '=', this.teamId)
      .where('reason', 'is not', null)
      .orderBy('at', 'desc')
      .limit(100)
      .execute();
    // Events remembered as impossible to expand (src/providers/calendar/expand.ts) come first: every read skips them.
    let poisoned = this.db
      .selectFrom('calendar_local_events')
      .select(['inbox_id', 'message_id', 'uid', 'skip_reason'])
      .where('team_id', '=', this.teamId)
      .where('skip_reason', 'is not', null)
      .orderBy('updated_at', 'desc')
      .limit(20);
    if (prefix !== null) poisoned = poisoned.where('scope_label', '>=', prefix).where('scope_label', '<', `${prefix}\u{10FFFF}`);
    const remembered = (await poisoned.execute()).map((r) => ({
      inboxId: r.inbox_id,
      messageId: r.message_id ?? '',
      reason: `event ${r.uid} is skipped by every read: ${r.skip_reason}`,
    }));
    const visible = inScope(this.scope);
    return {
      events: Number(n.n),
      syncedTo: cur?.cursor_at ?? null,
      recentlySkipped: [
        ...remembered,
        ...skipped
          .filter((s) => visible(s.scope_label))
          .map((s) => ({ inboxId: s.inbox_id, messageId: s.message_id, reason: s.reason ?? '' })),
      ].slice(0, 20),
    };
  }
}
