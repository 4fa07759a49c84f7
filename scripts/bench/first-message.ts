// The first message a server analyses after it started, and after a quiet spell: end of DATA → 250, each message on a
// new SMTP session as a lone sender does it. The ingest workers start with the first mail session and stop after 5
// minutes without mail (src/ingest/analyzer.ts): these are the messages that wait for a worker to start. With
// --baseline DIR an earlier build is measured the same way, one after the other.
//   node scripts/bench/first-message.ts [--idle-seconds 305] [--rounds 1] [--baseline DIR] [--source]
import { parseArgs } from 'node:util';
import { buildBinary, machine, report, SmtpSession, sleep, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    'idle-seconds': { type: 'string', default: '305' },
    rounds: { type: 'string', default: '1' },
    baseline: { type: 'string' },
    source: { type: 'boolean', default: false },
  },
});
const idle = Number(values['idle-seconds']);
const rounds = Number(values.rounds);
const body = 'Subject: Your code\nFrom: no-reply@example.com\n\nYour verification code is 482913.\n';

async function measure(label: string, binary?: string): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = { afterStart: [], warm: [], afterIdle: [] };
  for (let r = 0; r < rounds; r++) {
    const srv = await startInboxd([], { source: values.source, ...(binary ? { binary } : {}) });
    try {
      const ib = (await (await srv.api('/v1/inboxes', { method: 'POST', json: { label: 'first' } })).json()) as { address: string };
      const one = async () => {
        const s = await SmtpSession.open(srv.smtp);
        const m = await s.send('no-reply@example.com', ib.address, body);
        s.close();
        if (!m.reply.startsWith('250')) throw new Error(`${label}: ${m.reply}`);
        return Math.round((m.replyAt - m.endOfData) * 10) / 10;
      };
      await sleep(1000);
      out.afterStart!.push(await one());
      for (let i = 0; i < 5; i++) out.warm!.push(await one());
      await sleep(idle * 1000);
      out.afterIdle!.push(await one());
    } finally {
      await srv.stop();
    }
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const builds: Record<string, Record<string, number[]>> = { inboxd: await measure('inboxd') };
if (values.baseline) builds['inboxd (baseline)'] = await measure('baseline', buildBinary(values.baseline));
const lines: string[] = [];
for (const [label, b] of Object.entries(builds))
  lines.push(
    `${label.padEnd(18)} end of DATA → 250: first after start ${median(b.afterStart!)} ms, warm ${median(b.warm!)} ms, first after ${idle} s idle ${median(b.afterIdle!)} ms (medians of ${rounds} servers)`,
  );
report('first-message', { machine: machine(), idleSeconds: idle, rounds, builds }, lines);
