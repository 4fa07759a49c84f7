// Search (issue 14): p50/p99 of five query kinds over HTTP at 10,000 messages and at --messages (default 1,000,000),
// messages generated straight through the store layer (IngestWriter group commits writing contents, message rows and
// the FTS rows with ingest's own statements), then SMTP ingest with the index against a build without it (the same
// load, alternating runs, in one process tree). "Without it" is this tree with ingest's one call that writes the FTS
// row (`indexContent` in src/ingest/ingest.ts) taken out, so the difference is the index and nothing else; with
// --baseline-commit it is that commit instead (8d9e04e, before search existed, is ~20 issues old now).
//   node scripts/bench/search.ts [--messages 1000000] [--inboxes 1000] [--baseline-commit C] [--ingest-messages 4000]
//     [--skip-scale] [--skip-ingest] [--skip-vectors] [--source]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { IngestWriter } from '../../src/ingest/writer.ts';
import { newId } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/log.ts';
import { normalize, quantize, similarity } from '../../src/search/embeddings.ts';
import { SCAN_CAP } from '../../src/search/engine.ts';
import { indexContent, searchDoc } from '../../src/search/indexer.ts';
import { LocalBlobStore } from '../../src/store/blobs.ts';
import { dbFile, openStore } from '../../src/store/db.ts';
import { MessageRepo } from '../../src/store/messages.ts';
import { type Inboxd, machine, percentile, ROOT, report, round, rssMb, SmtpSession, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000000' },
    inboxes: { type: 'string', default: '1000' },
    'baseline-commit': { type: 'string' },
    'ingest-messages': { type: 'string', default: '4000' },
    'ingest-runs': { type: 'string', default: '3' },
    'skip-scale': { type: 'boolean', default: false },
    'skip-ingest': { type: 'boolean', default: false },
    'skip-vectors': { type: 'boolean', default: false },
    source: { type: 'boolean', default: false },
  },
});
const silent = createLogger({ level: 'silent', format: 'json', write: () => undefined });
const lines: string[] = [];
const figures: Record<string, unknown> = { machineAtStart: machine() };

// A Zipf-like vocabulary: word i is drawn with probability ~ 1/(i+1).
const VOCAB = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}x`);
const COMMON = ['account', 'please', 'verify', 'your', 'order', 'invoice', 'team', 'update', 'security', 'report'];
let seed = 42;
const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const zipf = () => VOCAB[Math.min(VOCAB.length - 1, Math.floor(Math.exp(rnd() * Math.log(VOCAB.length)) - 1))]!;
const words = (n: number) =>
  Array.from({ length: n }, () => (rnd() < 0.15 ? COMMON[Math.floor(rnd() * COMMON.length)]! : zipf())).join(' ');
const SERVICES = ['github', 'stripe', 'slack', 'notion', 'linear', 'vercel', 'gitlab', 'atlassian', 'figma', 'zoom'];

async function generate(dataDir: string, inboxes: Array<{ inboxId: string; address: string }>, from: number, to: number): Promise<number> {
  const store = await openStore(dbFile(dataDir));
  const blobs = new LocalBlobStore(path.join(dataDir, 'blobs'), { sqlite: store.sqlite, fsync: false });
  const writer = new IngestWriter({ db: store.db, blobs, messages: new MessageRepo(store.db), log: silent });
  const t0 = performance.now();
  const base = Date.now() - 30 * 86_400_000;
  let pending: Array<Promise<unknown>> = [];
  for (let n = from; n < to; n++) {
    const ib = inboxes[n % inboxes.length]!;
    const svc = SERVICES[n % SERVICES.length]!;
    const code = String(100000 + ((n * 7919) % 900000));
    const content = {
      sha256: `gen${n.toString(16).padStart(61, '0')}`,
      from_address: `noreply@${svc}.example`,
      from_name: svc,
      to_json: JSON.stringify([{ name: '', address: ib.address }]),
      cc_json: '[]',
      subject: `[${svc}] ${words(6)} ${code}`,
      date: base + n,
      message_id_header: `<m${n}@${svc}.example>`,
      in_reply_to: null,
      references_json: '[]',
      size: 1200,
      text_body: `${words(60 + (n % 80))}\n\nhttps://${svc}.example/verify?t=${n}\n`,
      html_body: null,
      headers_json: '[]',
      attachment_count: 0,
      otp: n % 3 === 0 ? code : null,
      primary_link: null,
      extraction_json: '{}',
    };
    const doc = searchDoc(content, []);
    pending.push(
      writer.store({
        blobs: [],
        weight: 1500,
        insert: async (trx) => {
          await trx.insertInto('contents').values(content).execute();
          const id = newId('msg');
          await trx
            .insertInto('message_rows')
            .values({
              id,
              inbox_id: ib.inboxId,
              rcpt: ib.address,
              seq: Math.floor(n / inboxes.length) + 1,
              received_at: base + n * 2,
              mail_from: content.from_address,
              source: 'generated',
              content_sha256: content.sha256,
            })
            .execute();
          await indexContent(trx, content.sha256, doc, true);
        },
      }),
    );
    if (pending.length >= 2000) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  await writer.drained();
  const seconds = (performance.now() - t0) / 1000;
  store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  await store.close();
  return seconds;
}

async function queries(srv: Inboxd, inboxes: Array<{ inboxId: string }>) {
  const timed = async (n: number, url: (i: number) => string) => {
    const out: number[] = [];
    let hits = 0;
    for (let i = 0; i < n + 20; i++) {
      const t0 = performance.now();
      const res = await srv.api(url(i));
      const body = (await res.json()) as { items?: unknown[] };
      if (res.status !== 200) throw new Error(`${url(i)} answered ${res.status}: ${JSON.stringify(body)}`);
      if (i >= 20) {
        out.push(performance.now() - t0);
        hits += body.items?.length ?? 0;
      }
    }
    out.sort((a, b) => a - b);
    return { p50ms: round(percentile(out, 50)), p99ms: round(percentile(out, 99)), avgHits: round(hits / n, 1) };
  };
  const q = (s: string) => encodeURIComponent(s);
  return {
    commonWordAll: await timed(200, (i) => `/v1/search?q=${q(COMMON[i % COMMON.length]!)}`),
    rareWordAll: await timed(200, (i) => `/v1/search?q=${q(VOCAB[5000 + ((i * 37) % 10000)]!)}`),
    twoWordsOneInbox: await timed(
      200,
      (i) => `/v1/inboxes/${inboxes[(i * 13) % inboxes.length]!.inboxId}/search?q=${q(`please ${COMMON[i % 10]}`)}`,
    ),
    phraseAll: await timed(200, (i) => `/v1/search?q=${q(`"${SERVICES[i % SERVICES.length]}.example/verify"`)}`),
    operatorsAll: await timed(
      200,
      (i) => `/v1/search?q=${q(`from:${SERVICES[i % SERVICES.length]} has:code -invoice after:60d ${COMMON[i % 10]}`)}`,
    ),
  };
}

async function scale(): Promise<void> {
  const target = Number(values.messages);
  const inboxCount = Number(values.inboxes);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-search-'));
  try {
    let inboxes: Array<{ inboxId: string; address: string }> = [];
    {
      const srv = await startInboxd([], { source: values.source, dataDir });
      for (let i = 0; i < inboxCount; i++) {
        const res = await srv.api('/v1/inboxes', { method: 'POST', json: { label: `run-${i % 50}`, ttlMinutes: 10080 } });
        inboxes.push((await res.json()) as { inboxId: string; address: string });
      }
      await srv.stop();
    }
    const stages: Array<Record<string, unknown>> = [];
    let done = 0;
    for (const size of [...new Set([Math.min(10_000, target), target])]) {
      const seconds = await generate(dataDir, inboxes, done, size);
      const rate = Math.round((size - done) / seconds);
      done = size;
      const dbMb = round(fs.statSync(dbFile(dataDir)).size / 1024 ** 2, 0);
      const srv = await startInboxd([], { source: values.source, dataDir });
      const ftsMb = ftsSize(dataDir);
      const kinds = await queries(srv, inboxes);
      stages.push({
        messages: size,
        generatedPerSecond: rate,
        dbMb,
        ftsMb,
        rssMb: rssMb(srv.child.pid!),
        ...kinds,
        load1: machine().load1,
      });
      await srv.stop();
      lines.push(`${size} messages: db ${dbMb} MB (FTS ${ftsMb} MB), generated at ${rate}/s; ${JSON.stringify(kinds)}`);
    }
    figures.scale = { inboxes: inboxCount, stages };
    inboxes = [];
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function ftsSize(dataDir: string): number | null {
  const db = new BetterSqlite3(dbFile(dataDir), { readonly: true });
  try {
    const r = db.prepare("select sum(pgsize) as b from dbstat where name like 'search_fts%'").get() as { b: number | null };
    return r.b === null ? null : round(r.b / 1024 ** 2, 0);
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** A source tree of `commit` under .bench/ (git archive + the shared node_modules), run with `node src/main.ts`. */
/** This tree (HEAD) without the FTS row's write: ingest's call of indexContent becomes a no-op. */
const INDEX_CALL = 'await indexContent(trx, rawSha, doc, isFresh, added, isFresh ? copies : undefined);';
function withoutIndexSource(): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const dir = path.join(ROOT, '.bench', `search-noindex-${head}`);
  const wrapper = path.join(dir, 'inboxd.sh');
  if (fs.existsSync(wrapper)) return wrapper;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('sh', [
    '-c',
    `git -C '${ROOT}' archive HEAD | tar -x -C '${dir}' && ln -sfn '${path.join(ROOT, 'node_modules')}' '${dir}/node_modules'`,
  ]);
  if (r.status !== 0) throw new Error('search bench: git archive HEAD failed');
  const file = path.join(dir, 'src/ingest/ingest.ts');
  const text = fs.readFileSync(file, 'utf8');
  if (!text.includes(INDEX_CALL))
    throw new Error(`search bench: src/ingest/ingest.ts no longer has \`${INDEX_CALL}\`; update INDEX_CALL in scripts/bench/search.ts`);
  fs.writeFileSync(file, text.replace(INDEX_CALL, 'void [trx, rawSha, doc, isFresh, added, copies, indexContent];'));
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${dir}/src/main.ts' "$@"\n`, { mode: 0o755 });
  return wrapper;
}

function baselineSource(commit: string): string {
  const dir = path.join(ROOT, '.bench', `search-baseline-${commit}`);
  const wrapper = path.join(dir, 'inboxd.sh');
  if (fs.existsSync(wrapper)) return wrapper;
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('sh', [
    '-c',
    `git -C '${ROOT}' archive ${commit} | tar -x -C '${dir}' && ln -sfn '${path.join(ROOT, 'node_modules')}' '${dir}/node_modules'`,
  ]);
  if (r.status !== 0) throw new Error(`--baseline-commit ${commit}: git archive failed`);
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${dir}/src/main.ts' "$@"\n`, { mode: 0o755 });
  return wrapper;
}

function thisSource(): string {
  const wrapper = path.join(ROOT, '.bench', 'search-current.sh');
  fs.mkdirSync(path.dirname(wrapper), { recursive: true });
  fs.writeFileSync(wrapper, `#!/bin/sh\nexec '${process.execPath}' '${ROOT}/src/main.ts' "$@"\n`, { mode: 0o755 });
  return wrapper;
}

/** CPU seconds (user + system) the process has used so far, from /proc (all threads). */
function cpuSeconds(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function ingestRun(binary: string, total: number): Promise<{ rate: number; cpuUsPerMsg: number }> {
  const srv = await startInboxd([], { binary });
  try {
    const inboxes: string[] = [];
    for (let i = 0; i < 20; i++)
      inboxes.push(
        ((await (await srv.api('/v1/inboxes', { method: 'POST', json: { label: 'ingest' } })).json()) as { address: string }).address,
      );
    const conns = await Promise.all(Array.from({ length: 20 }, () => SmtpSession.open(srv.smtp)));
    let next = 0;
    const cpu0 = cpuSeconds(srv.child.pid!);
    const t0 = performance.now();
    await Promise.all(
      conns.map(async (c, k) => {
        for (;;) {
          const n = next++;
          if (n >= total) return;
          const body = `From: Bench <bench@example.com>\nTo: ${inboxes[k]}\nSubject: [${SERVICES[n % 10]}] ${words(6)}\n\n${words(700)}\n`;
          const { reply } = await c.send('bench@example.com', inboxes[k]!, body);
          if (!reply.startsWith('250')) throw new Error(`SMTP ${reply}`);
        }
      }),
    );
    const rate = total / ((performance.now() - t0) / 1000);
    const cpu = cpuSeconds(srv.child.pid!) - cpu0;
    for (const c of conns) c.close();
    return { rate: Math.round(rate), cpuUsPerMsg: Math.round((cpu * 1e6) / total) };
  } finally {
    await srv.stop();
  }
}

async function ingest(): Promise<void> {
  const total = Number(values['ingest-messages']);
  const base = values['baseline-commit'];
  const builds = { index: thisSource(), baseline: base ? baselineSource(base) : withoutIndexSource() };
  const runs: Record<string, number[]> = { index: [], baseline: [] };
  const cpu: Record<string, number[]> = { index: [], baseline: [] };
  for (let r = 0; r < Number(values['ingest-runs']); r++)
    for (const k of r % 2 === 0 ? (['index', 'baseline'] as const) : (['baseline', 'index'] as const)) {
      const one = await ingestRun(builds[k], total);
      runs[k]!.push(one.rate);
      cpu[k]!.push(one.cpuUsPerMsg);
    }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const withIndex = median(runs.index!);
  const without = median(runs.baseline!);
  // On a shared machine the rates swing with the neighbours' load; the server's CPU time per message does much less.
  const cpuIndex = median(cpu.index!);
  const cpuBase = median(cpu.baseline!);
  figures.ingest = {
    cpu,
    cpuUsPerMsgWithIndex: cpuIndex,
    cpuUsPerMsgBaseline: cpuBase,
    cpuRatio: round(cpuBase / cpuIndex, 3),
    messagesPerRun: total,
    connections: 20,
    bodyKb: 5,
    runs,
    withIndexPerSecond: withIndex,
    baselinePerSecond: without,
    baseline: values['baseline-commit'] ?? 'this tree without the FTS row write',
    ratio: round(withIndex / without, 3),
    load1: machine().load1,
  };
  lines.push(
    `SMTP ingest, 20 connections, ~5 KB: with index ${withIndex} msg/s, without (${values['baseline-commit'] ?? 'this tree, no FTS row'}) ${without} msg/s, ratio ${round(withIndex / without, 3)}; runs ${JSON.stringify(runs)}; server CPU per message ${cpuIndex} µs with the index, ${cpuBase} µs without (throughput ratio if CPU-bound ${round(cpuBase / cpuIndex, 3)}); ${JSON.stringify(cpu)}`,
  );
}

/** The semantic scan's arithmetic: SCAN_CAP stored int8 vectors of 768 numbers scored against a query, in process. */
function vectors(): void {
  const dim = 768;
  const stored = Array.from({ length: SCAN_CAP }, () => quantize(Float32Array.from({ length: dim }, () => rnd() - 0.5)));
  const q = normalize(Float32Array.from({ length: dim }, () => rnd() - 0.5));
  const times: number[] = [];
  for (let r = 0; r < 25; r++) {
    const t0 = performance.now();
    let best = -1;
    for (const v of stored) best = Math.max(best, similarity(q, v));
    if (r >= 5) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  figures.vectorScan = { vectors: SCAN_CAP, dim, p50ms: round(percentile(times, 50)), minMs: round(times[0]!), load1: machine().load1 };
  lines.push(`semantic scan of ${SCAN_CAP} int8 vectors × ${dim}: p50 ${round(percentile(times, 50))} ms, best ${round(times[0]!)} ms`);
}

if (!values['skip-vectors']) vectors();
if (!values['skip-scale']) await scale();
if (!values['skip-ingest']) await ingest();

// The targets of issue 30: p99 ≤ 50 ms for every query kind at 1,000,000 messages (a smaller run says n/a), and the
// index costs ingest ≤ 5 % (judged on the server's CPU per message, steadier than the rate on a shared machine).
type Goal = { goal: string; value: number | null; status: 'PASS' | 'MISS' | 'n/a' };
const goals: Goal[] = [];
const stages = (figures.scale as { stages?: Array<Record<string, unknown>> } | undefined)?.stages ?? [];
const largest = stages.at(-1);
if (largest) {
  const atMillion = (largest.messages as number) >= 1_000_000;
  for (const kind of ['commonWordAll', 'rareWordAll', 'twoWordsOneInbox', 'phraseAll', 'operatorsAll']) {
    const p99 = (largest[kind] as { p99ms?: number } | undefined)?.p99ms ?? null;
    goals.push({
      goal: `search ${kind} p99 ≤ 50 ms at 1,000,000 messages (run: ${(largest.messages as number).toLocaleString('en-US')})`,
      value: p99,
      status: p99 === null || !atMillion ? 'n/a' : p99 <= 50 ? 'PASS' : 'MISS',
    });
  }
}
const ing = figures.ingest as { cpuRatio?: number } | undefined;
if (ing?.cpuRatio !== undefined) {
  const cost = round((1 / ing.cpuRatio - 1) * 100, 1);
  goals.push({ goal: 'the search index costs ingest ≤ 5 % (server CPU per message, %)', value: cost, status: cost <= 5 ? 'PASS' : 'MISS' });
}
figures.goals = goals;
report('search', figures, lines);
