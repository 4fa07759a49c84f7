// The Google Calendar REST API (v3) with plain fetch against a configurable base URL, so an on-prem compatible server
// or a local fake stands in. OAuth: the access token is refreshed through the token endpoint when it is missing,
// expired or answered 401, and the new one is handed to `onTokens` to be sealed and stored. Recurring events are
// expanded by the server (singleEvents=true).

import { AppError } from '../../errors.ts';
import { redact } from '../redact.ts';
import type { CalendarInfo, CalendarProvider, Created, Listed, ListOptions, NewEvent, Occurrence, Range } from './types.ts';
import { startOfDate } from './tz.ts';

export interface GoogleConfig {
  apiBase: string;
  tokenUrl: string;
  /** The calendar new events go to (default "primary"). */
  calendarId?: string | null;
}
export interface GoogleSecret {
  refreshToken: string;
  clientId: string;
  clientSecret: string;
  accessToken?: string | null;
  /** Epoch ms after which the access token is refreshed first. */
  expiresAt?: number | null;
}

const TIMEOUT_MS = 30_000;
const MAX_PAGES = 20;

interface GEvent {
  id: string;
  iCalUID?: string;
  status?: string;
  summary?: string;
  description?: string;
  location?: string;
  start?: { dateTime?: string; date?: string; timeZone?: string };
  end?: { dateTime?: string; date?: string; timeZone?: string };
  organizer?: { email?: string };
  attendees?: Array<{ email?: string; displayName?: string; responseStatus?: string }>;
  transparency?: string;
  recurringEventId?: string;
  originalStartTime?: { dateTime?: string; date?: string };
}

const RESPONSE: Record<string, string> = {
  needsAction: 'needs-action',
  accepted: 'accepted',
  declined: 'declined',
  tentative: 'tentative',
};

export class GoogleCalendar implements CalendarProvider {
  readonly provider = 'google' as const;
  readonly accountId: string;
  private readonly config: GoogleConfig;
  private secret: GoogleSecret;
  private readonly onTokens: (s: GoogleSecret) => Promise<void>;
  private readonly now: () => number;

  constructor(
    accountId: string,
    config: GoogleConfig,
    secret: GoogleSecret,
    d: { onTokens: (s: GoogleSecret) => Promise<void>; now: () => number },
  ) {
    this.accountId = accountId;
    this.config = config;
    this.secret = secret;
    this.onTokens = d.onTokens;
    this.now = d.now;
  }

  private async refresh(): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.config.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: this.secret.refreshToken,
          client_id: this.secret.clientId,
          client_secret: this.secret.clientSecret,
        }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      throw unreachable(this.config.tokenUrl, e);
    }
    const body = (await res.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
      error_description?: string;
    };
    if (!res.ok || typeof body.access_token !== 'string')
      throw new AppError(
        res.status >= 500 ? 'unavailable' : 'validation_failed',
        `the Google token endpoint ${this.config.tokenUrl} refused the refresh token (${res.status} ${redact(`${body.error ?? ''} ${body.error_description ?? ''}`, this.secrets())}`.trim() +
          '): check refreshToken, clientId and clientSecret, or connect the account again',
        { errors: [{ path: 'refreshToken', message: 'refused by the token endpoint' }] },
      );
    this.secret = { ...this.secret, accessToken: body.access_token, expiresAt: this.now() + (body.expires_in ?? 3600) * 1000 - 60_000 };
    await this.onTokens(this.secret);
  }

  /** The credentials it holds, to cut out of server error text. */
  private secrets(): Array<string | null | undefined> {
    return [this.secret.clientSecret, this.secret.refreshToken, this.secret.accessToken];
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const expired = !this.secret.accessToken || (this.secret.expiresAt != null && this.secret.expiresAt <= this.now());
    if (expired) await this.refresh();
    for (let attempt = 0; ; attempt++) {
      const url = `${this.config.apiBase.replace(/\/+$/, '')}${path}`;
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${this.secret.accessToken}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (e) {
        throw unreachable(this.config.apiBase, e);
      }
      if (res.status === 401 && attempt === 0) {
        await this.refresh();
        continue;
      }
      const json = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
      if (!res.ok) {
        const why = redact(String(json?.error?.message ?? res.statusText), this.secrets());
        throw new AppError(
          res.status >= 400 && res.status < 500 && res.status !== 429 ? 'validation_failed' : 'unavailable',
          `the Google Calendar API answered ${res.status} to ${method} ${path.split('?')[0]}: ${String(why).slice(0, 200)}`,
        );
      }
      return json as T;
    }
  }

  private calendars: CalendarInfo[] | null = null;

  async listCalendars(): Promise<CalendarInfo[]> {
    if (this.calendars) return this.calendars;
    const r = await this.call<{ items?: Array<{ id: string; summary?: string; primary?: boolean; selected?: boolean }> }>(
      'GET',
      '/users/me/calendarList?maxResults=250',
    );
    const want = this.config.calendarId ?? null;
    this.calendars = (r.items ?? [])
      .filter((c) => c.selected !== false || c.primary)
      .map((c) => ({ id: c.id, name: c.summary ?? c.id, primary: want ? c.id === want : c.primary === true }));
    return this.calendars;
  }

  async listEvents(range: Range, opts: ListOptions): Promise<Listed> {
    const cals = (await this.listCalendars()).filter((c) => !opts.calendarIds?.length || opts.calendarIds.includes(c.id));
    const events: Occurrence[] = [];
    const warnings: string[] = [];
    for (const cal of cals) {
      let pageToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const q = new URLSearchParams({
          timeMin: new Date(range.startMs).toISOString(),
          timeMax: new Date(range.endMs).toISOString(),
          singleEvents: 'true',
          orderBy: 'startTime',
          maxResults: '250',
          ...(pageToken ? { pageToken } : {}),
        });
        const r = await this.call<{ items?: GEvent[]; nextPageToken?: string }>(
          'GET',
          `/calendars/${encodeURIComponent(cal.id)}/events?${q}`,
        );
        for (const g of r.items ?? []) {
          const o = toOccurrence(g, cal.id, opts.timeZone);
          if (o) events.push(o);
          else warnings.push(`skipped Google event ${g.id} in ${cal.id}: no usable start/end`);
        }
        pageToken = r.nextPageToken;
        if (!pageToken) break;
        if (page === MAX_PAGES - 1) warnings.push(`${cal.id}: stopped after ${MAX_PAGES} pages of events; narrow the range`);
      }
    }
    return { events: events.filter((e) => e.status !== 'cancelled'), warnings };
  }

  /** Busy intervals from the freeBusy endpoint, for availability (it also covers calendars shared free/busy only). */
  async freeBusy(
    range: Range,
    calendarIds: string[],
  ): Promise<{ busy: Array<{ startMs: number; endMs: number; calendarId: string }>; warnings: string[] }> {
    const r = await this.call<{
      calendars?: Record<string, { busy?: Array<{ start: string; end: string }>; errors?: Array<{ reason?: string }> }>;
    }>('POST', '/freeBusy', {
      timeMin: new Date(range.startMs).toISOString(),
      timeMax: new Date(range.endMs).toISOString(),
      items: calendarIds.map((id) => ({ id })),
    });
    const entries = Object.entries(r.calendars ?? {});
    return {
      busy: entries.flatMap(([calendarId, c]) =>
        (c.busy ?? []).map((b) => ({ startMs: Date.parse(b.start), endMs: Date.parse(b.end), calendarId })),
      ),
      warnings: entries
        .filter(([, c]) => c.errors?.length)
        .map(
          ([id, c]) =>
            `Google freeBusy could not read ${id} (${c.errors!.map((e) => e.reason ?? 'error').join(', ')}): its busy time is missing`,
        ),
    };
  }

  async createEvent(e: NewEvent): Promise<Created> {
    const calendarId = e.calendarId ?? this.config.calendarId ?? 'primary';
    const tz = e.timeZone ?? 'UTC';
    const r = await this.call<{ id: string; htmlLink?: string }>('POST', `/calendars/${encodeURIComponent(calendarId)}/events`, {
      iCalUID: e.uid,
      summary: e.title,
      ...(e.description ? { description: e.description } : {}),
      ...(e.location ? { location: e.location } : {}),
      start: { dateTime: new Date(e.startMs).toISOString(), timeZone: tz },
      end: { dateTime: new Date(e.endMs).toISOString(), timeZone: tz },
      attendees: e.attendees.map((email) => ({ email })),
    });
    return { eventId: r.id, calendarId, url: r.htmlLink ?? null };
  }
}

function unreachable(base: string, e: unknown): AppError {
  const cause = (e as { cause?: { code?: string } })?.cause?.code ?? (e as Error)?.message ?? String(e);
  return new AppError(
    'unavailable',
    `could not reach ${base} (${String(cause).slice(0, 160)}): check the URL setting and the network, then retry`,
  );
}

function toOccurrence(g: GEvent, calendarId: string, viewTz: string): Occurrence | null {
  const allDay = !!g.start?.date && !g.start?.dateTime;
  const startMs = allDay ? startOfDate(g.start!.date!, viewTz) : Date.parse(g.start?.dateTime ?? '');
  const endMs = allDay ? startOfDate(g.end?.date ?? g.start!.date!, viewTz) : Date.parse(g.end?.dateTime ?? '');
  if (!Number.isFinite(startMs) || !Number.isFinite(endMs)) return null;
  const orig = g.originalStartTime?.dateTime ?? g.originalStartTime?.date;
  return {
    uid: g.iCalUID ?? g.id,
    eventId: g.id,
    calendarId,
    title: g.summary ?? '(no title)',
    description: g.description ?? null,
    location: g.location ?? null,
    startMs,
    endMs: Math.max(endMs, startMs),
    allDay,
    startDate: allDay ? (g.start?.date ?? null) : null,
    endDate: allDay ? (g.end?.date ?? null) : null,
    eventTimeZone: g.start?.timeZone ?? null,
    organizer: g.organizer?.email?.toLowerCase() ?? null,
    attendees: (g.attendees ?? [])
      .filter((a) => a.email)
      .map((a) => ({ email: a.email!.toLowerCase(), name: a.displayName ?? null, response: RESPONSE[a.responseStatus ?? ''] ?? null })),
    status: g.status === 'cancelled' ? 'cancelled' : g.status === 'tentative' ? 'tentative' : 'confirmed',
    busy: g.transparency !== 'transparent',
    recurring: !!g.recurringEventId,
    recurrenceId: orig ? new Date(Date.parse(orig)).toISOString() : null,
  };
}
