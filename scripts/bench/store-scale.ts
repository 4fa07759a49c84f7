// Scale of the store: messages are generated straight through the store layer (IngestWriter group commits, not
// SMTP) into 1,000 inboxes — first 10,000, then up to 1,000,000 — and at each size a fresh inboxd on that data dir is
// measured over HTTP: message lookup by id, per-inbox list (newest 10), and wait wake-up (end of SMTP DATA → waiting
// client). Flat means the 1M figures are close to the 10k ones. RSS of the server is reported at each size.
// (There is no keyword-search endpoint to measure yet.)
//   node scripts/bench/store-scale.ts [--messages 1000000] [--inboxes 1000] [--source]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CompiledQuery } from 'kysely';
import { analyze } from '../../src/ingest/analyze.ts';
import { IngestWriter } from '../../src/ingest/writer.ts';
import { newId } from '../../src/lib/ids.ts';
import { createLogger } from '../../src/log.ts';
import { LocalBlobStore } from '../../src/store/blobs.ts';
import { dbFile, openStore } from '../../src/store/db.ts';
import { MessageRepo } from '../../src/store/messages.ts';
import { type Inboxd, machine, percentile, report, round, rssMb, SmtpSession, sleep, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000000' },
    inboxes: { type: 'string', default: '1000' },
    source: { type: 'boolean', default: false },
  },
});
const target = Number(values.messages);
const inboxCount = Number(values.inboxes);
const stages = [...new Set([Math.min(10_000, target), target])];

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-scale-'));
const silent = createLogger({ level: 'silent', format: 'json', write: () => undefined });

// 1. Inboxes, made by the server itself.
let inboxes: Array<{ inboxId: string; address: string }> = [];
{
  const srv = await startInboxd([], { source: values.source, dataDir });
  for (let i = 0; i < inboxCount; i++) {
    const res = await srv.api('/v1/inboxes', { method: 'POST', json: { label: 'scale', ttlMinutes: 10080 } });
    inboxes.push((await res.json()) as { inboxId: string; address: string });
  }
  await srv.stop();
}

// 2. A template message, analysed once; every generated row is a variation of it sharing its raw blob.
const sample = Buffer.from(
  'From: GitHub <noreply@github.com>\r\nTo: someone@inboxd.test\r\nSubject: [GitHub] Please verify your device\r\nDate: Sun, 22 Nov 2026 00:00:00 +0000\r\nMessage-ID: <sample@github.com>\r\n\r\n' +
    'Verification code: 482913\r\n\r\nIf you did not try to sign in, change your password.\r\n' +
    'filler line for a body of a realistic size\r\n'.repeat(60),
);
const template = await analyze(sample, []);
const COLUMNS = [
  'id',
  'inbox_id',
  'rcpt',
  'seq',
  'received_at',
  'mail_from',
  'from_address',
  'from_name',
  'to_json',
  'cc_json',
  'subject',
  'date',
  'message_id_header',
  'in_reply_to',
  'references_json',
  'size',
  'raw_sha256',
  'text_body',
  'html_body',
  'headers_json',
  'attachment_count',
  'otp',
  'primary_link',
  'extraction_json',
  'source',
];
const BATCH = 400;
const insertSql = `insert into "messages" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) values ${Array.from({ length: BATCH }, () => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')}`;
const seqs = new Map<string, number>(inboxes.map((ib) => [ib.inboxId, 0]));
let generated = 0;
const t0Base = Date.now() - 7 * 24 * 3600 * 1000;
const ids: Array<{ inboxId: string; messageId: string }> = [];

async function generateTo(total: number): Promise<number> {
  const store = await openStore(dbFile(dataDir));
  const blobs = new LocalBlobStore(path.join(dataDir, 'blobs'));
  await blobs.put(sample, { sha256: template.rawSha256 });
  const writer = new IngestWriter({ db: store.db, blobs, messages: new MessageRepo(store.db), log: silent });
  const t0 = performance.now();
  const jobs: Array<Promise<unknown>> = [];
  while (generated < total) {
    const params: unknown[] = [];
    for (let k = 0; k < BATCH; k++) {
      const n = generated + k;
      const ib = inboxes[n % inboxes.length]!;
      const seq = seqs.get(ib.inboxId)! + 1;
      seqs.set(ib.inboxId, seq);
      const id = newId('msg');
      if (n % 97 === 0 && ids.length < 200_000) ids.push({ inboxId: ib.inboxId, messageId: id });
      const code = String(100000 + (n % 900000));
      params.push(
        id,
        ib.inboxId,
        ib.address,
        seq,
        t0Base + n,
        'noreply@github.com',
        'noreply@github.com',
        'GitHub',
        JSON.stringify(template.parsed.to),
        '[]',
        `[GitHub] Your code is ${code} (#${n})`,
        t0Base + n,
        `<m${n}@github.com>`,
        null,
        '[]',
        sample.length,
        template.rawSha256,
        template.parsed.text,
        null,
        JSON.stringify(template.parsed.headers),
        0,
        code,
        null,
        JSON.stringify({ ...template.extraction, otp: code }),
        'generated',
      );
    }
    generated += BATCH;
    jobs.push(writer.store({ blobs: [], insert: async (trx) => trx.executeQuery(CompiledQuery.raw(insertSql, params)) }));
    if (jobs.length >= 8) await Promise.all(jobs.splice(0));
  }
  await Promise.all(jobs);
  // Each inbox's sequence counter, as ingest would have left it.
  await writer.run(async () => {
    for (const [id, seq] of seqs) await store.db.updateTable('inboxes').set({ message_seq: seq }).where('id', '=', id).execute();
  });
  await writer.drained();
  const seconds = (performance.now() - t0) / 1000;
  store.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  await store.close();
  return seconds;
}

async function measure(srv: Inboxd): Promise<Record<string, unknown>> {
  const timed = async (n: number, one: (i: number) => Promise<void>) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      await one(i);
      out.push(performance.now() - t0);
    }
    out.sort((a, b) => a - b);
    return { p50ms: round(percentile(out, 50)), p99ms: round(percentile(out, 99)) };
  };
  const pick = (i: number) => ids[(i * 7919) % ids.length]!;
  await timed(200, async (i) => void (await (await srv.api(`/v1/inboxes/${pick(i).inboxId}/messages/${pick(i).messageId}`)).arrayBuffer()));
  const lookup = await timed(2000, async (i) => {
    const res = await srv.api(`/v1/inboxes/${pick(i).inboxId}/messages/${pick(i).messageId}`);
    if (res.status !== 200) throw new Error(`lookup answered ${res.status}`);
    await res.arrayBuffer();
  });
  const list = await timed(1000, async (i) => {
    // Newest 10: every inbox has at least 10 messages at every stage, so each answer is the same size.
    const res = await srv.api(`/v1/inboxes/${inboxes[(i * 31) % inboxes.length]!.inboxId}/messages?limit=10`);
    if (res.status !== 200) throw new Error(`list answered ${res.status}`);
    await res.arrayBuffer();
  });
  // Wait wake-up: 20 waiters on inboxes that already hold their share of the store.
  const smtp = await SmtpSession.open(srv.smtp);
  const wake: number[] = [];
  const body = 'Subject: Your code is 777777\nFrom: bench@example.com\n\nUse 777777.\n';
  for (let n = 0; n < 200; n++) {
    const ib = inboxes[n % 20]!;
    const latest = (await (await srv.api(`/v1/inboxes/${ib.inboxId}/messages?limit=1`)).json()) as { items: Array<{ messageId: string }> };
    const waiting = srv.api(`/v1/inboxes/${ib.inboxId}/wait?timeoutSeconds=30&since=${latest.items[0]!.messageId}`).then(async (r) => {
      const at = performance.now();
      await r.arrayBuffer();
      return at;
    });
    await sleep(5);
    const { reply, endOfData } = await smtp.send('bench@example.com', ib.address, body);
    if (!reply.startsWith('250')) throw new Error(`SMTP ${reply}`);
    wake.push((await waiting) - endOfData);
  }
  smtp.close();
  wake.sort((a, b) => a - b);
  return {
    lookup,
    list,
    waitWake: { p50ms: round(percentile(wake, 50)), p99ms: round(percentile(wake, 99)) },
    rssMb: rssMb(srv.child.pid!),
  };
}

const results: Array<Record<string, unknown>> = [];
const lines: string[] = [];
try {
  for (const stage of stages) {
    const seconds = await generateTo(stage);
    const dbMb = Math.round(fs.statSync(dbFile(dataDir)).size / 1048576);
    const srv = await startInboxd([], { source: values.source, dataDir });
    try {
      const m = await measure(srv);
      const row = { messages: generated, generateSeconds: round(seconds, 1), dbMb, ...m };
      results.push(row);
      const l = m.lookup as { p50ms: number; p99ms: number };
      const li = m.list as { p50ms: number; p99ms: number };
      const w = m.waitWake as { p50ms: number; p99ms: number };
      lines.push(
        `${String(generated).padStart(8)} messages (db ${dbMb} MB, generated in ${round(seconds, 1)} s): lookup p50 ${l.p50ms} / p99 ${l.p99ms} ms; list p50 ${li.p50ms} / p99 ${li.p99ms} ms; wait wake-up p50 ${w.p50ms} / p99 ${w.p99ms} ms; RSS ${m.rssMb} MB`,
      );
      console.log(lines.at(-1));
    } finally {
      await srv.stop();
    }
  }
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
const first = results[0] as Record<string, { p50ms: number }>;
const last = results.at(-1) as Record<string, { p50ms: number }>;
const ratio = (k: string) => round(last[k]!.p50ms / first[k]!.p50ms);
const ratios = { lookup: ratio('lookup'), list: ratio('list'), waitWake: ratio('waitWake') };
lines.push(
  `p50 ratio ${results.at(-1)!.messages} ÷ ${results[0]!.messages}: lookup ${ratios.lookup}×, list ${ratios.list}×, wait wake-up ${ratios.waitWake}×`,
);
report('store-scale', { machine: machine(), inboxes: inboxCount, stages: results, ratios }, [lines.at(-1)!]);
inboxes = [];
