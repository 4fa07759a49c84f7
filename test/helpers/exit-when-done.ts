// Loaded into every test process (`node --test --import ./test/helpers/exit-when-done.ts`, package.json and
// scripts/test-cluster.ts): once a file's tests and its after hooks have run, a handle left open — a server a failed
// `before` hook started and the `after` hook never reached — must not keep the process alive. On Node 24 it does,
// forever: a CI run's cluster tests waited 72 minutes on one. An unref'd timer, set when the root's after hooks begin,
// ends such a process 60 s later (time for the shared helpers' hooks to stop PostgreSQL, Swift and the servers);
// a process that ends by itself is not held by it. The exit code is the runner's (1 if a test failed).
// Node's own `--test-force-exit` is not used: it ended files before all their tests had run (30 of 88 in
// test/unit/extract-messages.test.ts), silently.
import { after } from 'node:test';

/** INBOXD_TEST_EXIT_GRACE_MS: a shorter grace for the test of this file (test/unit/test-runner-safety.test.ts). */
export const GRACE_MS = Number(process.env.INBOXD_TEST_EXIT_GRACE_MS) || 60_000;

after(() => {
  setTimeout(() => {
    console.error(`exit-when-done: a handle was still open ${GRACE_MS / 1000} s after the last test and hook; exiting`);
    process.exit();
  }, GRACE_MS).unref();
});
