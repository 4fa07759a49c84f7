// The same bytes mailed again and again to one inbox (anyone can do it): how the time per 1,000 copies grows as the
// copies pile up. Before migration 020 every copy re-indexed the content with the scope of all earlier copies, so the
// time per copy grew with their number. Runs this tree's server and, with --baseline-commit REV, that commit's build
// side by side.
//   node scripts/bench/same-bytes.ts [--copies 10000] [--baseline-commit REV] [--source]

import path from 'node:path';
import { parseArgs } from 'node:util';
import { baselineFromCommit, type Inboxd, report, round, SmtpSession, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    copies: { type: 'string', default: '10000' },
    'baseline-commit': { type: 'string' },
    source: { type: 'boolean', default: false },
  },
});
const copies = Number(values.copies);
const RAW = [
  'From: Repeat <repeat@sender.example>',
  'To: target@inboxd.test',
  'Subject: The same bytes again',
  'Message-ID: <same-bytes@sender.example>',
  'Date: Fri, 27 Nov 2026 01:00:00 +0000',
  '',
  'Exactly these bytes, every time.',
].join('\r\n');

async function run(name: string, server: Inboxd): Promise<Record<string, number>> {
  const inbox = (await (await server.api('/v1/inboxes', { method: 'POST', json: { localPart: 'target' } })).json()) as { address: string };
  const smtp = await SmtpSession.open(server.smtp);
  const perThousand: Record<string, number> = {};
  let t = performance.now();
  const t0 = t;
  for (let i = 1; i <= copies; i++) {
    const { reply } = await smtp.send('repeat@sender.example', inbox.address, RAW);
    if (!reply.startsWith('250')) throw new Error(`${name}: copy ${i} answered ${reply}`);
    if (i % 1000 === 0) {
      const now = performance.now();
      perThousand[`copies ${i - 999}-${i} s`] = round((now - t) / 1000);
      t = now;
    }
  }
  smtp.close();
  console.log(`${name}: ${copies} copies in ${round((performance.now() - t0) / 1000)} s`, perThousand);
  return { total_s: round((performance.now() - t0) / 1000), ...perThousand };
}

const results: Record<string, unknown> = {};
const current = await startInboxd([], { source: values.source });
try {
  results.current = await run('this tree', current);
} finally {
  await current.stop();
}
if (values['baseline-commit']) {
  const dir = baselineFromCommit(values['baseline-commit']);
  const base = await startInboxd([], { binary: path.join(dir, 'dist/inboxd') });
  try {
    results.baseline = await run(`baseline ${values['baseline-commit']}`, base);
  } finally {
    await base.stop();
  }
}
report('same-bytes', { copies, ...results }, []);
