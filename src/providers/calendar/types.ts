// The one calendar adapter interface (CONTRACT §15): the tools never know whether the local invitation calendar,
// CalDAV or the Google Calendar API is behind an account.

export interface CalendarInfo {
  id: string;
  name: string;
  /** The calendar new events go to when none is named. */
  primary: boolean;
}

export interface Attendee {
  email: string;
  name: string | null;
  /** accepted | declined | tentative | needs-action | null (unknown). */
  response: string | null;
}

/** One occurrence of an event (recurring events expanded), with instants in UTC ms. */
export interface Occurrence {
  uid: string;
  /** Provider event id (local cev_…, CalDAV object URL, Google event id). */
  eventId: string;
  calendarId: string;
  title: string;
  description: string | null;
  location: string | null;
  startMs: number;
  endMs: number;
  allDay: boolean;
  /** For all-day events: the dates (end exclusive), YYYY-MM-DD. */
  startDate: string | null;
  endDate: string | null;
  /** The time zone the event was written in (TZID), when it has one. */
  eventTimeZone: string | null;
  organizer: string | null;
  attendees: Attendee[];
  status: 'confirmed' | 'tentative' | 'cancelled';
  /** False for TRANSP:TRANSPARENT / Google "transparency: transparent": shown, but not busy. */
  busy: boolean;
  recurring: boolean;
  /** The original start of this instance of a recurring event (ISO, UTC). */
  recurrenceId: string | null;
  /** Local calendar: where the invitation came from. */
  inboxId?: string | null;
  messageId?: string | null;
}

export interface Range {
  startMs: number;
  endMs: number;
}

export interface ListOptions {
  /** The zone for floating times and all-day dates (the request's timeZone). */
  timeZone: string;
  calendarIds?: string[] | undefined;
}

export interface Listed {
  events: Occurrence[];
  /** What was skipped or guessed (malformed data, an unknown TZID taken as UTC), said plainly. */
  warnings: string[];
}

export interface NewEvent {
  uid: string;
  title: string;
  startMs: number;
  endMs: number;
  /** Zone the event is written in (its TZID); UTC when absent. */
  timeZone: string | null;
  description: string | null;
  location: string | null;
  attendees: string[];
  organizer: string | null;
  calendarId?: string | undefined;
}

export interface Created {
  eventId: string;
  calendarId: string;
  url: string | null;
}

export interface CalendarProvider {
  /** `local` or the account id (pac_…). */
  readonly accountId: string;
  readonly provider: 'local' | 'caldav' | 'google';
  listCalendars(): Promise<CalendarInfo[]>;
  listEvents(range: Range, opts: ListOptions): Promise<Listed>;
  createEvent(e: NewEvent): Promise<Created>;
}
