// Delivery latency, end of SMTP DATA → the subscriber has the message, through every channel inboxd offers, each
// with 50 concurrent subscribers on 50 inboxes: the long-poll wait (GET …/wait), the SSE stream (GET …/events), the
// MCP tool call svc_wait_for_message with a progress token (its result arrives on the streamable-HTTP response), and
// the signed callback POST to a local receiver. Messages go one at a time, round-robin over the inboxes.
//   node scripts/bench/latency.ts [--waiters 50] [--messages 500] [--source]
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BENCH_KEY, type Inboxd, machine, percentile, report, round, SmtpSession, sleep, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    waiters: { type: 'string', default: '50' },
    messages: { type: 'string', default: '500' },
    source: { type: 'boolean', default: false },
  },
});
const waiters = Number(values.waiters);
const messages = Number(values.messages);

interface Channel {
  name: string;
  /** Prepares the subscriber of each inbox; `next(i)` resolves when inbox i's next message reached its subscriber. */
  setup(
    srv: Inboxd,
    inboxes: Array<{ inboxId: string; address: string }>,
  ): Promise<{ next(i: number): Promise<number>; close(): Promise<void> }>;
}

/** A promise per inbox for "the next arrival", re-armed after each one. */
function arrivals(n: number) {
  const pending: Array<{ promise: Promise<number>; resolve: (t: number) => void }> = [];
  const arm = (i: number) => {
    let resolve!: (t: number) => void;
    const promise = new Promise<number>((r) => (resolve = r));
    pending[i] = { promise, resolve };
  };
  for (let i = 0; i < n; i++) arm(i);
  return {
    arrived(i: number, at: number) {
      const p = pending[i]!;
      arm(i);
      p.resolve(at);
    },
    next: (i: number) => pending[i]!.promise,
  };
}

const waitChannel: Channel = {
  name: 'wait (HTTP long-poll)',
  async setup(srv, inboxes) {
    const a = arrivals(inboxes.length);
    const since: Array<string | null> = inboxes.map(() => null);
    let closed = false;
    const ac = new AbortController();
    const loop = async (i: number) => {
      while (!closed) {
        const res = await srv
          .api(`/v1/inboxes/${inboxes[i]!.inboxId}/wait?timeoutSeconds=60${since[i] ? `&since=${since[i]}` : ''}`, { signal: ac.signal })
          .catch(() => null);
        if (!res || closed) return;
        const at = performance.now();
        if (res.status !== 200) continue;
        since[i] = ((await res.json()) as { messageId: string }).messageId;
        a.arrived(i, at);
      }
    };
    inboxes.forEach((_, i) => void loop(i));
    return {
      next: a.next,
      async close() {
        closed = true;
        ac.abort();
      },
    };
  },
};

const sseChannel: Channel = {
  name: 'SSE (GET …/events)',
  async setup(srv, inboxes) {
    const a = arrivals(inboxes.length);
    const controllers: AbortController[] = [];
    await Promise.all(
      inboxes.map(async (ib, i) => {
        const ac = new AbortController();
        controllers.push(ac);
        const res = await srv.api(`/v1/inboxes/${ib.inboxId}/events`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
        if (res.status !== 200) throw new Error(`events answered ${res.status}`);
        const reader = res.body!.getReader();
        const dec = new TextDecoder();
        let buf = '';
        void (async () => {
          try {
            for (;;) {
              const { done, value } = await reader.read();
              if (done) return;
              const at = performance.now();
              buf += dec.decode(value, { stream: true });
              let k: number;
              while ((k = buf.indexOf('\n\n')) >= 0) {
                const frame = buf.slice(0, k);
                buf = buf.slice(k + 2);
                if (frame.includes('event: message.received')) a.arrived(i, at);
              }
            }
          } catch {
            // aborted
          }
        })();
      }),
    );
    return {
      next: a.next,
      close: async () => {
        for (const c of controllers) c.abort();
      },
    };
  },
};

const mcpChannel: Channel = {
  name: 'MCP (svc_wait_for_message, progress token)',
  async setup(srv, inboxes) {
    const a = arrivals(inboxes.length);
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${srv.http}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${BENCH_KEY}` } },
    });
    const client = new Client({ name: 'inboxd-bench', version: '1.0.0' });
    await client.connect(transport);
    const since: Array<string | null> = inboxes.map(() => null);
    let closed = false;
    const loop = async (i: number) => {
      while (!closed) {
        const args: Record<string, unknown> = {
          inboxId: inboxes[i]!.inboxId,
          timeoutSeconds: 60,
          ...(since[i] ? { since: since[i] } : {}),
        };
        const r = await client
          .callTool({ name: 'svc_wait_for_message', arguments: args }, undefined, { onprogress: () => undefined, timeout: 120_000 })
          .catch(() => null);
        if (!r || closed) return;
        const at = performance.now();
        const sc = r.structuredContent as { messageId?: string } | undefined;
        if (r.isError || !sc?.messageId) continue;
        since[i] = sc.messageId;
        a.arrived(i, at);
      }
    };
    inboxes.forEach((_, i) => void loop(i));
    return {
      next: a.next,
      async close() {
        closed = true;
        await client.close().catch(() => undefined);
      },
    };
  },
};

let receiver: { url: string; onPost: (inboxId: string, at: number) => void; server: http.Server } | null = null;
const callbackChannel: Channel = {
  name: 'callback (signed POST)',
  async setup(_srv, inboxes) {
    const a = arrivals(inboxes.length);
    const index = new Map(inboxes.map((ib, i) => [ib.inboxId, i]));
    receiver!.onPost = (inboxId, at) => {
      const i = index.get(inboxId);
      if (i !== undefined) a.arrived(i, at);
    };
    return { next: a.next, close: async () => undefined };
  },
};

async function startReceiver(): Promise<NonNullable<typeof receiver>> {
  const r = { url: '', onPost: (_id: string, _at: number) => undefined as undefined, server: null as unknown as http.Server };
  r.server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      try {
        const j = JSON.parse(body) as { data?: { inboxId?: string }; inboxId?: string };
        r.onPost(j.data?.inboxId ?? j.inboxId ?? '', at);
      } catch {
        // not ours
      }
    });
  });
  await new Promise<void>((res) => r.server.listen(0, '127.0.0.1', () => res()));
  r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}/cb`;
  return r;
}

const results: Record<string, unknown> = {};
const lines: string[] = [];
receiver = await startReceiver();
const srv = await startInboxd(['--allow-http-callbacks', '--allow-private-callbacks'], { source: values.source });
try {
  for (const ch of [waitChannel, sseChannel, mcpChannel, callbackChannel]) {
    const inboxes: Array<{ inboxId: string; address: string }> = [];
    for (let i = 0; i < waiters; i++) {
      const json = ch === callbackChannel ? { label: 'latency', callbackUrl: receiver.url } : { label: 'latency' };
      const res = await srv.api('/v1/inboxes', { method: 'POST', json });
      if (res.status !== 201) throw new Error(`create inbox: ${res.status} ${await res.text()}`);
      inboxes.push((await res.json()) as { inboxId: string; address: string });
    }
    const sub = await ch.setup(srv, inboxes);
    await sleep(500); // every subscriber is registered
    const smtp = await SmtpSession.open(srv.smtp);
    const samples: number[] = [];
    const body = `Subject: Your code is 482913\nFrom: bench@example.com\n\nUse 482913 to sign in.\n${'filler line\n'.repeat(40)}`;
    const warm = Math.min(50, Math.floor(messages / 10));
    for (let n = 0; n < messages + warm; n++) {
      const i = n % waiters;
      const arrived = sub.next(i);
      const { reply, endOfData } = await smtp.send('bench@example.com', inboxes[i]!.address, body);
      if (!reply.startsWith('250')) throw new Error(`SMTP: ${reply}`);
      const at = await Promise.race([arrived, sleep(10_000).then(() => NaN)]);
      if (Number.isNaN(at)) throw new Error(`${ch.name}: message ${n} did not arrive within 10 s`);
      if (n >= warm) samples.push(at - endOfData);
      if (i === waiters - 1) await sleep(20); // re-armed subscribers are registered again
    }
    smtp.close();
    await sub.close();
    samples.sort((x, y) => x - y);
    const fig = {
      p50ms: round(percentile(samples, 50)),
      p90ms: round(percentile(samples, 90)),
      p99ms: round(percentile(samples, 99)),
      maxMs: round(samples.at(-1)!),
      samples: samples.length,
    };
    results[ch.name] = fig;
    lines.push(
      `${ch.name.padEnd(44)} p50 ${String(fig.p50ms).padStart(6)} ms   p99 ${String(fig.p99ms).padStart(6)} ms   max ${String(fig.maxMs).padStart(7)} ms   (${samples.length} messages, ${waiters} subscribers)`,
    );
    console.log(lines.at(-1));
  }
} finally {
  await srv.stop();
  receiver.server.close();
}
report('latency', { kind: srv.kind, waiters, messages, machine: machine(), channels: results }, []);
process.exit(process.exitCode ?? 0);
