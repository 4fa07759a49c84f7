// A local HTTP server speaking the part of the Gmail REST API inboxd uses (users/me/profile, threads list/get,
// drafts create) and Google's OAuth token endpoint (refresh_token grant). `expireToken()` makes the current access
// token invalid, so the next API call gets 401 and the client must refresh and retry.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  internalDate: string;
  snippet: string;
  payload: Part;
}
interface Part {
  mimeType: string;
  filename?: string;
  headers?: Array<{ name: string; value: string }>;
  body: { size: number; data?: string; attachmentId?: string };
  parts?: Part[];
}

export interface GmailFake {
  url: string;
  tokenUrl: string;
  address: string;
  client: { clientId: string; clientSecret: string; refreshToken: string };
  requests: Array<{ method: string; path: string; auth: string | null }>;
  drafts: Array<{ id: string; raw: string; threadId: string | null }>;
  refreshes: number;
  addMessage(m: {
    threadId?: string;
    from: string;
    to: string;
    subject: string;
    text?: string;
    html?: string;
    labels?: string[];
    headers?: Record<string, string>;
    date?: Date;
    attachment?: { filename: string; mimeType: string; size: number };
  }): FakeMessage;
  expireToken(): void;
  stop(): Promise<void>;
}

const b64 = (s: string) => Buffer.from(s).toString('base64url');

export async function startGmailFake(address = 'me@gmail.test'): Promise<GmailFake> {
  const client = { clientId: 'cid-1', clientSecret: 'csecret-1', refreshToken: 'rt-valid-1' };
  const threads = new Map<string, FakeMessage[]>();
  let token: string | null = null;
  let n = 0;
  const fake = {
    requests: [] as GmailFake['requests'],
    drafts: [] as GmailFake['drafts'],
    refreshes: 0,
  };
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = Buffer.concat(chunks).toString('utf8');
      fake.requests.push({ method: req.method ?? '', path: url.pathname + url.search, auth: req.headers.authorization ?? null });
      if (url.pathname === '/token' && req.method === 'POST') {
        const f = new URLSearchParams(body);
        if (f.get('grant_type') !== 'refresh_token') return json(res, 400, { error: 'unsupported_grant_type' });
        if (f.get('client_id') !== client.clientId || f.get('client_secret') !== client.clientSecret)
          return json(res, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
        if (f.get('refresh_token') !== client.refreshToken)
          return json(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        fake.refreshes++;
        token = `at-${++n}`;
        return json(res, 200, {
          access_token: token,
          expires_in: 3599,
          token_type: 'Bearer',
          scope: 'https://www.googleapis.com/auth/gmail.modify',
        });
      }
      const m = /^\/gmail\/v1\/users\/me\/(.+)$/.exec(url.pathname);
      if (!m) return json(res, 404, { error: { code: 404, message: 'Not Found' } });
      if (!token || req.headers.authorization !== `Bearer ${token}`)
        return json(res, 401, {
          error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
        });
      const rest = m[1]!;
      if (rest === 'profile')
        return json(res, 200, { emailAddress: address, messagesTotal: 0, threadsTotal: threads.size, historyId: '1' });
      if (rest === 'threads' && req.method === 'GET') {
        const q = (url.searchParams.get('q') ?? '').toLowerCase();
        const label = url.searchParams.get('labelIds');
        const max = Number(url.searchParams.get('maxResults') ?? 100);
        const start = Number(url.searchParams.get('pageToken') ?? 0);
        const all = [...threads.entries()]
          .filter(([, ms]) => !label || ms.some((x) => x.labelIds.includes(label)))
          .filter(
            ([, ms]) => !q || ms.some((x) => JSON.stringify(x.payload).toLowerCase().includes(q) || x.snippet.toLowerCase().includes(q)),
          )
          .sort((a, b) => Number(b[1].at(-1)!.internalDate) - Number(a[1].at(-1)!.internalDate));
        const page = all.slice(start, start + max);
        return json(res, 200, {
          threads: page.map(([id, ms]) => ({ id, snippet: ms.at(-1)!.snippet, historyId: '1' })),
          ...(start + max < all.length ? { nextPageToken: String(start + max) } : {}),
          resultSizeEstimate: all.length,
        });
      }
      const t = /^threads\/([^/]+)$/.exec(rest);
      if (t && req.method === 'GET') {
        const ms = threads.get(decodeURIComponent(t[1]!));
        if (!ms) return json(res, 404, { error: { code: 404, message: 'Requested entity was not found.' } });
        const meta = url.searchParams.get('format') === 'metadata';
        return json(res, 200, {
          id: t[1],
          historyId: '1',
          messages: ms.map((x) =>
            meta ? { ...x, payload: { mimeType: x.payload.mimeType, headers: x.payload.headers, body: { size: 0 } } } : x,
          ),
        });
      }
      if (rest === 'drafts' && req.method === 'POST') {
        const d = JSON.parse(body) as { message?: { raw?: string; threadId?: string } };
        if (!d.message?.raw) return json(res, 400, { error: { code: 400, message: 'Missing draft message' } });
        const id = `r-${++n}`;
        const threadId = d.message.threadId ?? `t-new-${n}`;
        fake.drafts.push({ id, raw: d.message.raw, threadId: d.message.threadId ?? null });
        return json(res, 200, { id, message: { id: `m-${n}`, threadId, labelIds: ['DRAFT'] } });
      }
      return json(res, 404, { error: { code: 404, message: 'Not Found' } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tokenUrl: `${url}/token`,
    address,
    client,
    get requests() {
      return fake.requests;
    },
    get drafts() {
      return fake.drafts;
    },
    get refreshes() {
      return fake.refreshes;
    },
    addMessage(a) {
      const id = `m${++n}`;
      const threadId = a.threadId ?? `t${n}`;
      const date = a.date ?? new Date();
      const headers = [
        { name: 'From', value: a.from },
        { name: 'To', value: a.to },
        { name: 'Subject', value: a.subject },
        { name: 'Date', value: date.toUTCString() },
        { name: 'Message-ID', value: `<${id}@gmail.test>` },
        ...Object.entries(a.headers ?? {}).map(([name, value]) => ({ name, value })),
      ];
      const parts: Part[] = [];
      if (a.text !== undefined) parts.push({ mimeType: 'text/plain', body: { size: a.text.length, data: b64(a.text) } });
      if (a.html !== undefined) parts.push({ mimeType: 'text/html', body: { size: a.html.length, data: b64(a.html) } });
      if (a.attachment)
        parts.push({
          mimeType: a.attachment.mimeType,
          filename: a.attachment.filename,
          body: { size: a.attachment.size, attachmentId: 'att1' },
        });
      const msg: FakeMessage = {
        id,
        threadId,
        labelIds: a.labels ?? ['INBOX', 'UNREAD'],
        internalDate: String(date.getTime()),
        snippet: (a.text ?? '').slice(0, 100),
        payload: { mimeType: 'multipart/mixed', headers, body: { size: 0 }, parts },
      };
      threads.set(threadId, [...(threads.get(threadId) ?? []), msg]);
      return msg;
    },
    expireToken() {
      token = `revoked-${++n}`;
    },
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
