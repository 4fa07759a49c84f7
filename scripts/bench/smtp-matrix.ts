// SMTP ingest side by side: the same Postfix smtp-source load against inboxd (durable: 250 only after the commit),
// Postfix smtp-sink (discards everything: the protocol ceiling) and MailDev (npm maildev, persisting to a folder),
// 1 and 20 sessions × 1 KB / 5 KB / 100 KB. Reports messages/s, MB/s and inboxd ÷ sink, inboxd ÷ MailDev.
//   node scripts/bench/smtp-matrix.ts [--quick] [--source] [--peers sink,maildev]
import { parseArgs } from 'node:util';
import { machine, report, round, rssMb, smtpSource, startInboxd, startMaildev, startSink, type Peer } from './lib.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    source: { type: 'boolean', default: false },
    peers: { type: 'string', default: 'sink,maildev' },
  },
});
const q = values.quick ? 0.2 : 1;

interface Cell {
  sessions: number;
  size: number;
  messages: number;
}
const cells: Cell[] = [
  { sessions: 1, size: 1024, messages: 3000 },
  { sessions: 20, size: 1024, messages: 20000 },
  { sessions: 1, size: 5120, messages: 3000 },
  { sessions: 20, size: 5120, messages: 20000 },
  { sessions: 1, size: 102400, messages: 1000 },
  { sessions: 20, size: 102400, messages: 4000 },
].map((c) => ({ ...c, messages: Math.round(c.messages * q) }));

type Row = Cell & { target: string; seconds: number; perSecond: number; mbPerSecond: number; stored?: number; ok: boolean };
const rows: Row[] = [];

/**
 * MailDev answers each connection after smtp-server's default 100 ms greeting delay, and smtp-source opens a new
 * connection for every message, so one session reaches ~10 messages/s there: its cells get fewer messages.
 */
const maildevCap = (c: Cell) => Math.min(c.messages, Math.round((c.sessions === 1 ? 300 : 4000) * q));

async function runTarget(name: string, port: number, to: string, afterCell?: (c: Cell) => Promise<number>): Promise<void> {
  // warm-up
  await smtpSource({ port, sessions: 4, size: 5120, messages: 400, to });
  for (const full of cells) {
    const c = name === 'MailDev' ? { ...full, messages: maildevCap(full) } : full;
    const r = await smtpSource({ port, ...c, to });
    const stored = afterCell ? await afterCell(c) : undefined;
    const row: Row = {
      ...c,
      target: name,
      seconds: round(r.seconds),
      perSecond: Math.round(c.messages / r.seconds),
      mbPerSecond: round((c.messages * c.size) / r.seconds / 1048576, 1),
      ok: r.ok,
      ...(stored !== undefined ? { stored } : {}),
    };
    rows.push(row);
    console.log(
      `${name.padEnd(9)} ${String(c.sessions).padStart(2)} sessions × ${String(c.size / 1024).padStart(3)} KB: ${String(row.perSecond).padStart(6)} msg/s ${String(row.mbPerSecond).padStart(6)} MB/s (${c.messages} in ${row.seconds} s)${stored !== undefined ? ` stored ${stored}/${c.messages}` : ''}${r.ok ? '' : ' FAILED: ' + r.stderr.slice(0, 200)}`,
    );
  }
}

const peers = new Set(values.peers.split(',').filter(Boolean));
let inboxdRss = 0;
let kind = '';
{
  const srv = await startInboxd([], { source: values.source });
  kind = srv.kind;
  try {
    const inbox = (await (await srv.api('/v1/inboxes', { method: 'POST', json: { localPart: 'matrix', ttlMinutes: 600 } })).json()) as {
      inboxId: string;
      address: string;
    };
    let before = 400;
    await runTarget('inboxd', srv.smtp, inbox.address, async (c) => {
      const got = (await (await srv.api(`/v1/inboxes/${inbox.inboxId}`)).json()) as { messagesReceived: number };
      const stored = got.messagesReceived - before - c.messages;
      before = got.messagesReceived;
      return c.messages + stored;
    });
    inboxdRss = rssMb(srv.child.pid!);
  } finally {
    await srv.stop();
  }
}
const starters: Array<[string, () => Promise<Peer>]> = [];
if (peers.has('sink')) starters.push(['smtp-sink', startSink]);
if (peers.has('maildev')) starters.push(['MailDev', startMaildev]);
for (const [name, start] of starters) {
  const peer = await start();
  try {
    await runTarget(name, peer.port, 'anyone@inboxd.test');
  } finally {
    await peer.stop();
  }
}

const ratios = cells.map((c) => {
  const get = (t: string) => rows.find((r) => r.target === t && r.sessions === c.sessions && r.size === c.size)?.perSecond;
  const i = get('inboxd');
  const s = get('smtp-sink');
  const m = get('MailDev');
  return {
    sessions: c.sessions,
    size: c.size,
    inboxd: i,
    sink: s,
    maildev: m,
    inboxdToSink: i && s ? round(i / s) : null,
    inboxdToMaildev: i && m ? round(i / m) : null,
  };
});
const lines = ['', 'sessions × size   inboxd   smtp-sink   MailDev   inboxd÷sink   inboxd÷MailDev'];
for (const r of ratios)
  lines.push(
    `${String(r.sessions).padStart(2)} × ${String(r.size / 1024).padStart(3)} KB   ${String(r.inboxd ?? '-').padStart(7)}   ${String(r.sink ?? '-').padStart(9)}   ${String(r.maildev ?? '-').padStart(7)}   ${String(r.inboxdToSink ?? '-').padStart(11)}   ${String(r.inboxdToMaildev ?? '-').padStart(14)}`,
  );
report('smtp-matrix', { kind, machine: machine(), rows, ratios, inboxdRssMbAfter: inboxdRss }, lines);
if (rows.some((r) => !r.ok || (r.stored !== undefined && r.stored !== r.messages))) process.exitCode = 1;
