// @inboxd/client: the calls a test makes every day against an inboxd server — create an inbox, wait for mail, get the
// code or link, simulate mail, send, search, delete — typed from inboxd's OpenAPI document (./openapi.gen.ts).
// No runtime dependencies: the global fetch and AbortSignal.any of Node ≥ 20.3, Deno, Bun or a current browser.
// Every call takes a timeout and an AbortSignal; every failure is an InboxdError saying what the server answered and
// what to do about it.
import { OPERATIONS, type OperationId, type Operations, type Problem } from './openapi.gen.ts';

export type { OperationId, Operations, Problem } from './openapi.gen.ts';

export const VERSION = '0.3.0';

type Op<K extends OperationId> = Operations[K];
export type InboxInfo = Op<'inboxes.create'>['response'];
export type CreateInboxOptions = NonNullable<Op<'inboxes.create'>['body']>;
export type Message = Op<'inboxes.wait'>['response'];
export type WaitOptions = Omit<Op<'inboxes.wait'>['query'], 'includeBody'> & { includeBody?: boolean };
export type VerifyBody = NonNullable<Op<'agent.verify'>['body']>;
export type VerifyResult = Op<'agent.verify'>['response'];
export type SimulateOptions = NonNullable<Op<'inboxes.simulate'>['body']>;
export type SimulateResult = Op<'inboxes.simulate'>['response'];
export type SendOptions = NonNullable<Op<'messages.send'>['body']>;
export type SendResult = Op<'messages.send'>['response'];
export type SearchOptions = Omit<Op<'messages.search_all'>['query'], 'q'>;
export type SearchResult = Op<'messages.search_all'>['response'];
export type PrimaryAction = VerifyResult['agent']['primaryAction'];

/** Per call: how long to wait for the whole answer, and a signal that cancels the call. */
export interface CallOptions {
  /** Milliseconds for the whole call (default: the client's timeoutMs; waits add their own timeoutSeconds). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ClientOptions {
  /** The server, e.g. http://localhost:8025 (default: the INBOXD_URL environment variable). */
  url?: string;
  /** An API key (ibx_…) or access token (ibt_…) (default: the INBOXD_KEY environment variable). */
  key?: string;
  /** Milliseconds a call may take before it fails with code client_timeout (default 30000). */
  timeoutMs?: number;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

/** The verify answer plus the three things a test uses: the code, the link, and the action to take. */
export type Verification = VerifyResult & {
  /** The one-time code, or null when the mail had none. */
  code: string | null;
  /** The verification link to open once (the unwrapped target when a click-tracker wrapped it), or null. */
  link: string | null;
  /** What to do next: type the code, open the link, read the mail (manual), wait again (retry). */
  action: PrimaryAction;
};

const HINTS: Record<number, string> = {
  400: 'fix the request as the errors say',
  401: 'pass a valid API key: ClientOptions.key or INBOXD_KEY (at first start inboxd saves its admin key in inboxd-data/admin.key)',
  403: 'this key may not do it: it is read-only, scoped to another label prefix, or not an admin key',
  404: 'the inbox or message does not exist: deleted, expired (ttlMinutes), or outside the key’s label scope',
  408: 'no matching mail arrived in time: check that the application sent it to this address, or raise timeoutSeconds',
  409: 'the address is taken by another inbox: choose another localPart or address',
  413: 'the request or message is larger than the server accepts',
  415: 'send JSON with content-type application/json',
  429: 'too many requests or open waits for this key: slow down or retry after the time the server named',
  501: 'this server is not configured for it: the detail names the flag to set',
  503: 'the server is shutting down or its queue is full: retry in a moment',
};

/** A failed call: the HTTP status and problem details of inboxd's answer, or code client_timeout / network. */
export class InboxdError extends Error {
  override readonly name = 'InboxdError';
  /** HTTP status, or 0 when no answer arrived. */
  readonly status: number;
  /** The problem code (`not_found`, `wait_timeout`, …), or `client_timeout`, `network`, `verify_timeout`. */
  readonly code: string;
  /** The server's explanation, or ours. */
  readonly detail: string;
  /** What to do about it. */
  readonly hint: string;
  /** The whole problem+json answer, when there was one. */
  readonly problem: Problem | null;
  /** e.g. `POST /v1/inboxes`. */
  readonly request: string;
  constructor(
    request: string,
    status: number,
    code: string,
    detail: string,
    hint: string,
    problem: Problem | null = null,
    cause?: unknown,
  ) {
    super(`${request} → ${status ? `${status} ` : ''}${code}: ${detail}${hint ? ` (${hint})` : ''}`, { cause });
    this.request = request;
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.hint = hint;
    this.problem = problem;
  }
}

/** The input of any operation: path parameters, query and body, as the OpenAPI document types them. */
export type CallInput<K extends OperationId> = {
  path?: Op<K>['pathParams'];
  query?: Op<K>['query'];
  body?: Op<K>['body'];
};

function env(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
}

export class InboxdClient {
  readonly url: string;
  readonly timeoutMs: number;
  readonly #key: string;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions = {}) {
    const url = options.url ?? env('INBOXD_URL');
    const key = options.key ?? env('INBOXD_KEY');
    if (!url) throw new TypeError('inboxd client: no server URL: pass { url } or set INBOXD_URL (e.g. http://localhost:8025)');
    if (!key) throw new TypeError('inboxd client: no API key: pass { key } or set INBOXD_KEY (the admin key is in inboxd-data/admin.key)');
    this.url = url.replace(/\/+$/, '');
    this.#key = key;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  /** Any operation of the API by its operationId, typed from the OpenAPI document. */
  async call<K extends OperationId>(operation: K, input: CallInput<K> = {}, options: CallOptions = {}): Promise<Op<K>['response']> {
    const { method, path } = OPERATIONS[operation];
    const params = (input.path ?? {}) as Record<string, string>;
    let target = path.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (params[name] === undefined) throw new TypeError(`${operation}: the path parameter ${name} is missing`);
      return encodeURIComponent(params[name]);
    });
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries((input.query ?? {}) as Record<string, unknown>)) if (v !== undefined) query.set(k, String(v));
    const qs = query.toString();
    if (qs) target += `?${qs}`;
    const request = `${method} ${target}`;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const timer = AbortSignal.timeout(timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timer]) : timer;
    const headers: Record<string, string> = { authorization: `Bearer ${this.#key}`, accept: 'application/json' };
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await this.#fetch(this.url + target, {
        method,
        headers,
        body: input.body === undefined ? null : JSON.stringify(input.body),
        signal,
      });
      text = await res.text();
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (timer.aborted)
        throw new InboxdError(
          request,
          0,
          'client_timeout',
          `no answer from ${this.url} within ${timeoutMs} ms`,
          'is inboxd running and reachable there? raise timeoutMs for a slow server',
          null,
          err,
        );
      throw new InboxdError(
        request,
        0,
        'network',
        `could not reach inboxd at ${this.url}: ${(err as Error).cause ?? (err as Error).message}`,
        'start the server or set INBOXD_URL to where it listens',
        null,
        err,
      );
    }
    if (res.ok) return (text ? JSON.parse(text) : null) as Op<K>['response'];
    throw errorOf(request, res, text);
  }

  /** A fresh inbox (201). Its label groups the inboxes of one CI run; ttlMinutes (default 60) removes it later. */
  async createInbox(body: CreateInboxOptions = {}, options: CallOptions = {}): Promise<Inbox> {
    return new Inbox(this, await this.call('inboxes.create', { body }, options));
  }

  /** An inbox that already exists, by id (GET /v1/inboxes/:id). */
  async getInbox(inboxId: string, options: CallOptions = {}): Promise<Inbox> {
    return new Inbox(this, await this.call('inboxes.get', { path: { id: inboxId } }, options));
  }

  /**
   * The newest message matching the filters that arrived after `since`: at once when it is there, else as soon as it
   * arrives. No mail within timeoutSeconds (default 30, at most 120) → InboxdError code `wait_timeout` (408).
   */
  waitForMessage(inboxId: string, wait: WaitOptions = {}, options: CallOptions = {}): Promise<Message> {
    const seconds = wait.timeoutSeconds ?? 30;
    return this.call(
      'inboxes.wait',
      { path: { id: inboxId }, query: wait },
      { ...options, timeoutMs: options.timeoutMs ?? seconds * 1000 + this.timeoutMs },
    );
  }

  /**
   * Waits for the verification mail of an inbox and answers its code, link and action. Nothing within timeoutSeconds
   * (default 60, at most 120) → InboxdError code `verify_timeout`. Mail without a code or link answers
   * status `received` with code and link null (action `manual`).
   */
  async verify(inboxId: string, body: Omit<VerifyBody, 'inboxId'> = {}, options: CallOptions = {}): Promise<Verification> {
    const seconds = body.timeoutSeconds ?? 60;
    const r = await this.call(
      'agent.verify',
      { body: { ...body, inboxId, timeoutSeconds: seconds } },
      { ...options, timeoutMs: options.timeoutMs ?? seconds * 1000 + this.timeoutMs },
    );
    if (r.status === 'timeout') {
      const earlier = r.alreadyHandedOut
        ? `; a matching message did arrive but an earlier verify handed it out already: pass since ${r.alreadyHandedOut.since} to get it again`
        : '';
      throw new InboxdError(
        'POST /v1/agent/verify',
        200,
        'verify_timeout',
        `no mail with a code or link reached ${r.email.address} within ${seconds} s${earlier}`,
        HINTS[408]!,
      );
    }
    const v = r.verification;
    return { ...r, code: v.otp, link: v.primaryLinkUnwrapped ?? v.primaryLink, action: r.agent.primaryAction };
  }

  /** Delivers a simulated mail (otp, magic_link, otp_and_link, welcome, attachment_only, custom) through the real ingest path. */
  simulate(inboxId: string, body: SimulateOptions = {}, options: CallOptions = {}): Promise<SimulateResult> {
    return this.call('inboxes.simulate', { path: { id: inboxId }, body }, options);
  }

  /** Sends mail from the inbox's own address: delivered locally to inboxes of this server, else through the relay. */
  send(inboxId: string, body: SendOptions, options: CallOptions = {}): Promise<SendResult> {
    return this.call('messages.send', { path: { id: inboxId }, body }, options);
  }

  /** Searches every inbox the key may see (or one, with inboxId) with inboxd's query language. */
  search(q: string, query: SearchOptions = {}, options: CallOptions = {}): Promise<SearchResult> {
    return this.call('messages.search_all', { query: { ...query, q } }, options);
  }

  /** Deletes an inbox with its mail. `missingOk`: an inbox that is already gone (404) is not an error. */
  async deleteInbox(inboxId: string, options: CallOptions & { missingOk?: boolean } = {}): Promise<boolean> {
    try {
      await this.call('inboxes.delete', { path: { id: inboxId } }, options);
      return true;
    } catch (err) {
      if (options.missingOk && err instanceof InboxdError && err.status === 404) return false;
      throw err;
    }
  }
}

function errorOf(request: string, res: Response, text: string): InboxdError {
  let problem: Problem | null = null;
  try {
    const p = JSON.parse(text) as Problem;
    if (p && typeof p === 'object' && typeof p.code === 'string') problem = p;
  } catch {}
  let detail = problem?.detail ?? (text.trim().slice(0, 500) || res.statusText);
  if (problem?.errors?.length) detail += ` [${problem.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}]`;
  let hint = HINTS[res.status] ?? (res.status >= 500 ? 'a server error: see the inboxd log line with this request id' : '');
  const retry = res.headers.get('retry-after');
  if (retry) hint += ` (Retry-After: ${retry} s)`;
  const id = res.headers.get('x-request-id');
  if (id) hint += ` [request id ${id}]`;
  return new InboxdError(request, res.status, problem?.code ?? `http_${res.status}`, detail, hint, problem);
}

/** An inbox and the daily calls on it. `info` is the server's answer as created. */
export class Inbox {
  readonly id: string;
  readonly address: string;
  readonly info: InboxInfo;
  readonly client: InboxdClient;
  constructor(client: InboxdClient, info: InboxInfo) {
    this.client = client;
    this.info = info;
    this.id = info.inboxId;
    this.address = info.address;
  }
  waitForMessage(wait: WaitOptions = {}, options: CallOptions = {}): Promise<Message> {
    return this.client.waitForMessage(this.id, wait, options);
  }
  verify(body: Omit<VerifyBody, 'inboxId'> = {}, options: CallOptions = {}): Promise<Verification> {
    return this.client.verify(this.id, body, options);
  }
  simulate(body: SimulateOptions = {}, options: CallOptions = {}): Promise<SimulateResult> {
    return this.client.simulate(this.id, body, options);
  }
  send(body: SendOptions, options: CallOptions = {}): Promise<SendResult> {
    return this.client.send(this.id, body, options);
  }
  search(q: string, query: Omit<SearchOptions, 'inboxId'> = {}, options: CallOptions = {}): Promise<SearchResult> {
    return this.client.search(q, { ...query, inboxId: this.id }, options);
  }
  delete(options: CallOptions & { missingOk?: boolean } = {}): Promise<boolean> {
    return this.client.deleteInbox(this.id, options);
  }
}
