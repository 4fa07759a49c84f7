// Reading several calendars together: events (or busy time) of every provider a request reads, sorted by start.
// An account that fails is reported in `sources` and `warnings` when it was read by default, and is the error when
// the caller named it; each account's status records whether its server answered.
import { isAppError } from '../../errors.ts';
import { GoogleCalendar } from './google.ts';
import type { CalendarProvider, Occurrence, Range } from './types.ts';

/** What a read covers: its range and zone, and the accounts and calendars it names (none: all). */
export interface ReadQuery {
  range: Range;
  timeZone: string;
  accountIds?: string[] | undefined;
  calendarIds?: string[] | undefined;
}

/** Records whether an account's server answered (ProviderAccounts.mark). */
export type MarkAccount = (accountId: string, status: { ok: true } | { ok: false; error: string }) => Promise<void>;

export interface Source {
  accountId: string;
  provider: string;
  ok: boolean;
  error: string | null;
}

export type SourcedEvent = Occurrence & { accountId: string; provider: string };

export interface Gathered {
  events: SourcedEvent[];
  warnings: string[];
  sources: Source[];
  /** Calendars read, for reasons such as "free in all 3 calendars". */
  calendars: number;
}

/**
 * Events of every wanted calendar in the range, sorted by start. An account that fails is reported in `sources`
 * and `warnings` when it was read by default, and is the error when the caller named it.
 */
export async function gatherEvents(providers: CalendarProvider[], q: ReadQuery, mark: MarkAccount): Promise<Gathered> {
  const named = q.accountIds !== undefined && q.accountIds.length > 0;
  const results = await Promise.allSettled(
    providers.map((pr) => pr.listEvents(q.range, { timeZone: q.timeZone, calendarIds: q.calendarIds })),
  );
  const out: Gathered = { events: [], warnings: [], sources: [], calendars: 0 };
  for (const [i, r] of results.entries()) {
    const pr = providers[i]!;
    if (r.status === 'fulfilled') {
      out.events.push(...r.value.events.map((e) => ({ ...e, accountId: pr.accountId, provider: pr.provider })));
      out.warnings.push(...r.value.warnings);
      out.sources.push({ accountId: pr.accountId, provider: pr.provider, ok: true, error: null });
      out.calendars += pr.provider === 'local' ? 1 : (await pr.listCalendars()).length;
      if (pr.accountId !== 'local') await mark(pr.accountId, { ok: true });
      continue;
    }
    const e = r.reason;
    if (named) throw e;
    const msg = isAppError(e) ? e.message : String((e as Error)?.message ?? e);
    out.sources.push({ accountId: pr.accountId, provider: pr.provider, ok: false, error: msg });
    out.warnings.push(`calendar account ${pr.accountId} (${pr.provider}) could not be read and is missing from this answer: ${msg}`);
    if (pr.accountId !== 'local') await mark(pr.accountId, { ok: false, error: msg });
  }
  out.events.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  return out;
}

export interface BusyBlock {
  startMs: number;
  endMs: number;
  title: string;
  calendar: string;
  accountId: string;
}

export interface GatheredBusy {
  busy: BusyBlock[];
  warnings: string[];
  sources: Source[];
  calendars: number;
}

/**
 * Busy time of every wanted calendar: from the events (busy, not cancelled), or for Google accounts from the
 * freeBusy endpoint, which also covers calendars shared as free/busy only.
 */
export async function gatherBusy(providers: CalendarProvider[], q: ReadQuery, mark: MarkAccount): Promise<GatheredBusy> {
  const named = q.accountIds !== undefined && q.accountIds.length > 0;
  const out = { busy: [] as BusyBlock[], warnings: [] as string[], sources: [] as Source[], calendars: 0 };
  const results = await Promise.allSettled(
    providers.map(async (pr): Promise<{ busy: BusyBlock[]; warnings: string[]; calendars: number }> => {
      if (pr instanceof GoogleCalendar) {
        const cals = (await pr.listCalendars()).filter((c) => !q.calendarIds?.length || q.calendarIds.includes(c.id));
        const fb = await pr.freeBusy(
          q.range,
          cals.map((c) => c.id),
        );
        return {
          busy: fb.busy.map((b) => ({ ...b, title: `busy in ${b.calendarId}`, calendar: b.calendarId, accountId: pr.accountId })),
          warnings: fb.warnings,
          calendars: cals.length,
        };
      }
      const l = await pr.listEvents(q.range, { timeZone: q.timeZone, calendarIds: q.calendarIds });
      const live = l.events.filter((e) => e.busy && e.status !== 'cancelled');
      return {
        busy: live.map((e) => ({ startMs: e.startMs, endMs: e.endMs, title: e.title, calendar: e.calendarId, accountId: pr.accountId })),
        warnings: l.warnings,
        calendars: pr.provider === 'local' ? 1 : (await pr.listCalendars()).length,
      };
    }),
  );
  for (const [i, r] of results.entries()) {
    const pr = providers[i]!;
    if (r.status === 'fulfilled') {
      out.busy.push(...r.value.busy);
      out.warnings.push(...r.value.warnings);
      out.calendars += r.value.calendars;
      out.sources.push({ accountId: pr.accountId, provider: pr.provider, ok: true, error: null });
      if (pr.accountId !== 'local') await mark(pr.accountId, { ok: true });
      continue;
    }
    if (named) throw r.reason;
    const msg = isAppError(r.reason) ? r.reason.message : String((r.reason as Error)?.message ?? r.reason);
    out.sources.push({ accountId: pr.accountId, provider: pr.provider, ok: false, error: msg });
    out.warnings.push(`calendar account ${pr.accountId} (${pr.provider}) could not be read and is missing from this answer: ${msg}`);
    if (pr.accountId !== 'local') await mark(pr.accountId, { ok: false, error: msg });
  }
  out.busy.sort((a, b) => a.startMs - b.startMs);
  return out;
}
