// The calendar capability (CONTRACT §15) as one service: which calendars a request reads (the local calendar always;
// the team's connected accounts for unscoped keys), reading them together (gather.ts), the scheduling answers over
// them (free time, conflicts, suggestions, a day's agenda), accounts (connect.ts) and events created under the
// workspace policy (execute.ts). A scoped key sees only the invitations of its labels' inboxes: remote calendars are a
// person's whole calendar, so they are not offered to keys limited to some inboxes. Built once by the composition
// root with narrow dependencies.
import type { Kysely } from 'kysely';
import type { Principal } from '../../auth/principal.ts';
import type { Sandbox } from '../../budget/sandbox.ts';
import type { ServedDomains } from '../../domains/served.ts';
import { AppError } from '../../errors.ts';
import type { Sealer } from '../../lib/sealed.ts';
import type { BlobStore } from '../../store/blobs.ts';
import type { Database } from '../../store/schema.ts';
import type { WorkspaceService } from '../../workspace/service.ts';
import { notConnected, type ProviderAccountRow, type ProviderAccounts } from '../accounts.ts';
import { CaldavCalendar, type CaldavConfig, type CaldavSecret } from './caldav.ts';
import { type Connected, type ConnectRequest, connectRequest } from './connect.ts';
import { type EventRequest, type EventResult, executeCalendarEvent } from './execute.ts';
import { type Expander, sandboxExpander } from './expand.ts';
import { type Gathered, type GatheredBusy, gatherBusy, gatherEvents, type MarkAccount, type ReadQuery } from './gather.ts';
import { GoogleCalendar, type GoogleConfig, type GoogleSecret } from './google.ts';
import { LocalCalendar } from './local.ts';
import { calDb } from './local-store.ts';
import { type Candidate, type Interval, merge, overlaps, subtract, suggest, type WorkingHours, workingWindows } from './schedule.ts';
import type { CalendarProvider } from './types.ts';
import { atMinutes, dateInZone, minutesOf, nextDate, startOfDate } from './tz.ts';

/** The --calendar-* limits of reads, and where the Google APIs are. */
export interface CalendarSettings {
  readBudgetMs: number;
  maxInstances: number;
  maxEventInstances: number;
  maxRuleSteps: number;
  googleCalendarApiBase: string;
  googleTokenUrl: string;
}

export interface CalendarDeps {
  db: Kysely<Database>;
  blobs: BlobStore;
  sandbox: Sandbox;
  now: () => number;
  providers: ProviderAccounts;
  /** Whether secrets can be sealed (INBOXD_SECRET_KEY set), so accounts can be connected. */
  sealer: Pick<Sealer, 'enabled'>;
  served: Pick<ServedDomains, 'isServed'>;
  /** The workspace's policy and action log, for events created under the policy. */
  workspace: Pick<WorkspaceService, 'policy' | 'logAction'>;
  settings: CalendarSettings;
}

export interface LocalStatus {
  events: number;
  syncedTo: string | null;
  recentlySkipped: Array<{ inboxId: string | null; messageId: string; reason: string }>;
}

function remoteAllowed(p: Principal, named: boolean): boolean {
  if (p.scope.labelPrefix === null) return true;
  if (named)
    throw new AppError(
      'forbidden',
      `this key is scoped to labels starting with "${p.scope.labelPrefix}": it sees only the local calendar (invitations received by its inboxes), not connected calendar accounts`,
    );
  return false;
}

const complete = (sources: Array<{ ok: boolean }>) => sources.every((s) => s.ok);

export class CalendarService {
  private readonly d: CalendarDeps;
  private readonly mark: MarkAccount;

  constructor(d: CalendarDeps) {
    this.d = d;
    this.mark = (id, outcome) => d.providers.mark(id, outcome);
  }

  /** The local calendar and, for an unscoped key, the connected accounts; whether accounts can be connected. */
  async status(p: Principal): Promise<{ canConnect: boolean; local: LocalStatus; accounts: ProviderAccountRow[] }> {
    return { canConnect: this.d.sealer.enabled, local: await this.localStatus(p), accounts: await this.accounts(p) };
  }

  /** Connected calendar accounts (none for a scoped key). */
  async accounts(p: Principal): Promise<ProviderAccountRow[]> {
    return p.scope.labelPrefix === null ? this.d.providers.list(p.teamId, 'calendar') : [];
  }

  /** svc_calendar_list_accounts: the connected accounts (none for a scoped key) and the local calendar's status. */
  async listAccounts(p: Principal): Promise<{ accounts: ProviderAccountRow[]; local: LocalStatus }> {
    const accounts = await this.accounts(p);
    return { accounts, local: await this.localStatus(p) };
  }

  async localStatus(p: Principal): Promise<LocalStatus> {
    const st = await this.local(p).status();
    return { ...st, syncedTo: st.syncedTo === null ? null : new Date(st.syncedTo).toISOString() };
  }

  /** Logs in with the credentials and finds the calendars first; only a working account is stored. */
  connect(p: Principal, i: ConnectRequest): Promise<Connected> {
    const { providers, now, settings } = this.d;
    return connectRequest({ providers, now, google: { apiBase: settings.googleCalendarApiBase, tokenUrl: settings.googleTokenUrl } }, p, i);
  }

  /** Forgets the account and its stored credentials; nothing changes on the calendar server. */
  disconnect(p: Principal, id: string): Promise<void> {
    return this.d.providers.remove(p.teamId, 'calendar', id);
  }

  /** Events of every wanted calendar in the range, sorted by start. */
  async events(p: Principal, q: ReadQuery): Promise<Gathered> {
    return gatherEvents(await this.providersFor(p, q.accountIds), q, this.mark);
  }

  /** Busy blocks merged over every calendar (clipped to the range) and free slots of `minMs` inside working hours. */
  async availability(p: Principal, q: ReadQuery, wh: WorkingHours, minMs: number) {
    const b = await this.busy(p, q);
    const { range } = q;
    const busy = merge(b.busy).map((x) => ({ startMs: Math.max(x.startMs, range.startMs), endMs: Math.min(x.endMs, range.endMs) }));
    const free = subtract(workingWindows(range, q.timeZone, wh), busy, minMs);
    return { busy: busy.filter((x) => x.endMs > x.startMs), free, complete: complete(b.sources), sources: b.sources, warnings: b.warnings };
  }

  /** Busy events overlapping the range (back-to-back is not a conflict; free and cancelled events are ignored). */
  async conflicts(p: Principal, q: ReadQuery) {
    const g = await this.events(p, q);
    const hits = g.events.filter((e) => e.busy && e.status !== 'cancelled' && overlaps(e, q.range));
    return { conflicts: hits, complete: complete(g.sources), sources: g.sources, warnings: g.warnings };
  }

  /** Ranked slots free in every calendar read, inside working hours, with buffers around other meetings. */
  async suggestMeeting(
    p: Principal,
    q: ReadQuery,
    o: { wh: WorkingHours; durationMs: number; bufferBeforeMs: number; bufferAfterMs: number; count: number; stepMinutes: number },
  ): Promise<{ slots: Candidate[]; calendars: number; complete: boolean; sources: Gathered['sources']; warnings: string[] }> {
    const b = await this.busy(p, q);
    const slots = suggest({ range: q.range, tz: q.timeZone, busy: b.busy, calendars: b.calendars, now: this.d.now(), ...o });
    return { slots, calendars: b.calendars, complete: complete(b.sources), sources: b.sources, warnings: b.warnings };
  }

  /** A local day (today in the zone by default): its events in order and the free gaps inside working hours. */
  async agenda(
    p: Principal,
    q: {
      date?: string | undefined;
      timeZone: string;
      accountIds?: string[];
      calendarIds?: string[];
      workdayStart: string;
      workdayEnd: string;
    },
  ) {
    const date = q.date ?? dateInZone(this.d.now(), q.timeZone);
    const range: Interval = { startMs: startOfDate(date, q.timeZone), endMs: startOfDate(nextDate(date), q.timeZone) };
    const g = await this.events(p, { range, timeZone: q.timeZone, accountIds: q.accountIds, calendarIds: q.calendarIds });
    const work = {
      startMs: atMinutes(date, minutesOf(q.workdayStart), q.timeZone),
      endMs: atMinutes(date, minutesOf(q.workdayEnd), q.timeZone),
    };
    const busy = g.events.filter((e) => e.busy && e.status !== 'cancelled' && !e.allDay);
    return { date, range, events: g.events, gaps: subtract([work], busy, 60_000), sources: g.sources, warnings: g.warnings };
  }

  /** svc_workspace_execute_calendar_event: created, proposed or blocked under the workspace policy (execute.ts). */
  executeEvent(p: Principal, req: EventRequest): Promise<EventResult> {
    const { workspace, served, now } = this.d;
    return executeCalendarEvent({ workspace, served, now, target: (pr, accountId) => this.targetFor(pr, accountId) }, p, req);
  }

  private async busy(p: Principal, q: ReadQuery): Promise<GatheredBusy> {
    return gatherBusy(await this.providersFor(p, q.accountIds), q, this.mark);
  }

  /** Recurrence expansion for one team's reads: in the sandbox, under the --calendar-* limits and budget. */
  private expanderFor(teamId: string): Expander {
    const c = this.d.settings;
    return sandboxExpander({
      sandbox: this.d.sandbox,
      owner: teamId,
      budgetMs: c.readBudgetMs,
      limits: { maxInstances: c.maxInstances, maxEventInstances: c.maxEventInstances, maxRuleSteps: c.maxRuleSteps },
    });
  }

  private local(p: Principal): LocalCalendar {
    const d = this.d;
    return new LocalCalendar({
      db: calDb(d.db),
      blobs: d.blobs,
      now: d.now,
      teamId: p.teamId,
      scope: p.scope,
      sandbox: d.sandbox,
      expand: this.expanderFor(p.teamId),
      budgetMs: d.settings.readBudgetMs,
    });
  }

  private openAccount(row: ProviderAccountRow): CalendarProvider {
    const { providers, settings, now } = this.d;
    if (row.provider === 'caldav') {
      const a = providers.open<CaldavConfig, CaldavSecret>(row);
      return new CaldavCalendar(row.id, a.config, a.secret, { expand: this.expanderFor(row.team_id) });
    }
    if (row.provider === 'google') {
      const a = providers.open<GoogleConfig, GoogleSecret>(row);
      // The API base and token URL are settings: an account follows the server's current configuration.
      const config = { ...a.config, apiBase: settings.googleCalendarApiBase, tokenUrl: settings.googleTokenUrl };
      return new GoogleCalendar(row.id, config, a.secret, {
        now,
        onTokens: async (secret) => {
          await providers.save({
            teamId: row.team_id,
            kind: 'calendar',
            provider: 'google',
            address: row.address,
            label: row.label,
            config: a.config as unknown as Record<string, unknown>,
            secret: secret as unknown as Record<string, unknown>,
          });
        },
      });
    }
    throw new AppError('internal', `calendar account ${row.id} has an unknown provider ${row.provider}`);
  }

  /** The calendars a request reads: `accountIds` ('local' and/or pac_…), default the local one and every account. */
  private async providersFor(p: Principal, accountIds?: string[]): Promise<CalendarProvider[]> {
    const named = accountIds !== undefined && accountIds.length > 0;
    const wanted = new Set(accountIds ?? []);
    const out: CalendarProvider[] = [];
    if (!named || wanted.has('local')) out.push(this.local(p));
    wanted.delete('local');
    if (!remoteAllowed(p, wanted.size > 0)) return out;
    if (named) {
      for (const id of wanted) out.push(this.openAccount(await this.namedAccount(p, id, `reading calendar account ${id}`)));
    } else {
      for (const row of await this.d.providers.list(p.teamId, 'calendar')) out.push(this.openAccount(row));
    }
    return out;
  }

  /** The provider an event is created in: the named account, else the only one, else the local calendar. */
  private async targetFor(p: Principal, accountId?: string): Promise<CalendarProvider> {
    if (accountId === 'local') return this.local(p);
    if (accountId) {
      remoteAllowed(p, true);
      return this.openAccount(await this.namedAccount(p, accountId, `creating an event in calendar account ${accountId}`));
    }
    const row = p.scope.labelPrefix === null ? await this.d.providers.pick(p.teamId, 'calendar') : null;
    return row ? this.openAccount(row) : this.local(p);
  }

  /** A named remote account: not_configured when the team has no calendar account at all, 404 for a wrong id. */
  private async namedAccount(p: Principal, id: string, what: string): Promise<ProviderAccountRow> {
    if ((await this.d.providers.list(p.teamId, 'calendar')).length === 0) throw notConnected('calendar', what);
    return this.d.providers.get(p.teamId, 'calendar', id);
  }
}
