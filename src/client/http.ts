// The client's one way to talk to a running inboxd: JSON over HTTP with the key as a bearer token, and every failure
// turned into a ClientError that says which kind it is (unreachable, auth, server error, refused arguments) and what to do.
import { ClientError, EXIT, one, type Parsed, usage } from './args.ts';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

interface Problem {
  code?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

export class Client {
  readonly url: string;
  private readonly key: string;

  constructor(url: string, key: string) {
    this.url = url;
    this.key = key;
  }

  /** From --url/INBOXD_URL and --key/INBOXD_KEY; a usage error when either is unusable. */
  static from(p: Parsed, env: NodeJS.ProcessEnv): Client {
    const raw = one(p, '--url') ?? env.INBOXD_URL ?? 'http://localhost:8025';
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw usage(`--url / INBOXD_URL '${raw}' is not a URL; give e.g. http://localhost:8025`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw usage(`--url / INBOXD_URL must be http(s), not ${u.protocol}`);
    const key = one(p, '--key') ?? env.INBOXD_KEY ?? '';
    if (key === '') throw usage('no API key: set INBOXD_KEY (or pass --key); the admin key is in <data-dir>/admin.key');
    return new Client(u.href.replace(/\/+$/, ''), key);
  }

  /**
   * A JSON request. `expect` lists statuses that are answers rather than failures (e.g. 408 for a wait); every other
   * non-2xx status becomes a ClientError.
   */
  async request(
    method: string,
    path: string,
    o: {
      query?: Record<string, string | undefined>;
      body?: unknown;
      /** Bytes sent as they are (a .eml), instead of a JSON body. */
      raw?: { bytes: Buffer; contentType: string };
      timeoutMs?: number;
      expect?: number[];
    } = {},
  ): Promise<Answer> {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) qs.set(k, v);
    const target = `${this.url}${path}${qs.size > 0 ? `?${qs}` : ''}`;
    const timeoutMs = o.timeoutMs ?? 30_000;
    let res: Response;
    try {
      res = await fetch(target, {
        method,
        headers: {
          authorization: `Bearer ${this.key}`,
          accept: 'application/json',
          ...(o.raw ? { 'content-type': o.raw.contentType } : o.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: o.raw ? new Uint8Array(o.raw.bytes) : o.body === undefined ? null : JSON.stringify(o.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw unreachable(this.url, e, timeoutMs);
    }
    const text = await res.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      if (res.ok)
        throw new ClientError('server error', `${method} ${path} answered ${res.status} with a body that is not JSON`, EXIT.error);
    }
    if (res.ok || o.expect?.includes(res.status)) return { status: res.status, body };
    throw failure(res, body as Problem, this.url);
  }

  /**
   * A request answered as a stream (`Accept: text/event-stream`, the operations that stream): `onEvent` sees each
   * event as it comes (`inbox`, `progress`, `handed_out` …) and the `result` event is the answer. A refusal before the
   * stream (401, 400 …) or an `error` event fails as `request` does; a server that answers plain JSON is read as JSON.
   */
  async stream(
    method: string,
    path: string,
    o: { body?: unknown; timeoutMs?: number; onEvent: (event: string, data: unknown) => void },
  ): Promise<Answer> {
    const timeoutMs = o.timeoutMs ?? 30_000;
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.key}`,
          accept: 'text/event-stream, application/json;q=0.5',
          ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: o.body === undefined ? null : JSON.stringify(o.body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw unreachable(this.url, e, timeoutMs);
    }
    if (!res.ok || !/text\/event-stream/i.test(res.headers.get('content-type') ?? '') || !res.body) {
      const text = await res.text().catch(() => '');
      let body: Record<string, unknown> = {};
      try {
        body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      } catch {
        if (res.ok)
          throw new ClientError('server error', `${method} ${path} answered ${res.status} with a body that is not JSON`, EXIT.error);
      }
      if (res.ok) return { status: res.status, body };
      throw failure(res, body as Problem, this.url);
    }
    const decoder = new TextDecoder();
    let buffered = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => l.slice(6))
            .join('\n');
          if (data === '') continue;
          const value = JSON.parse(data) as Record<string, unknown>;
          if (event === 'result') return { status: res.status, body: value };
          if (event === 'error') {
            const status = typeof value.status === 'number' ? value.status : 500;
            throw failure(new Response(null, { status, statusText: String(value.title ?? '') }), value as Problem, this.url);
          }
          o.onEvent(event, value);
        }
      }
    } catch (e) {
      if (e instanceof ClientError) throw e;
      throw unreachable(this.url, e, timeoutMs);
    }
    throw new ClientError('server error', `${method} ${path}: the stream ended without a result`, EXIT.error);
  }

  /** An inbox id (inb_…) as it is, or an address looked up among the inboxes the key can see. */
  async inboxId(ref: string): Promise<string> {
    if (!ref.includes('@')) return ref;
    const want = ref.toLowerCase();
    let cursor: string | undefined;
    do {
      const page = await this.request('GET', '/v1/inboxes', { query: { limit: '500', cursor } });
      const items = page.body.items as Array<{ inboxId: string; address: string }>;
      const hit = items.find((i) => i.address.toLowerCase() === want);
      if (hit) return hit.inboxId;
      cursor = (page.body.nextCursor as string | null) ?? undefined;
    } while (cursor);
    throw new ClientError('not found', `no inbox with the address ${ref} is visible to this key (GET /v1/inboxes lists them)`, EXIT.error);
  }
}

function unreachable(url: string, e: unknown, timeoutMs: number): ClientError {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError')
    return new ClientError('unreachable', `${url} did not answer within ${Math.round(timeoutMs / 1000)} s`, EXIT.error);
  const code = err.cause?.code;
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused (is inboxd running there? check --url / INBOXD_URL)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve (check --url / INBOXD_URL)'
        : (err.cause?.message ?? err.message);
  return new ClientError('unreachable', `cannot reach ${url}: ${why}`, EXIT.error);
}

function failure(res: Response, p: Problem, url: string): ClientError {
  const what = `${res.status}${p.code ? ` ${p.code}` : ''}`;
  const detail = p.detail ?? res.statusText;
  if (res.status === 401) return new ClientError('auth error', `${what}: ${detail} (check INBOXD_KEY / --key against ${url})`, EXIT.error);
  if (res.status === 403) return new ClientError('auth error', `${what}: ${detail}`, EXIT.error);
  if (res.status === 400) {
    const fields = (p.errors ?? []).map((f) => `${f.path}: ${f.message}`).join('; ');
    return new ClientError('refused', `${what}: ${detail}${fields ? ` (${fields})` : ''}`, EXIT.usage);
  }
  if (res.status === 429) {
    const after = res.headers.get('retry-after');
    return new ClientError('rate limited', `${what}: ${detail}${after ? ` (retry after ${after} s)` : ''}`, EXIT.error);
  }
  if (res.status >= 500) return new ClientError('server error', `${what}: ${detail}`, EXIT.error);
  return new ClientError(res.status === 404 ? 'not found' : 'error', `${what}: ${detail}`, EXIT.error);
}
