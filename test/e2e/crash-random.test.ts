// Crash safety, quick form: two SIGKILLs at different moments while 20 SMTP sessions deliver (the 20-round version
// is test/stress/crash.stress.ts). After each restart every 250-acknowledged message is there and readable, no half
// message exists and SQLite's integrity check passes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { tempDir } from '../helpers/server.ts';
import { crashRound, newCrashState } from '../stress/crash-run.ts';
import { killAll } from '../stress/lib.ts';

after(killAll);

test('SIGKILL at two moments during 20-session ingest loses no acknowledged message', async () => {
  const dir = tempDir('inboxd-crash-');
  const state = newCrashState(dir);
  const moments = fc.sample(fc.integer({ min: 400, max: 1600 }), { numRuns: 2, seed: 8 });
  try {
    for (const ms of moments) {
      const r = await crashRound(state, ms, 20, { fromFirstAck: true });
      console.log(
        `crash round ${state.round}: killed ${ms} ms after the first acknowledgement; ${r.ackedThisRound} acknowledged this round, ${r.total} in all, ${r.storedRows} rows`,
      );
      assert.ok(r.ackedThisRound > 0, 'some messages were acknowledged before the kill');
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
