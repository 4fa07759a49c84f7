// Latency of a lone message (nothing else in flight, so no batch to share a commit with): end of SMTP DATA → the
// 250 reply, and end of DATA → a client waiting on the inbox has it, by long-poll (GET …/wait) and by SSE
// (GET …/events; both subscribers are on the inbox at once). With `--baseline DIR` an earlier build runs beside this
// one in the same run, the messages taking turns between the two servers (A B, B A, …) so both see the same machine,
// and new ÷ old is printed for each figure.
//   node scripts/bench/lone-latency.ts [--messages 300] [--gap-ms 25] [--baseline DIR] [--source]
import { parseArgs } from 'node:util';
import { buildBinary, type Inboxd, machine, percentile, report, round, SmtpSession, sleep, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '300' },
    'gap-ms': { type: 'string', default: '25' },
    baseline: { type: 'string' },
    source: { type: 'boolean', default: false },
  },
});
const startedOn = machine();
const messages = Number(values.messages);
const gap = Number(values['gap-ms']);
const METRICS = ['250 reply', 'wait (long-poll)', 'SSE'] as const;
type Metric = (typeof METRICS)[number];

interface Build {
  label: string;
  srv: Inboxd;
  inbox: { inboxId: string; address: string };
  smtp: SmtpSession;
  since: string | null;
  /** resolves at the next SSE message.received frame */
  nextSse: () => Promise<number>;
  closeSse: () => void;
  samples: Record<Metric, number[]>;
}

async function open(label: string, binary?: string): Promise<Build> {
  const srv = await startInboxd([], { source: values.source, ...(binary ? { binary } : {}) });
  const res = await srv.api('/v1/inboxes', { method: 'POST', json: { label: 'lone-latency' } });
  if (res.status !== 201) throw new Error(`${label}: creating the inbox answered ${res.status}: ${await res.text()}`);
  const inbox = (await res.json()) as { inboxId: string; address: string };
  const ac = new AbortController();
  const sse = await srv.api(`/v1/inboxes/${inbox.inboxId}/events`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
  if (sse.status !== 200) throw new Error(`${label}: events answered ${sse.status}`);
  const waiter: { resolve: ((t: number) => void) | null } = { resolve: null };
  const reader = sse.body!.getReader();
  const dec = new TextDecoder();
  void (async () => {
    let buf = '';
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
          if (frame.includes('event: message.received')) {
            waiter.resolve?.(at);
            waiter.resolve = null;
          }
        }
      }
    } catch {
      // aborted at the end
    }
  })();
  return {
    label,
    srv,
    inbox,
    smtp: await SmtpSession.open(srv.smtp),
    since: null,
    nextSse: () => new Promise<number>((r) => (waiter.resolve = r)),
    closeSse: () => ac.abort(),
    samples: { '250 reply': [], 'wait (long-poll)': [], SSE: [] },
  };
}

const body = `Subject: Your code is 482913\nFrom: bench@example.com\n\nUse 482913 to sign in.\n${'filler line\n'.repeat(40)}`;

async function one(b: Build, keep: boolean): Promise<void> {
  const wait = b.srv.api(`/v1/inboxes/${b.inbox.inboxId}/wait?timeoutSeconds=30${b.since ? `&since=${b.since}` : ''}`).then(async (res) => {
    const at = performance.now();
    if (res.status !== 200) throw new Error(`${b.label}: wait answered ${res.status}: ${await res.text()}`);
    b.since = ((await res.json()) as { messageId: string }).messageId;
    return at;
  });
  const sse = b.nextSse();
  await sleep(gap); // the waiter is registered and the previous message is long done: this one is alone
  const { reply, endOfData, replyAt } = await b.smtp.send('bench@example.com', b.inbox.address, body);
  if (!reply.startsWith('250')) throw new Error(`${b.label}: SMTP answered ${reply}`);
  const timeout = sleep(10_000).then(() => NaN);
  const [w, s] = await Promise.all([Promise.race([wait, timeout]), Promise.race([sse, timeout])]);
  if (Number.isNaN(w) || Number.isNaN(s)) throw new Error(`${b.label}: the message did not reach the waiting clients within 10 s`);
  if (!keep) return;
  b.samples['250 reply'].push(replyAt - endOfData);
  b.samples['wait (long-poll)'].push(w - endOfData);
  b.samples.SSE.push(s - endOfData);
}

const builds: Build[] = [];
const figures: Record<string, Record<Metric, { p50ms: number; p90ms: number; p99ms: number; maxMs: number }>> = {};
const lines: string[] = [];
try {
  builds.push(await open('inboxd'));
  if (values.baseline) builds.push(await open('inboxd (baseline)', buildBinary(values.baseline)));
  const warm = Math.min(30, Math.ceil(messages / 10));
  for (let n = 0; n < messages + warm; n++) for (const b of n % 2 ? [...builds].reverse() : builds) await one(b, n >= warm);
} finally {
  for (const b of builds) {
    b.smtp.close();
    b.closeSse();
    await b.srv.stop();
  }
}

for (const b of builds) {
  const f = {} as Record<Metric, { p50ms: number; p90ms: number; p99ms: number; maxMs: number }>;
  for (const m of METRICS) {
    const s = b.samples[m].sort((x, y) => x - y);
    f[m] = { p50ms: round(percentile(s, 50)), p90ms: round(percentile(s, 90)), p99ms: round(percentile(s, 99)), maxMs: round(s.at(-1)!) };
  }
  figures[b.label] = f;
}
const ratios: Record<string, { p50: number; p99: number }> = {};
const goals: Array<{ goal: string; value: number | null; max: number; status: 'PASS' | 'MISS' | 'n/a' }> = [];
const base = figures['inboxd (baseline)'];
for (const m of METRICS) {
  const nw = figures.inboxd![m];
  lines.push(
    `${('end of DATA → ' + m).padEnd(32)} inboxd p50 ${String(nw.p50ms).padStart(6)} ms  p90 ${String(nw.p90ms).padStart(6)} ms  p99 ${String(nw.p99ms).padStart(6)} ms  max ${String(nw.maxMs).padStart(7)} ms`,
  );
  if (base) {
    const old = base[m];
    ratios[m] = { p50: round(nw.p50ms / old.p50ms), p99: round(nw.p99ms / old.p99ms) };
    lines.push(
      `${''.padEnd(32)} baseline p50 ${String(old.p50ms).padStart(4)} ms  p90 ${String(old.p90ms).padStart(6)} ms  p99 ${String(old.p99ms).padStart(6)} ms  max ${String(old.maxMs).padStart(7)} ms   new ÷ old: p50 ${ratios[m].p50}, p99 ${ratios[m].p99}`,
    );
  }
  // Issue 30: not worse than the baseline build; 5 % is the run-to-run noise of these medians on this machine.
  const value = ratios[m]?.p50 ?? null;
  goals.push({
    goal: `lone message, end of DATA → ${m}: p50 not worse than the baseline build (≤ 1.05 ×)`,
    value,
    max: 1.05,
    status: value === null ? 'n/a' : value <= 1.05 ? 'PASS' : 'MISS',
  });
}
for (const g of goals) lines.push(`${g.status.padEnd(4)} ${g.goal}: ${g.value ?? 'no baseline in this run (--baseline DIR)'}`);
report(
  'lone-latency',
  {
    kind: builds[0]?.srv.kind,
    baseline: values.baseline ?? null,
    messages,
    gapMs: gap,
    machine: startedOn,
    builds: figures,
    ratios,
    goals,
  },
  lines,
);
process.exit(process.exitCode ?? 0);
