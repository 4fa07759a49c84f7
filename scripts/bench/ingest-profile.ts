// Where the CPU time of SMTP ingest goes: runs Postfix smtp-source (20 sessions × 5 KB) against inboxd in both
// connection modes (a new connection per message, and kept connections with -d) and reads each inboxd thread's CPU
// time from /proc before and after, plus smtp-source's own CPU time (via /usr/bin/time when present). Prints µs of
// CPU per message by thread kind: main thread (SMTP protocol, SQLite), ingest workers (parse, extract, blob files),
// V8 helpers (parallel garbage collection and compilation), libuv pool (thread-pool file I/O and crypto).
// smtp-matrix.ts reports the same per-thread figures for its measured runs; this one is the longer, quieter look.
//   node scripts/bench/ingest-profile.ts [--messages 20000] [--sessions 20] [--size 5120] [--modes new,kept] [--source]
//     [--baseline DIR] [--gc]
// --gc runs the server with V8's --trace-gc and adds the GC pauses on each isolate's own thread (part of that
// thread's CPU above; tracing costs a little and the build's code cache is not used, so the rate is a bit lower).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { addCpu, emptyTotals, gcTracker, perMessage, sampleCpu } from './cpu.ts';
import { buildBinary, machine, postfixTool, report, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '20000' },
    sessions: { type: 'string', default: '20' },
    size: { type: 'string', default: '5120' },
    modes: { type: 'string', default: 'new,kept' },
    source: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    gc: { type: 'boolean', default: false },
  },
});
const startedOn = machine();
const messages = Number(values.messages);
const tool = postfixTool('smtp-source');
const gc = gcTracker();
const srv = await startInboxd([], {
  source: values.source,
  ...(values.baseline ? { binary: buildBinary(values.baseline) } : {}),
  ...(values.gc ? { nodeFlags: ['--trace-gc'], onStdout: gc.feed } : {}),
});
const pid = srv.child.pid!;
const nproc = startedOn.nproc as number;

const lines: string[] = [];
const modes: Record<string, unknown> = {};
try {
  const inbox = (await (await srv.api('/v1/inboxes', { method: 'POST', json: { localPart: 'profile', ttlMinutes: 60 } })).json()) as {
    address: string;
  };
  const common = ['-l', values.size, '-f', 'load@example.com', '-t', inbox.address, `127.0.0.1:${srv.smtp}`];
  for (const mode of values.modes.split(',').filter(Boolean)) {
    const keep = mode === 'kept' ? ['-d'] : [];
    const args = [...keep, '-s', values.sessions, '-m', String(messages), ...common];
    spawnSync(tool.cmd, [...keep, '-s', '4', '-m', '500', ...common], { env: tool.env }); // warm-up
    const before = sampleCpu(pid);
    const gcBefore = gc.snapshot();
    const t0 = performance.now();
    const timed = fs.existsSync('/usr/bin/time');
    const r = timed
      ? spawnSync('/usr/bin/time', ['-f', '%U %S', tool.cmd, ...args], { env: tool.env, encoding: 'utf8' })
      : spawnSync(tool.cmd, args, { env: tool.env, encoding: 'utf8' });
    const seconds = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`smtp-source (${mode}) failed: ${r.stderr}`);
    const totals = emptyTotals();
    addCpu(totals, before, sampleCpu(pid), messages);
    const per = perMessage(totals);
    const client = timed
      ? Math.round(
          (r.stderr
            .trim()
            .split('\n')
            .at(-1)!
            .split(' ')
            .reduce((s, x) => s + Number(x) * 1000, 0) *
            1000) /
            messages,
        )
      : null;
    lines.push(
      `${mode === 'kept' ? 'kept connections (-d)' : 'new connection per message'}: ${messages} messages in ${seconds.toFixed(2)} s = ${Math.round(messages / seconds)} msg/s; CPU per message:`,
    );
    for (const [k, v] of Object.entries(per.byKind))
      lines.push(`  ${k.padEnd(36)} ${String(v.us).padStart(5)} µs  (${v.threads} thread(s))`);
    lines.push(`  ${'inboxd, whole process'.padEnd(36)} ${String(per.processUs).padStart(5)} µs`);
    const gcUs: Record<string, number> = {};
    if (values.gc) {
      await new Promise((r) => setTimeout(r, 200)); // the last trace lines are read
      for (const [label, ms] of gc.snapshot()) {
        gcUs[label] = Math.round(((ms - (gcBefore.get(label) ?? 0)) * 1000) / messages);
        lines.push(`  ${`  of which GC pauses, ${label}`.padEnd(36)} ${String(gcUs[label]).padStart(5)} µs`);
      }
    }
    if (client !== null) lines.push(`  ${'smtp-source (load client)'.padEnd(36)} ${String(client).padStart(5)} µs`);
    const all = per.processUs + (client ?? 0);
    lines.push(`  → at most ${Math.round((nproc * 1e6) / all)} msg/s on ${nproc} cores with inboxd and the client sharing them`);
    modes[mode] = {
      seconds: Math.round(seconds * 100) / 100,
      perSecond: Math.round(messages / seconds),
      cpuMicrosPerMessage: per.byKind,
      processMicros: per.processUs,
      loadClientMicros: client,
      ...(values.gc ? { gcPauseMicros: gcUs } : {}),
    };
  }
  report('ingest-profile', { kind: srv.kind, messages, machine: startedOn, modes }, lines);
} finally {
  await srv.stop();
}
