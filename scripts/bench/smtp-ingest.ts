// Messages/s that inboxd stores durably, driven by Postfix's smtp-source (20 sessions × 5 KB by default).
//   node scripts/bench/smtp-ingest.ts [--sessions 20] [--size 5120] [--messages 20000] [--source]
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { postfixTool, report, rssMb, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    sessions: { type: 'string', default: '20' },
    size: { type: 'string', default: '5120' },
    messages: { type: 'string', default: '20000' },
    source: { type: 'boolean', default: false },
  },
});
const sessions = Number(values.sessions);
const size = Number(values.size);
const messages = Number(values.messages);

const tool = postfixTool('smtp-source');
const srv = await startInboxd([], { source: values.source });
try {
  const inbox = (await (await srv.api('/v1/inboxes', { method: 'POST', json: { localPart: 'bench', ttlMinutes: 60 } })).json()) as {
    inboxId: string;
    address: string;
  };
  // warm-up
  spawnSync(
    tool.cmd,
    ['-s', '4', '-m', '400', '-l', String(size), '-f', 'load@example.com', '-t', inbox.address, `127.0.0.1:${srv.smtp}`],
    { env: tool.env },
  );
  const t0 = performance.now();
  const r = spawnSync(
    tool.cmd,
    [
      '-s',
      String(sessions),
      '-m',
      String(messages),
      '-l',
      String(size),
      '-f',
      'load@example.com',
      '-t',
      inbox.address,
      `127.0.0.1:${srv.smtp}`,
    ],
    { env: tool.env, encoding: 'utf8' },
  );
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`smtp-source failed: ${r.stderr}`);
  const got = (await (await srv.api(`/v1/inboxes/${inbox.inboxId}`)).json()) as { messagesReceived: number };
  const stored = got.messagesReceived - 400;
  const perSecond = Math.round(messages / seconds);
  const mbPerSecond = Math.round(((messages * size) / seconds / 1024 / 1024) * 10) / 10;
  report(
    'smtp-ingest',
    {
      kind: srv.kind,
      sessions,
      size,
      messages,
      stored,
      seconds: Math.round(seconds * 100) / 100,
      perSecond,
      mbPerSecond,
      rssMb: rssMb(srv.child.pid!),
    },
    [
      `smtp-ingest (${srv.kind}): ${messages} × ${size} B over ${sessions} sessions in ${seconds.toFixed(2)} s → ${perSecond} msg/s, ${mbPerSecond} MB/s; stored ${stored}/${messages}; RSS ${rssMb(srv.child.pid!)} MB`,
    ],
  );
  if (stored !== messages) process.exitCode = 1;
} finally {
  await srv.stop();
}
