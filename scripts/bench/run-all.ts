// `npm run bench`: every benchmark in turn, each as its own process (each script also runs alone), peers in the same
// run with the same load client. Writes .bench/report.json (all figures + machine + command) and .bench/report.md
// (the tables for docs/benchmarks.md), and prints the tables.
//
//   npm run bench                                   full run (the soak lasts 10 minutes)
//   npm run bench -- --soak-seconds 60              shorter soak
//   npm run bench -- --quick                        small counts everywhere (a smoke run, ~3 min)
//   npm run bench -- --only smtp,latency            some benchmarks: smtp, latency, verify, api, scale, memory, startup
//   npm run bench -- --scale-messages 200000        a smaller store-scale run
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine, ROOT } from './lib.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'soak-seconds': { type: 'string' },
    'scale-messages': { type: 'string' },
    source: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(ROOT, '.bench/report.json') },
  },
});
const quick = values.quick;
const soak = values['soak-seconds'] ?? (quick ? '30' : '600');
const scale = values['scale-messages'] ?? (quick ? '50000' : '1000000');
const src = values.source ? ['--source'] : [];

const BENCHES: Array<{ id: string; script: string; args: string[] }> = [
  { id: 'startup', script: 'startup.ts', args: quick ? ['--runs', '5'] : ['--runs', '15'] },
  { id: 'smtp', script: 'smtp-matrix.ts', args: [...(quick ? ['--quick'] : []), ...src] },
  { id: 'latency', script: 'latency.ts', args: ['--messages', quick ? '200' : '1000', ...src] },
  { id: 'verify', script: 'verify-roundtrip.ts', args: ['--rounds', quick ? '100' : '300', ...src] },
  { id: 'api', script: 'api.ts', args: ['--seconds', quick ? '3' : '10', ...src] },
  { id: 'scale', script: 'store-scale.ts', args: ['--messages', scale, ...src] },
  { id: 'memory', script: 'memory.ts', args: ['--soak-seconds', soak, '--after', quick ? '20000' : '100000', ...src] },
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
const report: Record<string, unknown> = { command, machine: machine(), results: {} };
const results = report.results as Record<string, unknown>;
let failures = 0;
for (const b of BENCHES) {
  if (only && !only.has(b.id)) continue;
  console.log(`\n=== ${b.id}: node scripts/bench/${b.script} ${b.args.join(' ')}`);
  const r = await runScript(b.script, b.args);
  results[b.id] = {
    ...(r.json ?? {}),
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
    `Machine: ${m.nproc} cores (${m.cpu}), ${m.memGiB} GiB, Node ${m.node}, Linux ${m.kernel}; load average at start ${m.loadavg.join(' / ')}; ${m.date}`,
  );
  out.push(`Command: \`${rep.command}\``, '');
  if (r.smtp?.ratios) {
    out.push('### SMTP ingest (Postfix smtp-source; messages/s, MB/s)', '');
    out.push(
      '| sessions × size | inboxd (durable) | smtp-sink (discards) | MailDev | inboxd ÷ sink | inboxd ÷ MailDev |',
      '| --- | --- | --- | --- | --- | --- |',
    );
    for (const x of r.smtp.ratios as J[]) {
      const mb = (t: string) =>
        (r.smtp.rows as J[]).find((y) => y.target === t && y.sessions === x.sessions && y.size === x.size)?.mbPerSecond;
      const cell = (t: string, v: number | undefined) => (v === undefined ? '—' : `${v.toLocaleString('en-US')} (${mb(t)} MB/s)`);
      out.push(
        `| ${x.sessions} × ${x.size / 1024} KB | ${cell('inboxd', x.inboxd)} | ${cell('smtp-sink', x.sink)} | ${cell('MailDev', x.maildev)} | ${x.inboxdToSink ?? '—'} | ${x.inboxdToMaildev ?? '—'} |`,
      );
    }
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
  if (r.memory) {
    const mm = r.memory as J;
    out.push('### Memory (RSS)', '', '| state | RSS |', '| --- | --- |', `| idle | ${mm.idleRssMb} MB |`);
    if (mm.afterBulk)
      out.push(
        `| after ${mm.afterBulk.messages.toLocaleString('en-US')} messages | ${mm.afterBulk.rssMb} MB (${mm.afterBulk.rssMbAfter10s} MB 10 s later) |`,
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
