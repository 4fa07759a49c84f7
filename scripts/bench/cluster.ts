// Ingest msg/s on PostgreSQL with one and two inboxd instances, beside the SQLite default, in one run (issue 20).
// The same executable in every cell; Postfix's smtp-source drives the load (new connection per message, the way
// a signup form's mailer delivers), split evenly over the instances of a cell, both halves in parallel.
//   node scripts/bench/cluster.ts [--messages 6000] [--sessions 20] [--size 5120] [--rounds 3] [--keep]
// One 2-core machine runs PostgreSQL, every instance and the load client: the two-instance cell measures what a
// shared database costs, not what a second machine would add (see docs/benchmarks.md).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres } from '../../test/helpers/postgres.ts';
import { type Inboxd, machine, report, round, smtpSource, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '6000' },
    sessions: { type: 'string', default: '20' },
    size: { type: 'string', default: '5120' },
    rounds: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    source: { type: 'boolean', default: false },
  },
});
const messages = Number(values.messages);
const sessions = Number(values.sessions);
const size = Number(values.size);
const rounds = Number(values.rounds);

interface Cell {
  name: string;
  instances: number;
  engine: 'sqlite' | 'postgres';
}
const CELLS: Cell[] = [
  { name: 'SQLite, 1 instance (default)', instances: 1, engine: 'sqlite' },
  { name: 'PostgreSQL, 1 instance', instances: 1, engine: 'postgres' },
  { name: 'PostgreSQL, 2 instances', instances: 2, engine: 'postgres' },
];

const pg = await startPostgres();
const results: Record<string, { perSecond: number[]; stored: number[]; cpuSecondsPg: number[] }> = {};
let dbCount = 0;

/** CPU seconds PostgreSQL's processes used so far (all its backends; children of the postmaster). */
function pgCpuSeconds(): number {
  const tick = 100;
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmd.startsWith('postgres')) continue;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / tick;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

async function runCell(cell: Cell): Promise<{ perSecond: number; stored: number; pgCpu: number }> {
  const args: string[] = [];
  if (cell.engine === 'postgres') args.push('--database', await pg.createDatabase(`bench_${++dbCount}`));
  const servers: Inboxd[] = [];
  try {
    for (let i = 0; i < cell.instances; i++) servers.push(await startInboxd(args, { source: values.source }));
    const first = servers[0] as Inboxd;
    const inbox = (await (await first.api('/v1/inboxes', { method: 'POST', json: { localPart: 'bench', ttlMinutes: 60 } })).json()) as {
      inboxId: string;
      address: string;
    };
    // warm-up on every instance
    await Promise.all(
      servers.map((s) => smtpSource({ port: s.smtp, sessions: 4, size, messages: 200, to: inbox.address, keep: values.keep })),
    );
    const before = ((await (await first.api(`/v1/inboxes/${inbox.inboxId}`)).json()) as { messagesReceived: number }).messagesReceived;
    const cpu0 = cell.engine === 'postgres' ? pgCpuSeconds() : 0;
    const share = Math.floor(messages / servers.length);
    const t0 = performance.now();
    const runs = await Promise.all(
      servers.map((s) =>
        smtpSource({
          port: s.smtp,
          sessions: Math.max(1, Math.floor(sessions / servers.length)),
          size,
          messages: share,
          to: inbox.address,
          keep: values.keep,
        }),
      ),
    );
    const seconds = (performance.now() - t0) / 1000;
    for (const r of runs) if (!r.ok) throw new Error(`smtp-source failed: ${r.stderr}`);
    const after = ((await (await first.api(`/v1/inboxes/${inbox.inboxId}`)).json()) as { messagesReceived: number }).messagesReceived;
    return {
      perSecond: Math.round((share * servers.length) / seconds),
      stored: after - before,
      pgCpu: cell.engine === 'postgres' ? round(pgCpuSeconds() - cpu0, 1) : 0,
    };
  } finally {
    for (const s of servers) await s.stop();
  }
}

try {
  // Rounds alternate the cells, so a change in the machine's load spreads over all of them.
  for (let r = 0; r < rounds; r++) {
    for (const cell of CELLS) {
      const out = await runCell(cell);
      const slot = (results[cell.name] ??= { perSecond: [], stored: [], cpuSecondsPg: [] });
      slot.perSecond.push(out.perSecond);
      slot.stored.push(out.stored);
      slot.cpuSecondsPg.push(out.pgCpu);
      console.log(`round ${r + 1}: ${cell.name}: ${out.perSecond} msg/s, stored ${out.stored}/${messages - (messages % cell.instances)}`);
    }
  }
} finally {
  await pg.stop();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const base = median(results[CELLS[0]!.name]!.perSecond);
const lines = [
  `cluster ingest: ${messages} × ${size} B, ${sessions} sessions split over the instances, ${values.keep ? 'kept connections' : 'a new connection per message'}, median of ${rounds}; load ${machine().load1}`,
  ...CELLS.map((c) => {
    const r = results[c.name]!;
    const m = median(r.perSecond);
    return `  ${c.name.padEnd(30)} ${String(m).padStart(6)} msg/s (${r.perSecond.join(', ')}) = ${round(m / base)}× SQLite${c.engine === 'postgres' ? `; PostgreSQL CPU ${median(r.cpuSecondsPg)} s` : ''}`;
  }),
];
report(
  'cluster',
  { messages, size, sessions, rounds, keep: values.keep, cells: results, file: path.basename(import.meta.filename) },
  lines,
);
for (const c of CELLS) {
  const expected = messages - (messages % c.instances);
  if (results[c.name]!.stored.some((n) => n !== expected)) process.exitCode = 1;
}
