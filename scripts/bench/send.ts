// Sending: local delivery msg/s (inbox → inbox on the same inboxd: the send answers once both copies are stored)
// and relay msg/s (inbox → external address through --smtp-relay, counted until the relay took every message)
// against Postfix's smtp-sink, which accepts and discards everything.
//   node scripts/bench/send.ts [--messages 3000] [--clients 16] [--size 2048] [--source]
import path from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { report, round, sleep, startInboxd } from './lib.ts';
import { startSink } from './peers.ts';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '3000' },
    clients: { type: 'string', default: '16' },
    size: { type: 'string', default: '2048' },
    source: { type: 'boolean', default: false },
  },
});
const messages = Number(values.messages);
const clients = Number(values.clients);
const text = 'Hello from the send benchmark. '.repeat(Math.max(1, Math.round(Number(values.size) / 31)));

const sink = await startSink();
const srv = await startInboxd(['--smtp-relay', `smtp://127.0.0.1:${sink.port}`, '--max-sends-per-minute', '0'], { source: values.source });
try {
  const mk = async () => {
    const r = await srv.api('/v1/inboxes', { method: 'POST', json: { label: 'send-bench' } });
    if (r.status !== 201) throw new Error(`create inbox: ${r.status} ${await r.text()}`);
    return (await r.json()) as { inboxId: string; address: string };
  };
  const a = await mk();
  const b = await mk();

  /** `messages` sends from `clients` concurrent HTTP clients; resolves with the seconds until the last answer. */
  const run = async (to: string, tag: string): Promise<number> => {
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let n = c; n < messages; n += clients) {
          const r = await srv.api(`/v1/inboxes/${a.inboxId}/send`, { method: 'POST', json: { to, subject: `${tag} ${n}`, text } });
          if (r.status !== 202) throw new Error(`send: ${r.status} ${await r.text()}`);
          await r.arrayBuffer();
        }
      }),
    );
    return (performance.now() - t0) / 1000;
  };

  const localSeconds = await run(b.address, 'local');

  const db = new BetterSqlite3(path.join(srv.dataDir, 'inboxd.db'), { readonly: true, fileMustExist: true });
  const relayed = () =>
    (db.prepare("select count(*) n from outbound_deliveries where route = 'relay' and state = 'sent'").get() as { n: number }).n;
  const t0 = performance.now();
  const acceptSeconds = await run('sink@example.com', 'relay');
  const deadline = Date.now() + 300_000;
  while (relayed() < messages && Date.now() < deadline) await sleep(20);
  const relaySeconds = (performance.now() - t0) / 1000;
  const done = relayed();
  const failed = (db.prepare("select count(*) n from outbound_deliveries where state = 'failed'").get() as { n: number }).n;
  db.close();
  if (done < messages) process.exitCode = 1;

  const figures = {
    kind: srv.kind,
    messages,
    clients,
    bodyBytes: text.length,
    localMessagesPerSecond: Math.round(messages / localSeconds),
    relayAcceptedPerSecond: Math.round(messages / acceptSeconds),
    relayMessagesPerSecond: Math.round(done / relaySeconds),
    relaySeconds: round(relaySeconds),
    relayed: done,
    failed,
  };
  report('send', figures, [
    `send (${srv.kind}): local delivery ${figures.localMessagesPerSecond} msg/s (${messages} sends inbox → inbox, ${clients} HTTP clients; each answered after both copies are durably stored)`,
    `send (${srv.kind}): relay ${figures.relayMessagesPerSecond} msg/s to Postfix smtp-sink (${done}/${messages} relayed in ${figures.relaySeconds} s; the send calls themselves were answered at ${figures.relayAcceptedPerSecond}/s); failed: ${failed}`,
  ]);
} finally {
  await srv.stop();
  await sink.stop();
  process.exit(process.exitCode ?? 0);
}
