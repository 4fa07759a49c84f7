// Where the CPU time of SMTP ingest goes: runs Postfix smtp-source (20 sessions × 5 KB) against inboxd and reads
// each inboxd thread's CPU time from /proc before and after, plus smtp-source's own CPU time (via /usr/bin/time).
// Prints µs of CPU per message by thread kind: MainThread (SMTP protocol, SQLite), WorkerThread (parse, extract,
// blob files), V8Worker (garbage collection and compilation helpers), libuv-worker (thread-pool file I/O).
//   node scripts/bench/ingest-profile.ts [--messages 20000] [--sessions 20] [--size 5120] [--source]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { machine, postfixTool, report, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '20000' },
    sessions: { type: 'string', default: '20' },
    size: { type: 'string', default: '5120' },
    source: { type: 'boolean', default: false },
  },
});
const messages = Number(values.messages);
const tool = postfixTool('smtp-source');
const srv = await startInboxd([], { source: values.source });
const pid = srv.child.pid!;
const tick = 1000 / 100; // ms per clock tick (USER_HZ 100)

function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const st = fs.readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const name = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')'));
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      out.set(`${t} ${name}`, (Number(f[11]) + Number(f[12])) * tick);
    } catch {
      // the thread ended
    }
  }
  return out;
}

try {
  const inbox = (await (await srv.api('/v1/inboxes', { method: 'POST', json: { localPart: 'profile', ttlMinutes: 60 } })).json()) as {
    address: string;
  };
  const args = [
    '-s',
    values.sessions,
    '-m',
    String(messages),
    '-l',
    values.size,
    '-f',
    'load@example.com',
    '-t',
    inbox.address,
    `127.0.0.1:${srv.smtp}`,
  ];
  spawnSync(tool.cmd, ['-s', '4', '-m', '500', ...args.slice(4)], { env: tool.env });
  const before = threadCpu();
  const t0 = performance.now();
  const timed = fs.existsSync('/usr/bin/time');
  const r = timed
    ? spawnSync('/usr/bin/time', ['-f', '%U %S', tool.cmd, ...args], { env: tool.env, encoding: 'utf8' })
    : spawnSync(tool.cmd, args, { env: tool.env, encoding: 'utf8' });
  const seconds = (performance.now() - t0) / 1000;
  const after = threadCpu();
  const byKind = new Map<string, number>();
  for (const [k, v] of after) {
    const kind = k.slice(k.indexOf(' ') + 1);
    byKind.set(kind, (byKind.get(kind) ?? 0) + v - (before.get(k) ?? 0));
  }
  const loadClient = timed
    ? r.stderr
        .trim()
        .split('\n')
        .at(-1)!
        .split(' ')
        .reduce((s, x) => s + Number(x) * 1000, 0)
    : NaN;
  if (timed) byKind.set('smtp-source (load client)', loadClient);
  const perMsg = Object.fromEntries(
    [...byKind]
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, Math.round((v * 1000) / messages)]),
  );
  const total = Object.values(perMsg).reduce((s, x) => s + x, 0);
  const lines = [`${messages} messages in ${seconds.toFixed(2)} s = ${Math.round(messages / seconds)} msg/s; CPU per message by thread:`];
  for (const [k, v] of Object.entries(perMsg)) lines.push(`  ${k.padEnd(28)} ${String(v).padStart(5)} µs`);
  lines.push(
    `  ${'total'.padEnd(28)} ${String(total).padStart(5)} µs → at most ${Math.round(((machine().nproc as number) * 1e6) / total)} msg/s on ${machine().nproc} cores`,
  );
  report(
    'ingest-profile',
    {
      kind: srv.kind,
      messages,
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round(messages / seconds),
      cpuMicrosPerMessage: perMsg,
      totalMicros: total,
      machine: machine(),
    },
    lines,
  );
} finally {
  await srv.stop();
}
