// Which calendars a request reads (the local calendar always; the team's connected accounts for unscoped keys),
// reading them together, and connecting accounts. A scoped key sees only the invitations of its labels' inboxes:
// remote calendars are a person's whole calendar, so they are not offered to keys limited to some inboxes.
import type { Principal } from '../../auth/principal.ts';
import { redacting } from '../redact.ts';
import { AppError, isAppError } from '../../errors.ts';
import type { Services } from '../../services.ts';
import { type AccountView, accountView, notConnected, type ProviderAccountRow } from '../accounts.ts';
import { type CaldavConfig, CaldavCalendar, type CaldavSecret } from './caldav.ts';
import { type Expander, sandboxExpander } from './expand.ts';
import { type GoogleConfig, GoogleCalendar, type GoogleSecret } from './google.ts';
import { LocalCalendar } from './local.ts';
import { calDb } from './local-store.ts';
import type { CalendarInfo, CalendarProvider, Occurrence, Range } from './types.ts';

/** Recurrence expansion for one team's reads: in the sandbox, under the --calendar-* limits and budget. */
function expanderFor(s: Services, teamId: string): Expander {
  const c = s.config;
  return sandboxExpander({
    sandbox: s.sandbox,
    owner: teamId,
    budgetMs: c.calendarReadBudgetMs,
    limits: { maxInstances: c.calendarMaxInstances, maxEventInstances: c.calendarMaxEventInstances, maxRuleSteps: c.calendarMaxRuleSteps },
  });
}

export function localCalendar(s: Services, p: Principal): LocalCalendar {
  return new LocalCalendar({
    db: calDb(s.store.db),
    blobs: s.blobs,
    now: () => s.clock.now(),
    teamId: p.teamId,
    scope: p.scope,
    sandbox: s.sandbox,
    expand: expanderFor(s, p.teamId),
    budgetMs: s.config.calendarReadBudgetMs,
  });
}

export function openAccount(s: Services, row: ProviderAccountRow): CalendarProvider {
  if (row.provider === 'caldav') {
    const a = s.providers.open<CaldavConfig, CaldavSecret>(row);
    return new CaldavCalendar(row.id, a.config, a.secret, { expand: expanderFor(s, row.team_id) });
  }
  if (row.provider === 'google') {
    const a = s.providers.open<GoogleConfig, GoogleSecret>(row);
    // The API base and token URL are settings: an account follows the server's current configuration.
    const config = { ...a.config, apiBase: s.config.googleCalendarApiBase, tokenUrl: s.config.googleTokenUrl };
    return new GoogleCalendar(row.id, config, a.secret, {
      now: () => s.clock.now(),
      onTokens: async (secret) => {
        await s.providers.save({
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

function remoteAllowed(p: Principal, named: boolean): boolean {
  if (p.scope.labelPrefix === null) return true;
  if (named)
    throw new AppError(
      'forbidden',
      `this key is scoped to labels starting with "${p.scope.labelPrefix}": it sees only the local calendar (invitations received by its inboxes), not connected calendar accounts`,
    );
  return false;
}

export interface Source {
  accountId: string;
  provider: string;
  ok: boolean;
  error: string | null;
}

/** The calendars a request reads: `accountIds` ('local' and/or pac_…), default the local one and every account. */
export async function providersFor(s: Services, p: Principal, accountIds?: string[]): Promise<CalendarProvider[]> {
  const named = accountIds !== undefined && accountIds.length > 0;
  const wanted = new Set(accountIds ?? []);
  const out: CalendarProvider[] = [];
  if (!named || wanted.has('local')) out.push(localCalendar(s, p));
  wanted.delete('local');
  if (!remoteAllowed(p, wanted.size > 0)) return out;
  if (named) {
    for (const id of wanted) out.push(openAccount(s, await namedAccount(s, p, id, `reading calendar account ${id}`)));
  } else {
    for (const row of await s.providers.list(p.teamId, 'calendar')) out.push(openAccount(s, row));
  }
  return out;
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
export async function gather(
  s: Services,
  p: Principal,
  q: { range: Range; timeZone: string; accountIds?: string[] | undefined; calendarIds?: string[] | undefined },
): Promise<Gathered> {
  const named = q.accountIds !== undefined && q.accountIds.length > 0;
  const providers = await providersFor(s, p, q.accountIds);
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
      if (pr.accountId !== 'local') await s.providers.mark(pr.accountId, { ok: true });
      continue;
    }
    const e = r.reason;
    if (named) throw e;
    const msg = isAppError(e) ? e.message : String((e as Error)?.message ?? e);
    out.sources.push({ accountId: pr.accountId, provider: pr.provider, ok: false, error: msg });
    out.warnings.push(`calendar account ${pr.accountId} (${pr.provider}) could not be read and is missing from this answer: ${msg}`);
    if (pr.accountId !== 'local') await s.providers.mark(pr.accountId, { ok: false, error: msg });
  }
  out.events.sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  return out;
}

export type ConnectInput =
  | {
      provider: 'caldav';
      serverUrl: string;
      username: string;
      password: string;
      calendarUrl?: string | undefined;
      label?: string | undefined;
    }
  | {
      provider: 'google';
      refreshToken: string;
      clientId: string;
      clientSecret: string;
      accessToken?: string | undefined;
      calendarId?: string | undefined;
      label?: string | undefined;
    };

/** Logs in with the credentials and finds the calendars FIRST; only a working account is stored. */
export function connect(s: Services, p: Principal, input: ConnectInput): Promise<{ account: AccountView; calendars: CalendarInfo[] }> {
  // A server's refusal is quoted in the answer; whatever of the credentials it echoes is cut out.
  const i = input as { password?: string; refreshToken?: string; clientSecret?: string; accessToken?: string | null };
  return redacting([i.password, i.refreshToken, i.clientSecret, i.accessToken], () => connectChecked(s, p, input));
}

async function connectChecked(
  s: Services,
  p: Principal,
  input: ConnectInput,
): Promise<{ account: AccountView; calendars: CalendarInfo[] }> {
  s.providers.requireSealing('calendar');
  if (input.provider === 'caldav') {
    const config: CaldavConfig = { serverUrl: input.serverUrl, calendarUrl: input.calendarUrl ?? null };
    const secret: CaldavSecret = { username: input.username, password: input.password };
    const calendars = await new CaldavCalendar('new', config, secret).listCalendars();
    if (calendars.length === 0)
      throw new AppError(
        'validation_failed',
        `logged in to ${input.serverUrl} as ${input.username}, but the account has no calendar for events: create one on the server, then connect again`,
      );
    if (input.calendarUrl && !calendars.some((c) => c.id === input.calendarUrl))
      throw new AppError('validation_failed', `calendarUrl ${input.calendarUrl} is not one of: ${calendars.map((c) => c.id).join(', ')}`, {
        errors: [{ path: 'calendarUrl', message: 'not a calendar of this account' }],
      });
    const u = new URL(input.serverUrl);
    const row = await s.providers.save({
      teamId: p.teamId,
      kind: 'calendar',
      provider: 'caldav',
      address: `caldav://${encodeURIComponent(input.username)}@${u.host}${u.pathname}`,
      label: input.label ?? null,
      config: config as unknown as Record<string, unknown>,
      secret: secret as unknown as Record<string, unknown>,
    });
    return { account: accountView(row), calendars };
  }
  const config: GoogleConfig = {
    apiBase: s.config.googleCalendarApiBase,
    tokenUrl: s.config.googleTokenUrl,
    calendarId: input.calendarId ?? null,
  };
  let secret: GoogleSecret = {
    refreshToken: input.refreshToken,
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    accessToken: input.accessToken ?? null,
    expiresAt: null,
  };
  const g = new GoogleCalendar('new', config, secret, {
    now: () => s.clock.now(),
    onTokens: async (t) => {
      secret = t;
    },
  });
  const calendars = await g.listCalendars();
  const primary = calendars.find((c) => c.primary) ?? calendars[0];
  if (!primary) throw new AppError('validation_failed', 'the Google account has no calendar');
  const row = await s.providers.save({
    teamId: p.teamId,
    kind: 'calendar',
    provider: 'google',
    address: primary.id,
    label: input.label ?? null,
    config: { calendarId: config.calendarId },
    secret: secret as unknown as Record<string, unknown>,
  });
  return { account: accountView(row), calendars };
}

/** The provider an event is created in: the named account, else the only one, else the local calendar. */
export async function targetFor(s: Services, p: Principal, accountId?: string): Promise<CalendarProvider> {
  if (accountId === 'local') return localCalendar(s, p);
  if (accountId) {
    remoteAllowed(p, true);
    return openAccount(s, await namedAccount(s, p, accountId, `creating an event in calendar account ${accountId}`));
  }
  const row = p.scope.labelPrefix === null ? await s.providers.pick(p.teamId, 'calendar') : null;
  return row ? openAccount(s, row) : localCalendar(s, p);
}

/** A named remote account: not_configured when the team has no calendar account at all, 404 for a wrong id. */
async function namedAccount(s: Services, p: Principal, id: string, what: string): Promise<ProviderAccountRow> {
  if ((await s.providers.list(p.teamId, 'calendar')).length === 0) throw notConnected('calendar', what);
  return s.providers.get(p.teamId, 'calendar', id);
}

export interface BusyBlock {
  startMs: number;
  endMs: number;
  title: string;
  calendar: string;
  accountId: string;
}

/**
 * Busy time of every wanted calendar: from the events (busy, not cancelled), or for Google accounts from the
 * freeBusy endpoint, which also covers calendars shared as free/busy only.
 */
export async function gatherBusy(
  s: Services,
  p: Principal,
  q: { range: Range; timeZone: string; accountIds?: string[] | undefined; calendarIds?: string[] | undefined },
): Promise<{ busy: BusyBlock[]; warnings: string[]; sources: Source[]; calendars: number }> {
  const named = q.accountIds !== undefined && q.accountIds.length > 0;
  const providers = await providersFor(s, p, q.accountIds);
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
      if (pr.accountId !== 'local') await s.providers.mark(pr.accountId, { ok: true });
      continue;
    }
    if (named) throw r.reason;
    const msg = isAppError(r.reason) ? r.reason.message : String((r.reason as Error)?.message ?? r.reason);
    out.sources.push({ accountId: pr.accountId, provider: pr.provider, ok: false, error: msg });
    out.warnings.push(`calendar account ${pr.accountId} (${pr.provider}) could not be read and is missing from this answer: ${msg}`);
    if (pr.accountId !== 'local') await s.providers.mark(pr.accountId, { ok: false, error: msg });
  }
  out.busy.sort((a, b) => a.startMs - b.startMs);
  return out;
}
