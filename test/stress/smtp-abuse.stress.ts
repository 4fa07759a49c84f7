// SMTP abuse, long form: 1,000 idle connections held from five addresses, a minute of slowloris, 100 connections
// pushing 25 MB of DATA each without ending it (more than the shared DATA memory budget), 20,000 connect/drops —
// while a normal client keeps delivering. Every probe is accepted; memory stays bounded.
import { after, test } from 'node:test';
import { killAll } from './lib.ts';
import { runAbuse } from './smtp-abuse-run.ts';

after(killAll);

test('the SMTP listener stays responsive and bounded under long abuse', { timeout: 10 * 60_000 }, async () => {
  await runAbuse({
    idle: 1000,
    idleAddresses: ['127.0.0.2', '127.0.0.12', '127.0.0.22', '127.0.0.32', '127.0.0.42'],
    idleHoldMs: 10_000,
    slowlorisConnections: 200,
    slowlorisMs: 60_000,
    rcpts: 10_000,
    garbageLines: 10_000,
    commandLineBytes: 1024 * 1024,
    junkBytes: 4 * 1024 * 1024,
    dataConnections: 100,
    dataBytes: 25 * 1024 * 1024,
    dataHoldMs: 10_000,
    floodTotal: 20_000,
    floodParallel: 500,
    serverArgs: ['--smtp-max-connections', '2000'],
    maxRssMb: 1536,
  });
});
