// Connecting a calendar account (CalDAV or Google Calendar): the login is checked and the calendars are found first,
// then the account is stored sealed; nothing is stored on any failure, and whatever of the credentials a server's
// refusal echoes is cut out of the answer. Used by the calendar service (service.ts).
import type { Principal } from '../../auth/principal.ts';
import { AppError } from '../../errors.ts';
import { type AccountView, accountView, type ProviderAccounts } from '../accounts.ts';
import { redacting } from '../redact.ts';
import { CaldavCalendar, type CaldavConfig, type CaldavSecret } from './caldav.ts';
import { GoogleCalendar, type GoogleConfig, type GoogleSecret } from './google.ts';
import type { CalendarInfo } from './types.ts';

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

/** What connecting needs: the accounts store, the clock and Google's endpoints. */
export interface ConnectDeps {
  providers: Pick<ProviderAccounts, 'requireSealing' | 'save'>;
  now: () => number;
  google: { apiBase: string; tokenUrl: string };
}

/** A connect request as the operation takes it: the fields its provider needs are checked here. */
export interface ConnectRequest {
  provider: 'caldav' | 'google';
  label?: string | undefined;
  serverUrl?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  calendarUrl?: string | undefined;
  refreshToken?: string | undefined;
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  accessToken?: string | undefined;
  calendarId?: string | undefined;
}

/** Refused before anything else when secrets cannot be sealed; then the fields the provider needs must be there. */
export function connectRequest(s: ConnectDeps, p: Principal, i: ConnectRequest): Promise<Connected> {
  const need = (fields: Array<keyof ConnectRequest>) => {
    const missing = fields.filter((f) => i[f] === undefined);
    if (missing.length)
      throw new AppError('validation_failed', `provider ${i.provider} needs ${missing.join(', ')}`, {
        errors: missing.map((f) => ({ path: String(f), message: `required for provider ${i.provider}` })),
      });
  };
  s.providers.requireSealing('calendar');
  if (i.provider === 'caldav') {
    need(['serverUrl', 'username', 'password']);
    return connect(s, p, {
      provider: 'caldav',
      serverUrl: i.serverUrl!,
      username: i.username!,
      password: i.password!,
      calendarUrl: i.calendarUrl,
      label: i.label,
    });
  }
  need(['refreshToken', 'clientId', 'clientSecret']);
  return connect(s, p, {
    provider: 'google',
    refreshToken: i.refreshToken!,
    clientId: i.clientId!,
    clientSecret: i.clientSecret!,
    accessToken: i.accessToken,
    calendarId: i.calendarId,
    label: i.label,
  });
}

export interface Connected {
  account: AccountView;
  calendars: CalendarInfo[];
}

/** Logs in with the credentials and finds the calendars FIRST; only a working account is stored. */
function connect(s: ConnectDeps, p: Principal, input: ConnectInput): Promise<Connected> {
  // A server's refusal is quoted in the answer; whatever of the credentials it echoes is cut out.
  const i = input as { password?: string; refreshToken?: string; clientSecret?: string; accessToken?: string | null };
  return redacting([i.password, i.refreshToken, i.clientSecret, i.accessToken], () => connectChecked(s, p, input));
}

async function connectChecked(s: ConnectDeps, p: Principal, input: ConnectInput): Promise<Connected> {
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
  const config: GoogleConfig = { apiBase: s.google.apiBase, tokenUrl: s.google.tokenUrl, calendarId: input.calendarId ?? null };
  let secret: GoogleSecret = {
    refreshToken: input.refreshToken,
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    accessToken: input.accessToken ?? null,
    expiresAt: null,
  };
  const g = new GoogleCalendar('new', config, secret, {
    now: () => s.now(),
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
