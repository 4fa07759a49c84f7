// Ingest msg/s on PostgreSQL with one and two inboxd instances, beside the SQLite default, in one run (issue 20).
// The same executable in every cell; Postfix's smtp-source drives the load (new connection per message, the way
// a signup form's mailer delivers), split evenly over the instances of a cell, both halves in parallel.
//   node scripts/bench/cluster.ts [--messages 6000] [--sessions 20] [--size 5120] [--rounds 3] [--keep]
//     --quick        one instance per engine only (the PostgreSQL ÷ SQLite ratio), 1,500 messages, 1 round
//     --baseline-commit C   two more cells, SQLite and PostgreSQL, 1 instance each, with the executable of commit C
//                           (built into .bench/)
//     --statements   pg_stat_statements on: per message, the statements, round trips and execution time on
//                    PostgreSQL, with the CPU of PostgreSQL and of the instance (the inputs of the scaling model)
// One 2-core machine runs PostgreSQL, every instance and the load client: the two-instance cell measures what a
// shared database costs, not what a second machine would add (see docs/benchmarks.md).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres } from '../../test/helpers/postgres.ts';
import { baselineFromCommit, type Inboxd, machine, report, round, smtpSource, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '6000' },
    sessions: { type: 'string', default: '20' },
    size: { type: 'string', default: '5120' },
    rounds: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    source: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    statements: { type: 'boolean', default: false },
    'baseline-commit': { type: 'string' },
  },
});
if (values.quick) {
  values.messages = process.argv.includes('--messages') ? values.messages : '1500';
  values.rounds = process.argv.includes('--rounds') ? values.rounds : '1';
}
const messages = Number(values.messages);
const sessions = Number(values.sessions);
const size = Number(values.size);
const rounds = Number(values.rounds);

interface Cell {
  name: string;
  instances: number;
  engine: 'sqlite' | 'postgres';
  /** another build's executable (--baseline-commit) */
  binary?: string;
}
const CELLS_ALL: Cell[] = [
  { name: 'SQLite, 1 instance (default)', instances: 1, engine: 'sqlite' },
  { name: 'PostgreSQL, 1 instance', instances: 1, engine: 'postgres' },
  { name: 'PostgreSQL, 2 instances', instances: 2, engine: 'postgres' },
];
const baseline = values['baseline-commit'];
if (baseline) {
  const binary = path.join(baselineFromCommit(baseline), 'dist/inboxd');
  CELLS_ALL.push(
    { name: `SQLite, 1 instance, ${baseline}`, instances: 1, engine: 'sqlite', binary },
    { name: `PostgreSQL, 1 instance, ${baseline}`, instances: 1, engine: 'postgres', binary },
  );
}
const CELLS = CELLS_ALL.filter((c) => (!values.quick || c.instances === 1) && (!values.statements || c.engine === 'postgres'));

const load0 = machine().load1;
const pg = await startPostgres(values.statements ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=top'] : []);
const results: Record<
  string,
  { perSecond: number[]; stored: number[]; cpuSecondsPg: number[]; cpuSecondsInboxd: number[]; statements: Statements[] }
> = {};

/** What PostgreSQL ran for the measured messages of a cell (pg_stat_statements, --statements). */
interface Statements {
  perMessage: number;
  transactions: number;
  execMsPerMessage: number;
  top: Array<{ calls: number; ms: number; query: string }>;
}

async function pgQuery<T>(url: string, text: string): Promise<T[]> {
  const { default: pgLib } = await import('pg');
  const c = new pgLib.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows as T[];
  } finally {
    await c.end();
  }
}

/** CPU seconds a process used so far (user + system). */
function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}
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

async function runCell(
  cell: Cell,
): Promise<{ perSecond: number; stored: number; pgCpu: number; inboxdCpu: number; statements: Statements | null }> {
  const args: string[] = [];
  const url = cell.engine === 'postgres' ? await pg.createDatabase(`bench_${++dbCount}`) : '';
  if (url) args.push('--database', url);
  const measured = values.statements && url !== '';
  if (measured) await pgQuery(url, 'create extension pg_stat_statements');
  const servers: Inboxd[] = [];
  try {
    for (let i = 0; i < cell.instances; i++)
      servers.push(await startInboxd(args, cell.binary ? { binary: cell.binary } : { source: values.source }));
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
    if (measured) await pgQuery(url, 'select pg_stat_statements_reset()');
    const xact0 = measured ? await transactions(url) : 0;
    const cpu0 = cell.engine === 'postgres' ? pgCpuSeconds() : 0;
    const own0 = servers.reduce((t, s) => t + cpuSecondsOf(s.child.pid), 0);
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
    const inboxdCpu = servers.reduce((t, s) => t + cpuSecondsOf(s.child.pid), 0) - own0;
    const pgCpu = cell.engine === 'postgres' ? pgCpuSeconds() - cpu0 : 0;
    for (const r of runs) if (!r.ok) throw new Error(`smtp-source failed: ${r.stderr}`);
    const after = ((await (await first.api(`/v1/inboxes/${inbox.inboxId}`)).json()) as { messagesReceived: number }).messagesReceived;
    const stored = after - before;
    return {
      perSecond: Math.round((share * servers.length) / seconds),
      stored,
      pgCpu: round(pgCpu, 1),
      inboxdCpu: round(inboxdCpu, 1),
      statements: measured ? await statementsOf(url, stored, (await transactions(url)) - xact0) : null,
    };
  } finally {
    for (const s of servers) await s.stop();
  }
}

async function transactions(url: string): Promise<number> {
  const r = await pgQuery<{ n: string }>(url, 'select xact_commit as n from pg_stat_database where datname = current_database()');
  return Number(r[0]?.n ?? 0);
}

/** The statements PostgreSQL ran since the reset, per stored message (the bench's own reads excluded). */
async function statementsOf(url: string, stored: number, xacts: number): Promise<Statements> {
  const rows = await pgQuery<{ calls: string; ms: number; query: string }>(
    url,
    `select calls, total_exec_time as ms, query from pg_stat_statements
      where dbid = (select oid from pg_database where datname = current_database())
        and query not like '%pg_stat_%' order by calls desc`,
  );
  const calls = rows.reduce((t, r) => t + Number(r.calls), 0);
  const ms = rows.reduce((t, r) => t + Number(r.ms), 0);
  return {
    perMessage: round(calls / stored, 2),
    transactions: xacts,
    execMsPerMessage: round(ms / stored, 3),
    top: rows
      .slice(0, 24)
      .map((r) => ({ calls: Number(r.calls), ms: round(Number(r.ms), 1), query: r.query.replace(/\s+/g, ' ').slice(0, 90) })),
  };
}

try {
  // Rounds alternate the cells, so a change in the machine's load spreads over all of them.
  for (let r = 0; r < rounds; r++) {
    for (const cell of CELLS) {
      const out = await runCell(cell);
      const slot = (results[cell.name] ??= { perSecond: [], stored: [], cpuSecondsPg: [], cpuSecondsInboxd: [], statements: [] });
      slot.perSecond.push(out.perSecond);
      slot.stored.push(out.stored);
      slot.cpuSecondsPg.push(out.pgCpu);
      slot.cpuSecondsInboxd.push(out.inboxdCpu);
      if (out.statements) slot.statements.push(out.statements);
      const us = (s: number) => Math.round((s / Math.max(1, out.stored)) * 1e6);
      console.log(
        `round ${r + 1}: ${cell.name}: ${out.perSecond} msg/s, stored ${out.stored}/${messages - (messages % cell.instances)}; CPU µs/msg inboxd ${us(out.inboxdCpu)}${cell.engine === 'postgres' ? `, PostgreSQL ${us(out.pgCpu)}` : ''}`,
      );
      if (out.statements) {
        const st = out.statements;
        console.log(
          `  statements/msg ${st.perMessage}, transactions ${st.transactions} (${round(out.stored / Math.max(1, st.transactions), 1)} msg each), execution ${st.execMsPerMessage} ms/msg`,
        );
        for (const t of st.top) console.log(`  ${String(t.calls).padStart(7)} ${String(t.ms).padStart(8)} ms  ${t.query}`);
      }
    }
  }
} finally {
  await pg.stop();
}

const pgOne = results['PostgreSQL, 1 instance'];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const sqliteOne = results[CELLS_ALL[0]!.name];
const base = sqliteOne ? median(sqliteOne.perSecond) : Number.NaN;
const lines = [
  `cluster ingest: ${messages} × ${size} B, ${sessions} sessions split over the instances, ${values.keep ? 'kept connections' : 'a new connection per message'}, median of ${rounds}; load ${machine().load1} at the end (${load0} at the start)`,
  ...CELLS.map((c) => {
    const r = results[c.name]!;
    const m = median(r.perSecond);
    return `  ${c.name.padEnd(30)} ${String(m).padStart(6)} msg/s (${r.perSecond.join(', ')}) = ${round(m / base)}× SQLite${c.engine === 'postgres' ? `; PostgreSQL CPU ${median(r.cpuSecondsPg)} s` : ''}`;
  }),
];
if (pgOne && sqliteOne)
  lines.push(`PostgreSQL ingest ÷ SQLite ingest, one instance, same executable: ${round(median(pgOne.perSecond) / base)} (target ≥ 0.7)`);
report(
  'cluster',
  { messages, size, sessions, rounds, keep: values.keep, cells: results, file: path.basename(import.meta.filename) },
  lines,
);
for (const c of CELLS) {
  const expected = messages - (messages % c.instances);
  if (results[c.name]!.stored.some((n) => n !== expected)) process.exitCode = 1;
}
