// Latency from SMTP end-of-DATA to a waiting HTTP client (GET …/wait) receiving the message, with 50 waiters.
//   node scripts/bench/wait-latency.ts [--waiters 50] [--messages 1000] [--source]
import { parseArgs } from 'node:util';
import { percentile, report, SmtpSession, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    waiters: { type: 'string', default: '50' },
    messages: { type: 'string', default: '1000' },
    source: { type: 'boolean', default: false },
  },
});
const waiters = Number(values.waiters);
const messages = Number(values.messages);

const srv = await startInboxd([], { source: values.source });
try {
  const inboxes: Array<{
    inboxId: string;
    address: string;
    since: string | null;
    pending: Promise<{ messageId: string; at: number }> | null;
  }> = [];
  for (let i = 0; i < waiters; i++) {
    const r = (await (await srv.api('/v1/inboxes', { method: 'POST', json: { label: 'wait-bench' } })).json()) as {
      inboxId: string;
      address: string;
    };
    inboxes.push({ ...r, since: null, pending: null });
  }
  const arm = (ib: (typeof inboxes)[number]) => {
    const q = `timeoutSeconds=60${ib.since ? `&since=${ib.since}` : ''}`;
    ib.pending = srv.api(`/v1/inboxes/${ib.inboxId}/wait?${q}`).then(async (res) => {
      const at = performance.now();
      if (res.status !== 200) throw new Error(`wait answered ${res.status}: ${await res.text()}`);
      return { messageId: ((await res.json()) as { messageId: string }).messageId, at };
    });
  };
  inboxes.forEach(arm);
  await new Promise((r) => setTimeout(r, 300)); // let all waiters register
  const smtp = await SmtpSession.open(srv.smtp);
  const samples: number[] = [];
  const body = `Subject: Your code is 482913\nFrom: bench@example.com\n\nUse 482913 to sign in.\n${'filler line\n'.repeat(40)}`;
  for (let n = 0; n < messages; n++) {
    const ib = inboxes[n % waiters]!;
    const { reply, endOfData } = await smtp.send('bench@example.com', ib.address, body);
    if (!reply.startsWith('250')) throw new Error(`SMTP: ${reply}`);
    const got = await ib.pending!;
    samples.push(got.at - endOfData);
    ib.since = got.messageId;
    arm(ib);
    if (n % waiters === waiters - 1) await new Promise((r) => setTimeout(r, 20)); // re-armed waiters register
  }
  smtp.close();
  for (const ib of inboxes) ib.pending?.catch(() => undefined);
  samples.sort((a, b) => a - b);
  const f = (x: number) => Math.round(x * 100) / 100;
  const figures = {
    kind: srv.kind,
    waiters,
    messages,
    p50ms: f(percentile(samples, 50)),
    p90ms: f(percentile(samples, 90)),
    p99ms: f(percentile(samples, 99)),
    maxMs: f(samples.at(-1)!),
  };
  report('wait-latency', figures, [
    `wait-latency (${srv.kind}): ${messages} messages, ${waiters} concurrent waiters: end-of-DATA → client has the message p50 ${figures.p50ms} ms, p90 ${figures.p90ms} ms, p99 ${figures.p99ms} ms, max ${figures.maxMs} ms`,
  ]);
} finally {
  await srv.stop();
  process.exit(process.exitCode ?? 0);
}
