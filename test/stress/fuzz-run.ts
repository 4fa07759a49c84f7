// The MIME fuzz rounds: mutated corpus messages through the ingest analysis (parse → extract → hash, the code the
// ingest worker runs) in-process, and through a real server over SMTP.
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyze } from '../../src/ingest/analyze.ts';
import { startTestServer } from '../helpers/server.ts';
import { listAll, RawSmtp } from './lib.ts';
import { type MutationBudget, mutatedMessage, QUICK } from './mime-mutations.ts';

/** Longest time one message may take through parse + extract (the ingest worker's own limit is 30 s). */
export const PER_MESSAGE_LIMIT_MS = 30_000;

export async function fuzzAnalyze(
  runs: number,
  seed: number,
  budget: MutationBudget = QUICK,
): Promise<{ slowestMs: number; parseErrors: number; bytes: number }> {
  let slowestMs = 0;
  let parseErrors = 0;
  let bytes = 0;
  const details = await fc.check(
    fc.asyncProperty(mutatedMessage(budget), async (raw) => {
      const t0 = performance.now();
      const a = await analyze(raw, []);
      const ms = performance.now() - t0;
      slowestMs = Math.max(slowestMs, ms);
      bytes += raw.length;
      if (a.parseError) parseErrors++;
      assert.ok(ms < PER_MESSAGE_LIMIT_MS, `one message took ${Math.round(ms)} ms`);
      assert.equal(typeof a.parsed.subject, 'string');
      assert.match(a.rawSha256, /^[0-9a-f]{64}$/);
      assert.equal(a.attachmentSha256.length, a.parsed.attachments.length);
      assert.ok(a.extraction && typeof a.extraction === 'object');
      JSON.stringify(a.extraction);
    }),
    { numRuns: runs, seed, endOnFailure: true },
  );
  // Not fc.assert: its report prints the whole counterexample, megabytes of bytes.
  if (details.failed) {
    const raw = details.counterexample?.[0];
    const file = `/tmp/inboxd-fuzz-counterexample-${seed}.eml`;
    if (raw) (await import('node:fs')).writeFileSync(file, raw);
    throw new Error(
      `fuzz failed after ${details.numRuns} runs (seed ${seed}, path ${details.counterexamplePath}); message (${raw?.length} bytes) saved to ${file}: ${String((details.errorInstance as Error)?.message ?? details.errorInstance).slice(0, 500)}`,
    );
  }
  return { slowestMs: Math.round(slowestMs), parseErrors, bytes };
}

/** SMTP dot-stuffing of arbitrary bytes, ended with CRLF.CRLF. */
function stuffed(raw: Buffer): Buffer {
  const s = raw.toString('latin1').replace(/(^|\n)\./g, '$1..');
  return Buffer.from(s + '\r\n.\r\n', 'latin1');
}

export async function fuzzIngest(
  count: number,
  seed: number,
  budget: MutationBudget = QUICK,
): Promise<{ stored: number; rejected: string[] }> {
  const srv = await startTestServer();
  try {
    const inbox = (await (await srv.api('/v1/inboxes', { method: 'POST', json: { label: 'fuzz' } })).json()) as {
      inboxId: string;
      address: string;
    };
    const messages = fc.sample(mutatedMessage(budget), { numRuns: count, seed });
    const smtp = new RawSmtp(srv.server.smtpPort);
    await smtp.reply();
    await smtp.cmd('EHLO fuzz.example');
    let stored = 0;
    const rejected: string[] = [];
    for (const raw of messages) {
      assert.match(await smtp.cmd('MAIL FROM:<fuzz@example.com>'), /^250 /);
      assert.match(await smtp.cmd(`RCPT TO:<${inbox.address}>`), /^250 /);
      assert.match(await smtp.cmd('DATA'), /^354 /);
      const done = smtp.reply(PER_MESSAGE_LIMIT_MS * 3);
      smtp.write(stuffed(raw));
      const reply = await done;
      if (reply.startsWith('250')) stored++;
      else {
        // cleanly rejected: a proper SMTP error, and the session goes on
        assert.match(reply, /^[45]\d\d /, `reply to a fuzzed message: ${reply}`);
        rejected.push(reply.slice(0, 60));
      }
    }
    smtp.destroy();
    const listed = await listAll(srv, inbox.inboxId);
    assert.equal(listed.length, stored, 'every 250 is a stored message, nothing else is');
    for (const m of listed.slice(0, 200)) {
      assert.equal((await srv.api(`/v1/inboxes/${inbox.inboxId}/messages/${m.messageId}`)).status, 200);
      const raw = await srv.api(`/v1/inboxes/${inbox.inboxId}/messages/${m.messageId}/raw`);
      assert.equal(raw.status, 200);
      assert.equal((await raw.arrayBuffer()).byteLength, m.size);
    }
    return { stored, rejected };
  } finally {
    await srv.stop();
  }
}
