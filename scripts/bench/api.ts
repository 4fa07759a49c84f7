// API throughput and tail latency with autocannon (50 connections): message list, message get, extract, and verify
// in its create-only form (a fresh inbox per call). The inbox read from holds 1,000 messages (Postfix smtp-source).
//   node scripts/bench/api.ts [--seconds 10] [--connections 50] [--source]
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { BENCH_KEY, machine, report, rssMb, smtpSource, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    source: { type: 'boolean', default: false },
  },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);

const srv = await startInboxd([], { source: values.source });
const results: Record<string, unknown> = {};
const lines: string[] = [];
try {
  const inbox = (await (await srv.api('/v1/inboxes', { method: 'POST', json: { localPart: 'apibench', ttlMinutes: 600 } })).json()) as {
    inboxId: string;
    address: string;
  };
  const fill = await smtpSource({ port: srv.smtp, sessions: 10, size: 5120, messages: 1000, to: inbox.address });
  if (!fill.ok) throw new Error(`smtp-source: ${fill.stderr}`);
  const list = (await (await srv.api(`/v1/inboxes/${inbox.inboxId}/messages?limit=1`)).json()) as { items: Array<{ messageId: string }> };
  const messageId = list.items[0]!.messageId;
  const base = `http://127.0.0.1:${srv.http}`;
  const auth = { authorization: `Bearer ${BENCH_KEY}` };
  const cases: Array<{ name: string; opts: Partial<autocannon.Options> }> = [
    { name: 'message list (50 of 1,000)', opts: { url: `${base}/v1/inboxes/${inbox.inboxId}/messages?limit=50` } },
    { name: 'message get', opts: { url: `${base}/v1/inboxes/${inbox.inboxId}/messages/${messageId}` } },
    { name: 'extract (newest message)', opts: { url: `${base}/v1/inboxes/${inbox.inboxId}/extract` } },
    {
      name: 'verify, create-only',
      opts: {
        url: `${base}/v1/agent/verify`,
        method: 'POST',
        body: JSON.stringify({ service: 'github' }),
        headers: { ...auth, 'content-type': 'application/json' },
      },
    },
  ];
  for (const c of cases) {
    // warm-up
    await autocannon({ url: c.opts.url!, connections: 10, duration: 1, headers: auth, ...c.opts });
    const r = await autocannon({ connections, duration, headers: auth, ...c.opts, url: c.opts.url! });
    const fig = {
      reqPerSec: Math.round(r.requests.average),
      p50ms: r.latency.p50,
      p99ms: r.latency.p99,
      maxMs: r.latency.max,
      requests: r.requests.total,
      non2xx: r.non2xx,
      errors: r.errors,
    };
    results[c.name] = fig;
    lines.push(
      `${c.name.padEnd(28)} ${String(fig.reqPerSec).padStart(7)} req/s   p50 ${String(fig.p50ms).padStart(4)} ms   p99 ${String(fig.p99ms).padStart(4)} ms   (${fig.requests} requests, ${fig.non2xx} non-2xx, ${fig.errors} errors)`,
    );
    console.log(lines.at(-1));
    if (fig.non2xx > 0 || fig.errors > 0) process.exitCode = 1;
  }
  results.rssMbAfter = rssMb(srv.child.pid!);
} finally {
  await srv.stop();
}
report('api', { kind: srv.kind, connections, seconds: duration, machine: machine(), endpoints: results }, []);
