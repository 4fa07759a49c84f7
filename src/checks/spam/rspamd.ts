// An rspamd client: `POST <url>/checkv2` with the raw message and what the SMTP session knew (IP, Helo, From, Rcpt
// headers), answered `{score, required_score, action, symbols{NAME:{score, description}}}`. rspamd's verdict is its
// action: `add header`, `rewrite subject`, `soft reject` and `reject` mean spam. Its threshold: the score of its
// first spam action (`add header`/`rewrite subject`) from `GET <url>/actions` when the URL is the controller worker
// (port 11334, which also serves /checkv2); a normal worker (11333) has no /actions, and then it is `required_score`
// (the reject score) that checkv2 reports.
import type { EngineVerdict } from './spamd.ts';
import { EngineUnavailable } from './spamd.ts';

const MAX_REPLY = 1024 * 1024;
const SPAM_ACTIONS = new Set(['add header', 'rewrite subject', 'soft reject', 'reject']);

export interface RspamdFacts {
  clientIp: string | null;
  helo: string | null;
  mailFrom: string | null;
  rcpts: string[];
}

async function readBounded(res: Response, where: string): Promise<string> {
  const len = Number(res.headers.get('content-length') ?? 0);
  if (len > MAX_REPLY) throw new EngineUnavailable(`${where} answered ${len} bytes (limit ${MAX_REPLY})`);
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_REPLY) {
      await reader.cancel();
      throw new EngineUnavailable(`${where} answered more than ${MAX_REPLY} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class RspamdClient {
  private readonly base: string;
  private readonly timeoutMs: number;
  private thresholdMemo: Promise<number | null> | null = null;

  constructor(url: string, timeoutMs: number) {
    this.base = url.replace(/\/+$/, '');
    this.timeoutMs = timeoutMs;
  }

  private where(): string {
    return `rspamd at ${this.base} (--rspamd)`;
  }

  private async call(path: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    try {
      return await fetch(`${this.base}${path}`, { ...init, signal: AbortSignal.any([signal, AbortSignal.timeout(this.timeoutMs)]) });
    } catch (e) {
      const err = e as Error & { cause?: { code?: string } };
      if (err.name === 'TimeoutError')
        throw new EngineUnavailable(`${this.where()} did not answer within ${this.timeoutMs} ms (--spam-timeout-ms)`);
      if (signal.aborted) throw new EngineUnavailable(`${this.where()} was not asked: the check was cancelled`);
      throw new EngineUnavailable(
        `${this.where()} could not be reached (${err.cause?.code ?? err.message}); start rspamd there or leave --rspamd unset for the built-in lint`,
      );
    }
  }

  /** The first spam action's score from the controller's /actions, once per client (null when not offered). */
  private threshold(signal: AbortSignal): Promise<number | null> {
    this.thresholdMemo ??= (async () => {
      try {
        const res = await this.call('/actions', { method: 'GET' }, signal);
        if (!res.ok) {
          await res.body?.cancel();
          return null;
        }
        const list = JSON.parse(await readBounded(res, this.where())) as Array<{ action: string; value: number | null }>;
        const spam = list.filter((a) => (a.action === 'add header' || a.action === 'rewrite subject') && typeof a.value === 'number');
        return spam.length ? Math.min(...spam.map((a) => a.value as number)) : null;
      } catch {
        return null;
      }
    })();
    const p = this.thresholdMemo;
    // A failed lookup is asked again next time (the daemon may have been restarted as the controller).
    void p.then((v) => {
      if (v === null && this.thresholdMemo === p) this.thresholdMemo = null;
    });
    return p;
  }

  async check(raw: Buffer, facts: RspamdFacts, signal: AbortSignal): Promise<EngineVerdict> {
    const headers: Record<string, string> = { 'content-type': 'message/rfc822' };
    if (facts.clientIp) headers.IP = facts.clientIp;
    if (facts.helo) headers.Helo = facts.helo;
    if (facts.mailFrom) headers.From = facts.mailFrom;
    const rcpts = facts.rcpts.slice(0, 50);
    const init: RequestInit = {
      method: 'POST',
      body: new Uint8Array(raw),
      headers: [...Object.entries(headers), ...rcpts.map((r) => ['Rcpt', r] as [string, string])],
    };
    const res = await this.call('/checkv2', init, signal);
    const text = await readBounded(res, this.where());
    if (!res.ok) throw new EngineUnavailable(`${this.where()} answered HTTP ${res.status}: ${text.slice(0, 200)}`);
    let body: {
      score?: unknown;
      required_score?: unknown;
      action?: unknown;
      symbols?: Record<string, { score?: number; description?: string; options?: string[] }>;
    };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new EngineUnavailable(`${this.where()} did not answer JSON: ${text.slice(0, 120)}`);
    }
    if (typeof body.score !== 'number') throw new EngineUnavailable(`${this.where()} answered without a score`);
    const action = typeof body.action === 'string' ? body.action : 'no action';
    const threshold = (await this.threshold(signal)) ?? (typeof body.required_score === 'number' ? body.required_score : 15);
    return {
      engine: 'rspamd',
      isSpam: SPAM_ACTIONS.has(action),
      score: body.score,
      threshold,
      action,
      rules: Object.entries(body.symbols ?? {}).map(([name, s]) => ({
        name,
        score: typeof s.score === 'number' ? s.score : 0,
        description: [s.description ?? '', s.options?.length ? `(${s.options.slice(0, 5).join(', ')})` : ''].join(' ').trim(),
      })),
    };
  }
}
