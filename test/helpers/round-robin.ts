// A load balancer with no stickiness at all, for cluster tests (issue 33): every HTTP request goes to the next
// upstream in turn, whatever session it belongs to, so a session's initialize, its calls, its GET stream and its
// DELETE land on different instances. It can add a bearer key to every request (for clients that send none).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobin {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** Requests sent to each upstream, in the order given. */
  sent: number[];
  /** Which upstream (index) served each request, in arrival order, with its method and session id. */
  log: Array<{ upstream: number; method: string; session: string | null; body: string }>;
  stop(): Promise<void>;
}

export async function roundRobin(upstreams: string[], opts: { key?: string } = {}): Promise<RoundRobin> {
  const targets = upstreams.map((u) => new URL(u));
  let turn = 0;
  const rr: RoundRobin = { url: '', sent: targets.map(() => 0), log: [], stop: async () => undefined };
  const server = http.createServer((req, res) => {
    const i = turn++ % targets.length;
    const target = targets[i]!;
    rr.sent[i]!++;
    const sid = req.headers['mcp-session-id'];
    const entry = { upstream: i, method: req.method ?? '', session: typeof sid === 'string' ? sid : null, body: '' };
    rr.log.push(entry);
    const headers = { ...req.headers, host: target.host, ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}) };
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.on('data', (d: Buffer) => {
      if (entry.body.length < 500) entry.body += d.toString('utf8').slice(0, 500);
    });
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  rr.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rr.stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return rr;
}
