// CalDAV (RFC 4791) through tsdav against any server (Radicale, Nextcloud, Baïkal, SOGo…): login + calendar discovery
// on connect, a time-range calendar-query REPORT to list, ical.js expansion (src/providers/calendar/ics.ts), and a PUT
// of one VEVENT to create. Every request has a deadline so a server that stops answering cannot hold a tool call.
import { type DAVCalendar, DAVClient } from 'tsdav';
import { AppError } from '../../errors.ts';
import { redact } from '../redact.ts';
import { type Expander, inProcessExpander } from './expand.ts';
import { buildEvent } from './ics.ts';
import type { CalendarInfo, CalendarProvider, Created, Listed, ListOptions, NewEvent, Occurrence, Range } from './types.ts';

export interface CaldavConfig {
  serverUrl: string;
  /** The calendar new events go to (default: the first calendar that holds events). */
  calendarUrl?: string | null;
}
export interface CaldavSecret {
  username: string;
  password: string;
}

const TIMEOUT_MS = 30_000;

/**
 * tsdav turns a failed PROPFIND/REPORT into an empty list (a broken server would look like an empty calendar), so
 * refused credentials and server errors are thrown here, where they happen. 404 stays: discovery probes for it.
 */
function strictFetch(timeoutMs: number): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) });
    if (res.status === 401 || res.status === 403 || res.status >= 500) {
      await res.body?.cancel();
      const method = init?.method ?? 'GET';
      throw new Error(`${method} ${String(input instanceof Request ? input.url : input)} answered ${res.status} ${res.statusText}`);
    }
    return res;
  };
}

const isoNoMs = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A tsdav/fetch failure as the error a caller can act on: 400 for refused credentials or a server that is not CalDAV,
 * 503 for an unreachable or failing server.
 */
export function caldavError(e: unknown, serverUrl: string, doing: string, secret?: CaldavSecret): AppError {
  if (e instanceof AppError) return e;
  // The server's text is quoted; a password it echoes is cut out.
  const msg = redact((e as Error)?.message ?? String(e), [secret?.password]);
  if (/answered 40[13]|invalid credentials|unauthori[sz]ed|forbidden/i.test(msg))
    return new AppError(
      'validation_failed',
      `the CalDAV server at ${serverUrl} refused the login while ${doing} (${msg.replace(/\s+/g, ' ').slice(0, 160)}): check username and password`,
      { errors: [{ path: 'password', message: 'refused by the CalDAV server' }] },
    );
  if (/answered 5\d\d/.test(msg))
    return new AppError(
      'unavailable',
      `the CalDAV server at ${serverUrl} failed while ${doing} (${msg.slice(0, 200)}): see the server's log (broken stored data or an outage), then retry`,
    );
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  const name = (e as Error)?.name;
  const network = cause !== undefined || name === 'TimeoutError' || name === 'AbortError' || /fetch failed/i.test(msg);
  if (!network)
    return new AppError(
      'validation_failed',
      `the server at ${serverUrl} did not answer like a CalDAV server while ${doing} (${msg.replace(/\s+/g, ' ').slice(0, 160)}): check serverUrl (the CalDAV root or principal URL, e.g. https://cloud.example.com/remote.php/dav for Nextcloud)`,
      { errors: [{ path: 'serverUrl', message: 'not a CalDAV server' }] },
    );
  const why = cause?.code ?? cause?.message ?? msg;
  return new AppError(
    'unavailable',
    `could not reach the CalDAV server at ${serverUrl} while ${doing} (${String(why).slice(0, 160)}): check the URL and that the server is up, then retry`,
  );
}

export class CaldavCalendar implements CalendarProvider {
  readonly provider = 'caldav' as const;
  readonly accountId: string;
  private readonly config: CaldavConfig;
  private readonly client: DAVClient;
  private calendars: DAVCalendar[] | null = null;
  private loggedIn = false;
  private readonly expand: Expander;
  private readonly secret: CaldavSecret;

  /** `expand`: where the server's calendar data is expanded (the sandbox on a server; in-process by default). */
  constructor(accountId: string, config: CaldavConfig, secret: CaldavSecret, opts: { timeoutMs?: number; expand?: Expander } = {}) {
    const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
    this.expand = opts.expand ?? inProcessExpander();
    this.accountId = accountId;
    this.config = config;
    this.secret = secret;
    this.client = new DAVClient({
      serverUrl: config.serverUrl,
      credentials: { username: secret.username, password: secret.password },
      authMethod: 'Basic',
      defaultAccountType: 'caldav',
      fetch: strictFetch(timeoutMs),
    });
  }

  private async davCalendars(doing: string): Promise<DAVCalendar[]> {
    if (this.calendars) return this.calendars;
    try {
      if (!this.loggedIn) await this.client.login();
      this.loggedIn = true;
      const all = await this.client.fetchCalendars();
      this.calendars = all.filter((c) => !c.components || c.components.includes('VEVENT'));
      return this.calendars;
    } catch (e) {
      throw caldavError(e, this.config.serverUrl, doing, this.secret);
    }
  }

  private target(calendars: DAVCalendar[], id?: string): DAVCalendar | undefined {
    const want = id ?? this.config.calendarUrl ?? undefined;
    return want ? calendars.find((c) => c.url === want) : calendars[0];
  }

  async listCalendars(): Promise<CalendarInfo[]> {
    const cals = await this.davCalendars('listing calendars');
    const primary = this.target(cals);
    return cals.map((c) => ({
      id: c.url,
      name: typeof c.displayName === 'string' && c.displayName ? c.displayName : c.url,
      primary: c === primary,
    }));
  }

  async listEvents(range: Range, opts: ListOptions): Promise<Listed> {
    const cals = (await this.davCalendars('listing events')).filter((c) => !opts.calendarIds?.length || opts.calendarIds.includes(c.url));
    const events: Occurrence[] = [];
    const warnings: string[] = [];
    for (const cal of cals) {
      let objects: Awaited<ReturnType<DAVClient['fetchCalendarObjects']>>;
      try {
        objects = await this.client.fetchCalendarObjects({
          calendar: cal,
          timeRange: { start: isoNoMs(range.startMs), end: isoNoMs(range.endMs) },
        });
      } catch (e) {
        throw caldavError(e, this.config.serverUrl, `reading ${cal.url}`, this.secret);
      }
      const items = [];
      for (const o of objects) {
        if (typeof o.data !== 'string' || !o.data.trim()) {
          warnings.push(`skipped ${o.url}: the server sent no calendar data`);
          continue;
        }
        items.push({ eventId: o.url, ics: o.data, zonesId: null });
      }
      const x = await this.expand(items, { range, timeZone: opts.timeZone, calendarId: cal.url });
      events.push(...x.events);
      warnings.push(...x.warnings);
    }
    return { events, warnings };
  }

  async createEvent(e: NewEvent): Promise<Created> {
    const cals = await this.davCalendars('creating an event');
    const cal = this.target(cals, e.calendarId);
    if (!cal)
      throw new AppError(
        'validation_failed',
        e.calendarId
          ? `calendar ${e.calendarId} is not one of this CalDAV account's calendars (${cals.map((c) => c.url).join(', ') || 'none'})`
          : `the CalDAV account at ${this.config.serverUrl} has no calendar for events: create one on the server, then retry`,
        { errors: [{ path: 'calendarId', message: 'no such calendar' }] },
      );
    const filename = `${encodeURIComponent(e.uid)}.ics`;
    let res: Response;
    try {
      res = await this.client.createCalendarObject({ calendar: cal, filename, iCalString: buildEvent({ ...e, now: Date.now() }) });
    } catch (err) {
      throw caldavError(err, this.config.serverUrl, 'creating an event', this.secret);
    }
    if (!res.ok)
      throw new AppError(
        res.status === 401 || res.status === 403 ? 'validation_failed' : 'unavailable',
        `the CalDAV server refused the new event: PUT ${cal.url}${filename} answered ${res.status} ${res.statusText}`,
      );
    const url = new URL(filename, cal.url).toString();
    return { eventId: url, calendarId: cal.url, url };
  }
}
