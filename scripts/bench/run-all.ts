// `npm run bench`: every benchmark in turn, each as its own process (each script also runs alone), peers in the same
// run with the same load client. Writes .bench/report.json (all figures + machine + command) and .bench/report.md
// (the tables for docs/benchmarks.md), and prints the tables.
//
//   npm run bench                                   full run (the soak lasts 10 minutes)
//   npm run bench -- --soak-seconds 60              shorter soak
//   npm run bench -- --quick                        small counts everywhere (a smoke run, ~3 min)
//   npm run bench -- --only smtp,latency            some benchmarks: smtp, latency, verify, api, send, scale, search, cluster, memory, startup
//   npm run bench -- --scale-messages 200000        a smaller store-scale run
//   npm run bench -- --only search --search-messages 100000   the search benchmark (query p50/p99, ingest ± index)
//   npm run bench -- --baseline /tmp/base           an earlier build (DIR/dist/inboxd) beside this one: SMTP ingest
//                                                   and lone-message latency of both in the same run, new ÷ old
//   npm run bench -- --baseline-commit 0f34437      the same, building that commit into .bench/baseline-<commit> first
//   npm run bench -- --peers sink,maildev,haraka    the SMTP peers (default all three)
//   npm run bench -- --cells 20x5                   only the headline SMTP cell (default 20x5,1x5,20x1,20x100)
//   npm run bench -- --render .bench/report.json    only the tables of an earlier run, again
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { baselineFromCommit, machine, ROOT } from './lib.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'soak-seconds': { type: 'string' },
    'scale-messages': { type: 'string' },
    'search-messages': { type: 'string' },
    source: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    'baseline-commit': { type: 'string' },
    peers: { type: 'string' },
    cells: { type: 'string' },
    render: { type: 'string' },
    out: { type: 'string', default: path.join(ROOT, '.bench/report.json') },
  },
});
if (values.render) {
  // the tables of an earlier run's report.json again, e.g. after a change to this file
  const md = tables(JSON.parse(fs.readFileSync(values.render, 'utf8')) as Record<string, unknown>);
  fs.writeFileSync(values.render.replace(/\.json$/, '.md'), md);
  console.log(md);
  process.exit(0);
}
const quick = values.quick;
const soak = values['soak-seconds'] ?? (quick ? '30' : '600');
const scale = values['scale-messages'] ?? (quick ? '50000' : '1000000');
const src = values.source ? ['--source'] : [];
const baselineDir = values.baseline ?? (values['baseline-commit'] ? baselineFromCommit(values['baseline-commit']) : undefined);
const base = baselineDir ? ['--baseline', baselineDir] : [];
const peers = [...(values.peers ? ['--peers', values.peers] : []), ...(values.cells ? ['--cells', values.cells] : [])];

/** `id` is what --only selects; `key` names the result (one id may run several scripts). */
const BENCHES: Array<{ id: string; key: string; script: string; args: string[] }> = [
  { id: 'startup', key: 'startup', script: 'startup.ts', args: quick ? ['--runs', '5'] : ['--runs', '15'] },
  { id: 'smtp', key: 'smtp', script: 'smtp-matrix.ts', args: [...(quick ? ['--quick'] : []), ...base, ...peers, ...src] },
  { id: 'latency', key: 'lone', script: 'lone-latency.ts', args: ['--messages', quick ? '60' : '300', ...base, ...src] },
  { id: 'latency', key: 'latency', script: 'latency.ts', args: ['--messages', quick ? '200' : '1000', ...src] },
  { id: 'verify', key: 'verify', script: 'verify-roundtrip.ts', args: ['--rounds', quick ? '100' : '300', ...src] },
  { id: 'api', key: 'api', script: 'api.ts', args: ['--seconds', quick ? '3' : '10', ...src] },
  { id: 'send', key: 'send', script: 'send.ts', args: ['--messages', quick ? '500' : '3000', ...src] },
  { id: 'scale', key: 'scale', script: 'store-scale.ts', args: ['--messages', scale, ...src] },
  {
    id: 'search',
    key: 'search',
    script: 'search.ts',
    args: ['--messages', quick ? '50000' : (values['search-messages'] ?? '1000000'), ...(quick ? ['--ingest-messages', '1000'] : [])],
  },
  { id: 'cluster', key: 'cluster', script: 'cluster.ts', args: quick ? ['--messages', '2000', '--rounds', '1'] : [] },
  { id: 'memory', key: 'memory', script: 'memory.ts', args: ['--soak-seconds', soak, '--after', quick ? '20000' : '100000', ...src] },
];
const only = values.only ? new Set(values.only.split(',')) : null;

function runScript(
  script: string,
  args: string[],
): Promise<{ code: number | null; json: Record<string, unknown> | null; seconds: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/bench', script), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let json: Record<string, unknown> | null = null;
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      process.stdout.write(d);
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith('{"bench"')) json = JSON.parse(line) as Record<string, unknown>;
      }
    });
    child.on('exit', (code) => resolve({ code, json, seconds: Math.round((performance.now() - t0) / 100) / 10 }));
  });
}

const command = `npm run bench${process.argv.length > 2 ? ' -- ' + process.argv.slice(2).join(' ') : ''}`;
const report: Record<string, unknown> = { command, machine: machine(), baseline: baselineDir ?? null, results: {} };
const results = report.results as Record<string, unknown>;
let failures = 0;
for (const b of BENCHES) {
  if (only && !only.has(b.id)) continue;
  console.log(`\n=== ${b.key}: node scripts/bench/${b.script} ${b.args.join(' ')}`);
  const startedOn = machine(); // the date and the 1-minute load average at this benchmark's start
  const r = await runScript(b.script, b.args);
  results[b.key] = {
    ...(r.json ?? {}),
    startedAt: startedOn.date,
    load1AtStart: startedOn.load1,
    command: `node scripts/bench/${b.script} ${b.args.join(' ')}`.trim(),
    exitCode: r.code,
    wallSeconds: r.seconds,
  };
  if (r.code !== 0) failures++;
}
report.finishedAt = new Date().toISOString();
fs.mkdirSync(path.dirname(values.out), { recursive: true });
fs.writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
const md = tables(report);
fs.writeFileSync(values.out.replace(/\.json$/, '.md'), md);
console.log('\n' + md);
console.log(
  `report: ${path.relative(process.cwd(), values.out)} and ${path.relative(process.cwd(), values.out.replace(/\.json$/, '.md'))}${failures ? `; ${failures} benchmark(s) failed` : ''}`,
);
if (failures) process.exitCode = 1;

// ---------------------------------------------------------------------------------------------------------------
type J = Record<string, any>;

function tables(rep: J): string {
  const r = rep.results as J;
  const m = rep.machine as J;
  const out: string[] = [];
  out.push(
    `Machine: ${m.nproc} cores (${m.cpu}), ${m.memGiB} GiB, Node ${m.node}, Linux ${m.kernel}, temp dir on ${m.tmpFs ?? '?'}; load average at start ${m.loadavg.join(' / ')}; ${m.date}`,
  );
  if (rep.baseline) out.push(`Baseline build: ${rep.baseline}`);
  out.push(`Command: \`${rep.command}\``, '');
  const starts = Object.entries(r)
    .filter(([, v]) => (v as J).startedAt)
    .map(([k, v]) => `${k} ${(v as J).startedAt.slice(11, 16)} UTC load ${(v as J).load1AtStart}`);
  if (starts.length) out.push(`1-minute load average at each benchmark's start: ${starts.join('; ')}`, '');
  if (r.smtp?.summary) out.push(...smtpTables(r.smtp as J));
  if (r.lone?.builds) out.push(...loneTable(r.lone as J));
  // Every benchmark that judges a target of issue 30 reports it in `goals` (PASS, MISS, or n/a when its run cannot
  // judge it: no baseline, a soak shorter than 10 minutes, fewer than 1,000,000 messages).
  const goals = Object.values(r).flatMap((x) => ((x as J).goals as J[] | undefined) ?? []);
  if (goals.length) {
    out.push('### Targets (issue 30)', '', '| target | measured | |', '| --- | --- | --- |');
    for (const g of goals) out.push(`| ${g.goal} | ${g.value ?? '—'} | **${g.status}** |`);
    out.push('');
  }
  if (r.latency?.channels || r.verify) {
    out.push(
      '### Delivery latency, end of DATA → subscriber (50 concurrent subscribers)',
      '',
      '| channel | p50 | p90 | p99 | max |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const [name, f] of Object.entries((r.latency?.channels ?? {}) as J))
      out.push(`| ${name} | ${f.p50ms} ms | ${f.p90ms} ms | ${f.p99ms} ms | ${f.maxMs} ms |`);
    for (const k of ['verify', 'open'])
      if (r.verify?.[k])
        out.push(
          `| ${k} round trip (agent waiting, one at a time) | ${r.verify[k].p50ms} ms | — | ${r.verify[k].p99ms} ms | ${r.verify[k].maxMs} ms |`,
        );
    out.push('');
  }
  if (r.api?.endpoints) {
    out.push(
      `### API (autocannon, ${r.api.connections} connections, ${r.api.seconds} s each)`,
      '',
      '| endpoint | req/s | p50 | p99 |',
      '| --- | --- | --- | --- |',
    );
    for (const [name, f] of Object.entries(r.api.endpoints as J))
      if (typeof f === 'object') out.push(`| ${name} | ${f.reqPerSec.toLocaleString('en-US')} | ${f.p50ms} ms | ${f.p99ms} ms |`);
    out.push('');
  }
  if (r.send?.localMessagesPerSecond) {
    const x = r.send as J;
    out.push(
      '| sending | msg/s |',
      '| --- | --- |',
      `| local delivery (inbox → inbox, ${x.clients} clients) | ${x.localMessagesPerSecond} |`,
      `| relay to Postfix smtp-sink (until relayed) | ${x.relayMessagesPerSecond} |`,
      '',
    );
  }
  if (r.scale?.stages) {
    out.push(
      `### Store scale (${r.scale.inboxes} inboxes; generated through the store layer)`,
      '',
      '| messages | db size | lookup p50 / p99 | list (newest 10) p50 / p99 | wait wake-up p50 / p99 | server RSS |',
      '| --- | --- | --- | --- | --- | --- |',
    );
    for (const s of r.scale.stages as J[])
      out.push(
        `| ${s.messages.toLocaleString('en-US')} | ${s.dbMb} MB | ${s.lookup.p50ms} / ${s.lookup.p99ms} ms | ${s.list.p50ms} / ${s.list.p99ms} ms | ${s.waitWake.p50ms} / ${s.waitWake.p99ms} ms | ${s.rssMb} MB |`,
      );
    out.push(`| ratio (p50) | | ${r.scale.ratios.lookup}× | ${r.scale.ratios.list}× | ${r.scale.ratios.waitWake}× | |`, '');
  }
  if (r.search?.scale || r.search?.ingest) out.push(...searchTables(r.search as J));
  if (r.cluster?.cells) {
    const c = r.cluster as J;
    const cells = Object.entries(c.cells as J) as Array<[string, J]>;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const base = median(cells[0]?.[1].perSecond ?? [1]);
    out.push(
      `### Scale-out (${c.messages} × ${c.size} B, ${c.sessions} sessions split over the instances, median of ${c.rounds})`,
      '',
      '| store | msg/s (runs) | vs SQLite | PostgreSQL CPU |',
      '| --- | --- | --- | --- |',
      ...cells.map(
        ([name, x]) =>
          `| ${name} | ${median(x.perSecond)} (${(x.perSecond as number[]).join(', ')}) | ${Math.round((median(x.perSecond) / base) * 100) / 100}× | ${median(x.cpuSecondsPg) ? `${median(x.cpuSecondsPg)} s` : '–'} |`,
      ),
      '',
    );
  }
  if (r.memory) {
    const mm = r.memory as J;
    out.push('### Memory (RSS)', '', '| state | RSS |', '| --- | --- |', `| idle | ${mm.idleRssMb} MB |`);
    if (mm.afterBulk)
      out.push(
        `| after ${mm.afterBulk.messages.toLocaleString('en-US')} messages | ${mm.afterBulk.rssMb} MB (${mm.afterBulk.rssMbAfter10s} MB 10 s later, ${mm.afterBulk.rssMbAfter60s ?? '–'} MB 60 s later) |`,
      );
    if (mm.soak)
      out.push(
        `| soak ${Math.round(mm.soak.seconds)} s at ${mm.soak.achievedRate} msg/s, 50 waiters, 10 SSE readers | ${mm.soak.rssMinMb}–${mm.soak.rssMaxMb} MB, slope ${mm.soak.rssSlopeMbPerMin} MB/min |`,
      );
    out.push('');
  }
  if (r.startup?.readyMs) {
    out.push(
      '### Startup and size of dist/inboxd',
      '',
      `spawn → first 200 on /health: median ${r.startup.readyMs.median} ms (min ${r.startup.readyMs.min}, max ${r.startup.readyMs.max}, ${r.startup.runs} runs); size ${r.startup.sizeMB} MB.`,
      '',
    );
  }
  return out.join('\n') + '\n';
}

function smtpTables(sm: J): string[] {
  const out: string[] = [];
  const summary = sm.summary as J[];
  const hasBase = summary.some((x) => x.medians['inboxd (baseline)']);
  const cols = ['inboxd', ...(hasBase ? ['inboxd (baseline)'] : []), 'smtp-sink', 'MailDev', 'Haraka'];
  out.push(
    `### SMTP ingest (Postfix smtp-source; messages/s, median of ${sm.rounds} alternating runs, MB/s)`,
    '',
    `| sessions × size | connections | ${cols.join(' | ')} | inboxd ÷ sink | inboxd ÷ MailDev | inboxd ÷ Haraka |${hasBase ? ' new ÷ baseline |' : ''}`,
    `| --- | --- |${' --- |'.repeat(cols.length + 3 + (hasBase ? 1 : 0))}`,
  );
  for (const x of summary) {
    const cell = (n: string) => {
      const f = x.medians[n];
      return f ? `${f.perSecond.toLocaleString('en-US')} (${f.mbPerSecond} MB/s)` : '—';
    };
    const bold = x.sessions === 20 && x.size === 5120 ? '**' : '';
    const ra = x.ratios;
    out.push(
      `| ${bold}${x.sessions} × ${x.size / 1024} KB${bold} | ${x.mode === 'new' ? 'new per message' : 'kept (-d)'} | ${cols.map(cell).join(' | ')} | ${ra.inboxdToSink ?? '—'} | ${ra.inboxdToMaildev ?? '—'} | ${ra.inboxdToHaraka ?? '—'} |${hasBase ? ` ${ra.newToBaseline ?? '—'} |` : ''}`,
    );
  }
  out.push('');
  const cpu = (sm.cpu as J[]).filter((c) => c.cell === '20 × 5 KB');
  if (cpu.length) {
    const heads = cpu.map((c) => `${c.target}, ${c.mode === 'new' ? 'new connection' : 'kept'}`);
    const kinds = [...new Set(cpu.flatMap((c) => Object.keys(c.byKind)))];
    out.push(
      '### CPU per message by thread, 20 × 5 KB (µs; /proc/<pid>/task/*/stat before and after each measured run)',
      '',
      `| thread | ${heads.join(' | ')} |`,
      `| --- |${' --- |'.repeat(heads.length)}`,
    );
    for (const k of kinds)
      out.push(`| ${k} | ${cpu.map((c) => (c.byKind[k] ? `${c.byKind[k].us} (${c.byKind[k].threads})` : '—')).join(' | ')} |`);
    out.push(`| whole process | ${cpu.map((c) => c.processUs).join(' | ')} |`, '');
  }
  for (const n of (sm.notes as string[]) ?? []) out.push(`- ${n}`);
  if ((sm.notes as string[])?.length) out.push('');
  return out;
}

function loneTable(lo: J): string[] {
  const builds = lo.builds as J;
  const base = builds['inboxd (baseline)'];
  const out = [
    `### Lone message latency (one message at a time, ${lo.messages} per build${base ? ', alternating between the two builds' : ''})`,
    '',
    `| end of DATA → | inboxd p50 / p90 / p99 / max |${base ? ' baseline p50 / p90 / p99 / max | new ÷ old (p50, p99) |' : ''}`,
    `| --- | --- |${base ? ' --- | --- |' : ''}`,
  ];
  const f = (x: J) => `${x.p50ms} / ${x.p90ms} / ${x.p99ms} / ${x.maxMs} ms`;
  for (const [m, v] of Object.entries(builds.inboxd as J))
    out.push(`| ${m} | ${f(v as J)} |${base ? ` ${f(base[m])} | ${lo.ratios[m].p50}, ${lo.ratios[m].p99} |` : ''}`);
  out.push('');
  return out;
}

function searchTables(r: J): string[] {
  const out: string[] = [];
  const kinds = ['commonWordAll', 'rareWordAll', 'twoWordsOneInbox', 'phraseAll', 'operatorsAll'];
  if (r.scale?.stages) {
    out.push(
      `### Search (${r.scale.inboxes} inboxes; messages generated through the store layer; p50 / p99 over HTTP)`,
      '',
      `| messages | db (FTS) | ${kinds.join(' | ')} |`,
      `| --- | --- | ${kinds.map(() => '---').join(' | ')} |`,
    );
    for (const st of r.scale.stages as J[])
      out.push(
        `| ${st.messages.toLocaleString('en-US')} | ${st.dbMb} MB (${st.ftsMb} MB) | ${kinds.map((k) => `${st[k].p50ms} / ${st[k].p99ms} ms`).join(' | ')} |`,
      );
    const [a, b] = r.scale.stages as J[];
    if (a && b && a !== b)
      out.push(`| ratio (p50) | | ${kinds.map((k) => `${Math.round((b[k].p50ms / a[k].p50ms) * 10) / 10}×`).join(' | ')} |`);
    out.push('');
  }
  if (r.ingest)
    out.push(
      `SMTP ingest with the index: ${r.ingest.withIndexPerSecond} msg/s; without (${r.ingest.baselineCommit}): ${r.ingest.baselinePerSecond} msg/s; ratio ${r.ingest.ratio} (medians of ${r.ingest.runs.index.length} alternating runs, ${r.ingest.connections} connections, ${r.ingest.messagesPerRun} messages of ~${r.ingest.bodyKb} KB each); server CPU per message ${r.ingest.cpuUsPerMsgWithIndex} µs with, ${r.ingest.cpuUsPerMsgBaseline} µs without (${r.ingest.cpuRatio})`,
      '',
    );
  return out;
}
