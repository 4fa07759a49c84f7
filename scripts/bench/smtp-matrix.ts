// SMTP ingest side by side: the same Postfix smtp-source load against inboxd (durable: 250 only once the message is
// stored), Postfix smtp-sink (discards everything: the protocol ceiling), MailDev (npm maildev, writing each message
// to a folder) and Haraka (a production Node MTA, each message written to its own file and fsynced before the 250),
// all running at once, in both connection modes: a new connection per message (smtp-source's default) and kept
// connections (`smtp-source -d`, how an MTA delivers a batch). Each target gets one or two calibration runs (also
// its warm-up) that size its runs to ~`--seconds`, then `--rounds` measured runs, the targets taking turns in alternating order (A B C D, D C B A, …)
// so a busy moment of the machine does not land on one of them; the median is reported. inboxd's CPU per message per
// thread comes from /proc before and after each of its runs. With `--baseline DIR` an earlier build runs as one more
// target (new ÷ old).
//   node scripts/bench/smtp-matrix.ts [--quick] [--cells 20x5,1x5,20x1,20x100] [--modes new,kept] [--rounds 3]
//     [--seconds 5] [--peers sink,maildev,haraka] [--haraka-nodes cpus] [--baseline DIR] [--source]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { addCpu, type CpuTotals, emptyTotals, perMessage, sampleCpu } from './cpu.ts';
import { buildBinary, machine, report, round, rssMb, smtpSource, startInboxd } from './lib.ts';
import { type Peer, startHaraka, startMaildev, startSink } from './peers.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    source: { type: 'boolean', default: false },
    peers: { type: 'string', default: 'sink,maildev,haraka' },
    cells: { type: 'string' },
    modes: { type: 'string', default: 'new,kept' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string' },
    baseline: { type: 'string' },
    'haraka-nodes': { type: 'string', default: 'cpus' },
  },
});
const startedOn = machine();
const quick = values.quick;
const rounds = Number(values.rounds);
const seconds = Number(values.seconds ?? (quick ? '1.5' : '5'));

type Mode = 'new' | 'kept';
const MODE_TEXT: Record<Mode, string> = {
  new: 'new connection per message',
  kept: 'kept connections (smtp-source -d)',
};
const modes = values.modes.split(',').filter(Boolean) as Mode[];
for (const m of modes) if (m !== 'new' && m !== 'kept') throw new Error(`--modes: "${m}" is neither new nor kept`);

interface Cell {
  sessions: number;
  size: number;
}
const cells: Cell[] = (values.cells ?? (quick ? '20x5' : '20x5,1x5,20x1,20x100')).split(',').map((c) => {
  const m = /^(\d+)x(\d+)$/.exec(c.trim());
  if (!m) throw new Error(`--cells: "${c}" is not SESSIONSxKB, e.g. 20x5`);
  return { sessions: Number(m[1]), size: Number(m[2]) * 1024 };
});
const cellText = (c: Cell) => `${c.sessions} × ${c.size / 1024} KB`;
const isHeadline = (c: Cell) => c.sessions === 20 && c.size === 5120;

interface Target {
  name: string;
  port: number;
  to: string;
  /** inboxd builds: the pid whose threads are sampled */
  cpuPid?: number;
  stored?(): Promise<number>;
  reset?(): Promise<void>;
  stop(): Promise<void>;
}

async function inboxdTarget(name: string, binary?: string): Promise<Target & { kind: string; pid: number }> {
  const srv = await startInboxd([], { source: values.source, ...(binary ? { binary } : {}) });
  const res = await srv.api('/v1/inboxes', { method: 'POST', json: { localPart: 'matrix', ttlMinutes: 600 } });
  if (res.status !== 201) throw new Error(`${name}: creating the inbox answered ${res.status}: ${await res.text()}`);
  const inbox = (await res.json()) as { inboxId: string; address: string };
  return {
    name,
    kind: srv.kind,
    pid: srv.child.pid!,
    port: srv.smtp,
    to: inbox.address,
    cpuPid: srv.child.pid!,
    async stored() {
      const got = (await (await srv.api(`/v1/inboxes/${inbox.inboxId}`)).json()) as { messagesReceived: number };
      return got.messagesReceived;
    },
    stop: () => srv.stop(),
  };
}

const peerTarget = (p: Peer): Target => ({ ...p, to: 'anyone@inboxd.test' });

interface Row {
  target: string;
  sessions: number;
  size: number;
  mode: Mode;
  round: number;
  messages: number;
  seconds: number;
  perSecond: number;
  mbPerSecond: number;
  stored?: number;
  ok: boolean;
  /** 1-minute load average when the run started */
  load1: number;
}
const rows: Row[] = [];
const cpu = new Map<string, CpuTotals>(); // `${target}|${cell}|${mode}` → totals over the measured runs

async function run(t: Target, c: Cell, mode: Mode, messages: number, r: number): Promise<Row> {
  await t.reset?.();
  const load1 = round(os.loadavg()[0]!);
  const storedBefore = t.stored ? await t.stored() : 0;
  const before = t.cpuPid ? sampleCpu(t.cpuPid) : null;
  const res = await smtpSource({ port: t.port, ...c, messages, to: t.to, keep: mode === 'kept' });
  if (before && r > 0) {
    const key = `${t.name}|${cellText(c)}|${mode}`;
    const totals = cpu.get(key) ?? emptyTotals();
    addCpu(totals, before, sampleCpu(t.cpuPid!), messages);
    cpu.set(key, totals);
  }
  const stored = t.stored ? (await t.stored()) - storedBefore : undefined;
  const row: Row = {
    target: t.name,
    ...c,
    mode,
    round: r,
    messages,
    seconds: round(res.seconds, 3),
    perSecond: Math.round(messages / res.seconds),
    mbPerSecond: round((messages * c.size) / res.seconds / 1048576, 1),
    ...(stored !== undefined ? { stored } : {}),
    ok: res.ok && (stored === undefined || stored === messages),
    load1,
  };
  if (!row.ok)
    console.log(`  ${t.name}: ${res.ok ? `stored ${stored} of ${messages}` : `smtp-source failed: ${res.stderr.trim().slice(0, 300)}`}`);
  return row;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2]! : (s[n / 2 - 1]! + s[n / 2]!) / 2;
};

// ---- start everything -----------------------------------------------------------------------------------------
const targets: Target[] = [];
const notes: string[] = [];
let kind = '';
let mainPid = 0;
let calibrationFailed = false;
const wanted = new Set(values.peers.split(',').filter(Boolean));
try {
  const main = await inboxdTarget('inboxd');
  kind = main.kind;
  mainPid = main.pid;
  targets.push(main);
  if (values.baseline) targets.push(await inboxdTarget('inboxd (baseline)', buildBinary(values.baseline)));
  const starters: Array<[string, () => Promise<Peer>]> = [
    ['sink', startSink],
    ['maildev', startMaildev],
    ['haraka', () => startHaraka({ nodes: values['haraka-nodes'] })],
  ];
  for (const [id, start] of starters) {
    if (!wanted.has(id)) continue;
    try {
      targets.push(peerTarget(await start()));
    } catch (e) {
      const msg = `${id} could not be started, so it is missing from this run: ${(e as Error).message}`;
      notes.push(msg);
      console.log(msg);
    }
  }

  // ---- measure ------------------------------------------------------------------------------------------------
  for (const c of cells)
    for (const mode of modes) {
      console.log(`\n${cellText(c)}, ${MODE_TEXT[mode]}:`);
      const sized = new Map<string, number>();
      for (const t of targets) {
        let cal = await run(t, c, mode, Math.max(c.sessions * 20, 100), 0);
        // a short first run is mostly warm-up (JIT, caches) and underrates the fast targets: size again from a
        // second calibration run of about half the measured length
        if (cal.ok && cal.seconds < seconds / 3)
          cal = await run(t, c, mode, Math.max(c.sessions * 10, Math.round((cal.perSecond * seconds) / 2)), 0);
        if (!cal.ok) calibrationFailed = true;
        sized.set(t.name, Math.min(200_000, Math.max(c.sessions * 10, 50, Math.round(cal.perSecond * seconds))));
      }
      for (let r = 1; r <= rounds; r++) {
        const order = r % 2 ? targets : [...targets].reverse();
        for (const t of order) {
          const row = await run(t, c, mode, sized.get(t.name)!, r);
          rows.push(row);
          console.log(
            `  round ${r} ${t.name.padEnd(18)} ${String(row.perSecond).padStart(6)} msg/s ${String(row.mbPerSecond).padStart(6)} MB/s (${row.messages} in ${row.seconds} s)${row.stored !== undefined ? ` stored ${row.stored}/${row.messages}` : ''}`,
          );
        }
      }
    }
} finally {
  if (mainPid) {
    try {
      notes.push(`inboxd RSS after the runs: ${rssMb(mainPid)} MB`);
    } catch {
      // already gone
    }
  }
  for (const t of targets) await t.stop();
}

// ---- summarise ----------------------------------------------------------------------------------------------------
const names = targets.map((t) => t.name);
const summary = cells.flatMap((c) =>
  modes.map((mode) => {
    const med: Record<string, { perSecond: number; mbPerSecond: number; runs: number[] }> = {};
    for (const n of names) {
      const rs = rows.filter((r) => r.target === n && r.mode === mode && r.sessions === c.sessions && r.size === c.size);
      if (rs.length === 0) continue;
      med[n] = {
        perSecond: Math.round(median(rs.map((r) => r.perSecond))),
        mbPerSecond: round(median(rs.map((r) => r.mbPerSecond)), 1),
        runs: rs.map((r) => r.perSecond),
      };
    }
    const i = med.inboxd?.perSecond;
    const ratio = (n: string) => (i && med[n]?.perSecond ? round(i / med[n].perSecond) : null);
    return {
      sessions: c.sessions,
      size: c.size,
      mode,
      medians: med,
      ratios: {
        inboxdToSink: ratio('smtp-sink'),
        inboxdToMaildev: ratio('MailDev'),
        inboxdToHaraka: ratio('Haraka'),
        newToBaseline: ratio('inboxd (baseline)'),
      },
    };
  }),
);

const cpuReport = [...cpu].map(([key, totals]) => {
  const [target, cell, mode] = key.split('|') as [string, string, Mode];
  return { target, cell, mode, messages: totals.messages, ...perMessage(totals) };
});

/** The targets of issue 30, on the headline cell (20 sessions × 5 KB). */
const goals: Array<{ goal: string; value: number | null; min: number; status: 'PASS' | 'MISS' | 'n/a' }> = [];
for (const s of summary.filter((x) => isHeadline(x))) {
  const m = s.mode === 'new' ? 'new connection' : 'kept connections';
  const add = (goal: string, value: number | null, min: number) =>
    goals.push({ goal, value, min, status: value === null ? 'n/a' : value >= min ? 'PASS' : 'MISS' });
  add(`${m}: inboxd ≥ ${s.mode === 'new' ? 2.5 : 1.5} × MailDev`, s.ratios.inboxdToMaildev, s.mode === 'new' ? 2.5 : 1.5);
  add(`${m}: inboxd ≥ 1.5 × Haraka`, s.ratios.inboxdToHaraka, 1.5);
}

const lines: string[] = [''];
const num = (x: number | undefined | null) => (x === undefined || x === null ? '—' : x.toLocaleString('en-US'));
for (const s of summary) {
  lines.push(`${cellText(s)}, ${MODE_TEXT[s.mode]}: msg/s, median of ${rounds} (the runs)`);
  for (const [n, f] of Object.entries(s.medians))
    lines.push(`  ${n.padEnd(18)} ${num(f.perSecond).padStart(7)}  ${String(f.mbPerSecond).padStart(6)} MB/s  (${f.runs.join(', ')})`);
  const r = s.ratios;
  lines.push(
    `  inboxd ÷ smtp-sink ${r.inboxdToSink ?? '—'}   inboxd ÷ MailDev ${r.inboxdToMaildev ?? '—'}   inboxd ÷ Haraka ${r.inboxdToHaraka ?? '—'}${r.newToBaseline !== null ? `   new ÷ baseline ${r.newToBaseline}` : ''}`,
  );
}
// Issue 30: whole-process CPU per message on kept connections ≤ 40 % of the baseline build's in the same run.
{
  const kept = (name: string) => cpuReport.find((c) => c.target === name && c.mode === 'kept' && c.cell === '20 × 5 KB');
  const now = kept('inboxd');
  const then = kept('inboxd (baseline)');
  const value = now && then && then.processUs > 0 ? Math.round((now.processUs / then.processUs) * 100) / 100 : null;
  goals.push({
    goal: 'kept connections: whole-process CPU per message ≤ 0.4 × the baseline build',
    value,
    min: 0.4,
    status: value === null ? 'n/a' : value <= 0.4 ? 'PASS' : 'MISS',
  });
}
for (const c of cpuReport.filter((x) => x.cell === '20 × 5 KB' || cells.length === 1)) {
  lines.push(`CPU per message, ${c.target}, ${c.cell}, ${MODE_TEXT[c.mode]} (${c.messages} messages):`);
  for (const [k, v] of Object.entries(c.byKind)) lines.push(`  ${k.padEnd(36)} ${String(v.us).padStart(5)} µs  (${v.threads} thread(s))`);
  lines.push(`  ${'whole process'.padEnd(36)} ${String(c.processUs).padStart(5)} µs`);
}
for (const g of goals) lines.push(`${g.status.padEnd(4)} ${g.goal}: ${g.value ?? 'not measured'}`);
lines.push(...notes);

report(
  'smtp-matrix',
  { kind, machine: startedOn, rounds, secondsPerRun: seconds, modes, rows, summary, cpu: cpuReport, goals, notes },
  lines,
);
if (calibrationFailed || rows.some((r) => !r.ok)) process.exitCode = 1;
