// One crash-safety round: 20 SMTP sessions deliver into a running inboxd, which is SIGKILLed at a chosen moment;
// after a restart every message acknowledged with 250 must be listed and its raw bytes readable, no half message may
// exist (rows without blobs, blobs of the wrong size), and SQLite's integrity check must pass. Rounds share one data
// dir, so each restart also recovers from every earlier kill.
import assert from 'node:assert/strict';
import { checkStore, createInbox, listAll, RawSmtp, sleep, startChild } from './lib.ts';

export interface CrashState {
  dir: string;
  inboxes: Array<{ inboxId: string; address: string }>;
  /** subject → inbox id, for every message answered 250 in any round. */
  acked: Map<string, string>;
  round: number;
}

export function newCrashState(dir: string): CrashState {
  return { dir, inboxes: [], acked: new Map(), round: 0 };
}

/** A body of roughly `size` bytes; every fifth message is multipart with a small attachment. */
function message(subject: string, size: number, n: number): string {
  const line = `message ${subject} ${'x'.repeat(60)}\n`;
  const text = line.repeat(Math.max(1, Math.floor(size / line.length)));
  if (n % 5 !== 0) return `From: load@example.com\nSubject: ${subject}\n\n${text}`;
  const att = Buffer.from(`attachment of ${subject}\n`.repeat(40)).toString('base64').replace(/.{76}/g, '$&\n');
  return `From: load@example.com\nSubject: ${subject}\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b${n}\n\n--b${n}\nContent-Type: text/plain\n\n${text}\n--b${n}\nContent-Type: application/octet-stream\nContent-Disposition: attachment; filename=a${n}.bin\nContent-Transfer-Encoding: base64\n\n${att}\n--b${n}--\n`;
}

async function session(
  port: number,
  c: number,
  round: number,
  to: { inboxId: string; address: string },
  acked: Map<string, string>,
  stop: () => boolean,
): Promise<number> {
  const s = new RawSmtp(port);
  let sent = 0;
  try {
    if (!(await s.reply()).startsWith('220')) return 0;
    if (!(await s.cmd('EHLO crash.example')).startsWith('250')) return 0;
    for (let n = 0; !stop() && !s.closed; n++) {
      const subject = `r${round}-c${c}-n${n}`;
      if (!(await s.cmd('MAIL FROM:<load@example.com>')).startsWith('250')) break;
      if (!(await s.cmd(`RCPT TO:<${to.address}>`)).startsWith('250')) break;
      if (!(await s.cmd('DATA')).startsWith('354')) break;
      const body = message(subject, [1024, 5120, 20_000][n % 3]!, n).replace(/\n/g, '\r\n');
      const r = await s.cmd(body + '.');
      if (r.startsWith('250')) {
        acked.set(subject, to.inboxId);
        sent++;
      } else break; // the server died mid-reply: not acknowledged
    }
  } finally {
    s.destroy();
  }
  return sent;
}

/** Runs one round; `killAfterMs` is how long after the sessions start the server is SIGKILLed. */
/**
 * `fromFirstAck`: the kill timer starts at the round's first acknowledged message instead of at the sessions' start,
 * so a slow, busy machine (a cold restart under load) still kills mid-ingest rather than before anything was stored.
 */
export async function crashRound(
  state: CrashState,
  killAfterMs: number,
  sessions = 20,
  opts: { fromFirstAck?: boolean } = {},
): Promise<{ ackedThisRound: number; total: number; storedRows: number }> {
  const round = state.round++;
  let srv = await startChild(state.dir);
  while (state.inboxes.length < sessions) state.inboxes.push(await createInbox(srv, { label: 'crash' }));
  const before = state.acked.size;
  let stopped = false;
  const clients = Array.from({ length: sessions }, (_, c) => session(srv.smtp, c, round, state.inboxes[c]!, state.acked, () => stopped));
  if (opts.fromFirstAck)
    for (let waited = 0; state.acked.size === before; waited += 10) {
      if (waited > 60_000) throw new Error(`round ${round}: no message acknowledged within 60 s of the start`);
      await sleep(10);
    }
  await sleep(killAfterMs);
  await srv.kill();
  stopped = true;
  await Promise.all(clients);
  const ackedThisRound = state.acked.size - before;

  srv = await startChild(state.dir);
  try {
    const found = new Map<string, string>();
    for (const inbox of state.inboxes) for (const m of await listAll(srv, inbox.inboxId)) found.set(m.subject, m.messageId);
    const missing = [...state.acked.keys()].filter((s) => !found.has(s));
    assert.deepEqual(
      missing.slice(0, 20),
      [],
      `round ${round}: ${missing.length} of ${state.acked.size} acknowledged messages are missing`,
    );
    // Raw bytes of this round's acknowledged messages (the ones a kill could have hurt) and a sample of older ones.
    const thisRound = [...state.acked].filter(([s]) => s.startsWith(`r${round}-`));
    const older = [...state.acked].filter(([s]) => !s.startsWith(`r${round}-`)).slice(-50);
    for (const [subject, inboxId] of [...thisRound.slice(-400), ...older]) {
      const res = await srv.api(`/v1/inboxes/${inboxId}/messages/${found.get(subject)}/raw`);
      assert.equal(res.status, 200, `raw of ${subject}`);
      assert.ok((await res.text()).includes(`message ${subject} `), `raw of ${subject} has its body`);
    }
  } finally {
    assert.equal(await srv.stop(), 0, 'the restarted server stops cleanly');
  }
  const { messages } = checkStore(state.dir);
  return { ackedThisRound, total: state.acked.size, storedRows: messages };
}
