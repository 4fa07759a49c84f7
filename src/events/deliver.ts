// One callback attempt: resolve the host, check the address against the target policy, connect to exactly that
// address (Host header and TLS SNI keep the original name), POST, and report what happened. Never follows redirects.
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup } from '../lib/addresses.ts';
import { hostOf, type ResolvedAddress, type Resolver, resolveTarget, type TargetPolicy, TargetRefused } from './targets.ts';

export interface AttemptRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  policy: TargetPolicy;
  resolve: Resolver;
  agents: { http: http.Agent; https: https.Agent };
  /** Aborts the attempt without an outcome (server shutdown). */
  signal: AbortSignal;
}

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  /** The target is not allowed: retrying cannot help. */
  refused: boolean;
  /** Cut short by `signal`: nothing is known, nothing is recorded. */
  aborted: boolean;
}

/** Response bodies are read and thrown away; a receiver that sends more than this is cut off. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export async function attemptDelivery(req: AttemptRequest): Promise<AttemptOutcome> {
  const url = new URL(req.url);
  let target: ResolvedAddress;
  try {
    target = await resolveTarget(url, req.policy, req.resolve);
  } catch (e) {
    if (e instanceof TargetRefused) return { statusCode: null, error: `target refused: ${e.message}`, refused: true, aborted: false };
    const code = (e as NodeJS.ErrnoException).code;
    return { statusCode: null, error: `cannot resolve ${hostOf(url)}: ${code ?? (e as Error).message}`, refused: false, aborted: false };
  }
  if (req.signal.aborted) return { statusCode: null, error: null, refused: false, aborted: true };
  return post(url, target, req);
}

/** Always answers with the address already checked, whatever the connection asks for. */
function post(url: URL, target: ResolvedAddress, req: AttemptRequest): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (o: Omit<AttemptOutcome, 'refused' | 'aborted'> & { aborted?: boolean }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.signal.removeEventListener('abort', onAbort);
      resolve({ statusCode: o.statusCode, error: o.error, refused: false, aborted: o.aborted ?? false });
    };
    const secure = url.protocol === 'https:';
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(req.body)),
      ...req.headers,
    };
    if (url.username || url.password) {
      headers.authorization =
        'Basic ' + Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64');
    }
    const options: https.RequestOptions = {
      method: 'POST',
      hostname: hostOf(url),
      port: url.port || (secure ? 443 : 80),
      path: url.pathname + url.search,
      headers,
      agent: secure ? req.agents.https : req.agents.http,
      lookup: pinnedLookup(target),
    };
    const r = (secure ? https : http).request(options, (res) => {
      const statusCode = res.statusCode ?? 0;
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > MAX_RESPONSE_BYTES) res.destroy();
      });
      const done = () => finish({ statusCode, error: describeStatus(statusCode, res.headers.location) });
      res.once('end', done);
      res.once('close', done);
      res.once('error', done);
    });
    r.once('error', (e: NodeJS.ErrnoException) => {
      if (req.signal.aborted) return finish({ statusCode: null, error: null, aborted: true });
      finish({
        statusCode: null,
        error: e.message === TIMEOUT ? `no response within ${req.timeoutMs} ms` : `${e.code ?? 'error'}: ${e.message}`,
      });
    });
    const timer = setTimeout(() => r.destroy(new Error(TIMEOUT)), req.timeoutMs);
    const onAbort = () => r.destroy(new Error('aborted'));
    req.signal.addEventListener('abort', onAbort, { once: true });
    r.end(req.body);
  });
}

const TIMEOUT = 'attempt timed out';

function describeStatus(status: number, location: string | undefined): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400)
    return `HTTP ${status}: redirects are not followed${location ? ` (Location: ${location.slice(0, 200)})` : ''}`;
  return `HTTP ${status}`;
}
