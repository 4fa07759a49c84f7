// Crash safety, long form: 20 SIGKILLs at random moments (seeded: INBOXD_STRESS_SEED) during 20-session ingest,
// all in one data dir. After each restart every 250-acknowledged message is there and readable, no half message
// exists and SQLite's integrity check passes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { crashRound, newCrashState } from './crash-run.ts';
import { killAll } from './lib.ts';

after(killAll);

const ROUNDS = Number(process.env.INBOXD_CRASH_ROUNDS ?? 20);
const SEED = Number(process.env.INBOXD_STRESS_SEED ?? 20261122);

test(`${ROUNDS} SIGKILLs at random moments during 20-session ingest lose no acknowledged message`, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-crash-stress-'));
  const state = newCrashState(dir);
  const moments = fc.sample(fc.integer({ min: 50, max: 2500 }), { numRuns: ROUNDS, seed: SEED });
  console.log(`seed ${SEED}; kill moments (ms): ${moments.join(', ')}`);
  try {
    for (const ms of moments) {
      const r = await crashRound(state, ms);
      console.log(
        `round ${state.round}/${ROUNDS}: killed after ${ms} ms; ${r.ackedThisRound} acknowledged this round, ${r.total} in all, ${r.storedRows} rows; integrity ok`,
      );
    }
    assert.equal(state.round, ROUNDS);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
