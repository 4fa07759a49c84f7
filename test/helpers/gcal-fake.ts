// A local HTTP server speaking the parts of the Google Calendar API v3 inboxd uses (calendarList, events list with
// timeMin/timeMax/singleEvents/orderBy/pageToken, events insert, freeBusy) and Google's OAuth token endpoint
// (refresh_token grant). Access tokens can be expired on demand, so the 401 → refresh → retry path is real.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeEvent {
  id: string;
  summary: string;
  start: { dateTime?: string; date?: string; timeZone?: string };
  end: { dateTime?: string; date?: string; timeZone?: string };
  status?: string;
  transparency?: string;
  attendees?: Array<{ email: string; responseStatus?: string }>;
  organizer?: { email: string };
  location?: string;
  description?: string;
  iCalUID?: string;
  recurringEventId?: string;
}

export interface GcalFake {
  url: string;
  apiBase: string;
  tokenUrl: string;
  client: { clientId: string; clientSecret: string; refreshToken: string };
  calendars: Array<{ id: string; summary: string; primary?: boolean }>;
  events: Map<string, FakeEvent[]>;
  /** Requests seen, as "METHOD path" (no query), in order. */
  requests: string[];
  /** Every access token issued so far stops working (the next API call gets 401). */
  expireTokens(): void;
  refreshes: number;
  /** Page size the events list uses (small in tests, so paging is exercised). */
  pageSize: number;
  stop(): Promise<void>;
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const readBody = (req: http.IncomingMessage) =>
  new Promise<string>((resolve) => {
    const parts: Buffer[] = [];
    req.on('data', (b: Buffer) => parts.push(b));
    req.on('end', () => resolve(Buffer.concat(parts).toString()));
  });

const instant = (t: { dateTime?: string; date?: string }) => Date.parse(t.dateTime ?? `${t.date}T00:00:00Z`);

export async function startGcalFake(primary = 'carol@example.com'): Promise<GcalFake> {
  const valid = new Set<string>();
  let n = 0;
  const fake: GcalFake = {
    url: '',
    apiBase: '',
    tokenUrl: '',
    client: { clientId: 'client-1.apps.example', clientSecret: 'client-secret-1', refreshToken: 'refresh-token-1' },
    calendars: [{ id: primary, summary: 'Carol', primary: true }],
    events: new Map([[primary, []]]),
    requests: [],
    refreshes: 0,
    pageSize: 2,
    expireTokens: () => valid.clear(),
    stop: async () => {},
  };
  const server = http.createServer(async (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    fake.requests.push(`${req.method} ${u.pathname}`);
    const body = await readBody(req);
    if (u.pathname === '/token' && req.method === 'POST') {
      const f = new URLSearchParams(body);
      if (
        f.get('grant_type') !== 'refresh_token' ||
        f.get('refresh_token') !== fake.client.refreshToken ||
        f.get('client_id') !== fake.client.clientId ||
        f.get('client_secret') !== fake.client.clientSecret
      )
        return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
      const token = `access-${++n}`;
      valid.add(token);
      fake.refreshes++;
      return json(res, 200, {
        access_token: token,
        expires_in: 3599,
        token_type: 'Bearer',
        scope: 'https://www.googleapis.com/auth/calendar',
      });
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !valid.has(bearer))
      return json(res, 401, {
        error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
      });
    const path = u.pathname.replace(/^\/calendar\/v3/, '');
    if (path === '/users/me/calendarList' && req.method === 'GET')
      return json(res, 200, {
        kind: 'calendar#calendarList',
        items: fake.calendars.map((c) => ({ ...c, accessRole: 'owner', selected: true })),
      });
    if (path === '/freeBusy' && req.method === 'POST') {
      const q = JSON.parse(body) as { timeMin: string; timeMax: string; items: Array<{ id: string }> };
      const [a, b] = [Date.parse(q.timeMin), Date.parse(q.timeMax)];
      const calendars: Record<string, unknown> = {};
      for (const { id } of q.items) {
        const busy = (fake.events.get(id) ?? [])
          .filter((e) => e.status !== 'cancelled' && e.transparency !== 'transparent')
          .filter((e) => instant(e.start) < b && instant(e.end) > a)
          .map((e) => ({ start: new Date(instant(e.start)).toISOString(), end: new Date(instant(e.end)).toISOString() }));
        calendars[id] = fake.events.has(id) ? { busy } : { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] };
      }
      return json(res, 200, { kind: 'calendar#freeBusy', timeMin: q.timeMin, timeMax: q.timeMax, calendars });
    }
    const m = /^\/calendars\/([^/]+)\/events$/.exec(path);
    if (m) {
      const raw = decodeURIComponent(m[1]!);
      const id = raw === 'primary' ? (fake.calendars.find((x) => x.primary)?.id ?? raw) : raw;
      const list = fake.events.get(id);
      if (!list) return json(res, 404, { error: { code: 404, message: 'Not Found' } });
      if (req.method === 'POST') {
        const e = JSON.parse(body) as FakeEvent;
        const stored = { ...e, id: `gev${++n}`, status: 'confirmed', organizer: { email: id } };
        list.push(stored);
        return json(res, 200, { ...stored, htmlLink: `https://calendar.example/event?eid=${stored.id}` });
      }
      if (u.searchParams.get('singleEvents') !== 'true' || u.searchParams.get('orderBy') !== 'startTime')
        return json(res, 400, { error: { code: 400, message: 'orderBy=startTime needs singleEvents=true' } });
      const a = Date.parse(u.searchParams.get('timeMin') ?? '');
      const b = Date.parse(u.searchParams.get('timeMax') ?? '');
      const hits = list.filter((e) => instant(e.end) > a && instant(e.start) < b).sort((x, y) => instant(x.start) - instant(y.start));
      const from = Number(u.searchParams.get('pageToken') ?? 0);
      const page = hits.slice(from, from + fake.pageSize);
      return json(res, 200, {
        kind: 'calendar#events',
        items: page,
        ...(from + fake.pageSize < hits.length ? { nextPageToken: String(from + fake.pageSize) } : {}),
      });
    }
    return json(res, 404, { error: { code: 404, message: `no route ${req.method} ${path}` } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${port}`;
  fake.apiBase = `${fake.url}/calendar/v3`;
  fake.tokenUrl = `${fake.url}/token`;
  fake.stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return fake;
}
