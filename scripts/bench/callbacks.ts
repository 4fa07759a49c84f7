// Callback delivery: p50 delay from SMTP end-of-DATA to the receiver's request, and deliveries/s to a local receiver.
//   node scripts/bench/callbacks.ts [--inboxes 20] [--latency 500] [--messages 5000] [--sessions 8] [--targets 1] [--source]
// --targets N spreads the inboxes over N callback URLs (each URL has at most 8 attempts in flight).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { percentile, report, SmtpSession, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    inboxes: { type: 'string', default: '20' },
    latency: { type: 'string', default: '500' },
    messages: { type: 'string', default: '5000' },
    sessions: { type: 'string', default: '8' },
    targets: { type: 'string', default: '1' },
    source: { type: 'boolean', default: false },
  },
});
const inboxCount = Number(values.inboxes);
const latencyRuns = Number(values.latency);
const messages = Number(values.messages);
const sessions = Number(values.sessions);
const targets = Number(values.targets);

// The receiver: checks every signature (as a real one would) and notes when each message's callback arrived.
const secrets = new Map<string, Buffer>();
const arrived = new Map<string, number>();
const waiting = new Map<string, (at: number) => void>();
let received = 0;
let badSignatures = 0;
let lastArrival = 0;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    const body = Buffer.concat(chunks).toString('utf8');
    const { data } = JSON.parse(body) as { data: { inboxId: string; subject: string } };
    const key = secrets.get(data.inboxId);
    const id = String(req.headers['webhook-id']);
    const ts = String(req.headers['webhook-timestamp']);
    const want = key ? 'v1,' + crypto.createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64') : '';
    if (String(req.headers['webhook-signature']) !== want) badSignatures++;
    received++;
    lastArrival = at;
    arrived.set(data.subject, at);
    waiting.get(data.subject)?.(at);
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const srv = await startInboxd(['--allow-http-callbacks', '--allow-private-callbacks'], { source: values.source });
try {
  const inboxes: Array<{ inboxId: string; address: string }> = [];
  for (let i = 0; i < inboxCount; i++) {
    const res = await srv.api('/v1/inboxes', {
      method: 'POST',
      json: { label: 'callback-bench', callbackUrl: `${hookBase}/${i % targets}` },
    });
    if (res.status !== 201) throw new Error(`create inbox: ${res.status} ${await res.text()}`);
    const r = (await res.json()) as { inboxId: string; address: string; callbackSecret: string };
    secrets.set(r.inboxId, Buffer.from(r.callbackSecret.slice('whsec_'.length), 'base64'));
    inboxes.push(r);
  }
  const body = (subject: string) => `Subject: ${subject}\nFrom: bench@example.com\n\nUse 482913 to sign in.\n${'filler line\n'.repeat(40)}`;

  // 1. Latency: one message at a time, end-of-DATA → the receiver has the request.
  const smtp = await SmtpSession.open(srv.smtp);
  const samples: number[] = [];
  for (let n = 0; n < latencyRuns; n++) {
    const subject = `lat-${n}`;
    const got = new Promise<number>((r) => waiting.set(subject, r));
    const { reply, endOfData } = await smtp.send('bench@example.com', inboxes[n % inboxCount]!.address, body(subject));
    if (!reply.startsWith('250')) throw new Error(`SMTP: ${reply}`);
    samples.push((await got) - endOfData);
    waiting.delete(subject);
  }
  smtp.close();

  // 2. Throughput: many senders at once; deliveries/s from the first end-of-DATA to the last callback received.
  const before = received;
  const t0 = performance.now();
  let smtpDone = 0;
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      const session = await SmtpSession.open(srv.smtp);
      for (let n = s; n < messages; n += sessions) {
        const { reply } = await session.send('bench@example.com', inboxes[n % inboxCount]!.address, body(`thr-${n}`));
        if (!reply.startsWith('250')) throw new Error(`SMTP: ${reply}`);
      }
      session.close();
    }),
  );
  smtpDone = performance.now();
  const deadline = Date.now() + 120_000;
  while (received - before < messages && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  if (received - before < messages) throw new Error(`only ${received - before}/${messages} callbacks arrived within 120 s`);
  const seconds = (lastArrival - t0) / 1000;

  samples.sort((a, b) => a - b);
  const f = (x: number) => Math.round(x * 100) / 100;
  const figures = {
    kind: srv.kind,
    inboxes: inboxCount,
    targets,
    latencyMessages: latencyRuns,
    p50ms: f(percentile(samples, 50)),
    p90ms: f(percentile(samples, 90)),
    p99ms: f(percentile(samples, 99)),
    messages,
    sessions,
    deliveriesPerSecond: Math.round(messages / seconds),
    smtpMessagesPerSecond: Math.round(messages / ((smtpDone - t0) / 1000)),
    badSignatures,
  };
  if (badSignatures > 0) process.exitCode = 1;
  report('callbacks', figures, [
    `callbacks (${srv.kind}): end-of-DATA → receiver has the signed POST: p50 ${figures.p50ms} ms, p90 ${figures.p90ms} ms, p99 ${figures.p99ms} ms (${latencyRuns} messages, one at a time)`,
    `callbacks (${srv.kind}): ${figures.deliveriesPerSecond} deliveries/s to ${targets} local receiver URL(s) (${messages} messages from ${sessions} SMTP sessions; SMTP side ${figures.smtpMessagesPerSecond} msg/s); bad signatures: ${badSignatures}`,
  ]);
} finally {
  await srv.stop();
  receiver.close();
  process.exit(process.exitCode ?? 0);
}
