// SMTP abuse, quick form (the long form is test/stress/smtp-abuse.stress.ts): idle connections past the per-address
// limit, slowloris, 10,000 pipelined RCPTs, pipelined garbage, a 1 MB command line, binary junk, DATA that never
// ends, a connection flood — while a normal client keeps delivering. Every probe is accepted; memory stays bounded.
import { after, test } from 'node:test';
import { killAll } from '../stress/lib.ts';
import { runAbuse } from '../stress/smtp-abuse-run.ts';

after(killAll);

test('the SMTP listener stays responsive and bounded under abuse', async () => {
  await runAbuse({
    idle: 1000,
    idleAddresses: ['127.0.0.2'],
    idleHoldMs: 1000,
    slowlorisConnections: 50,
    slowlorisMs: 4000,
    rcpts: 10_000,
    garbageLines: 1000,
    commandLineBytes: 1024 * 1024,
    junkBytes: 256 * 1024,
    dataConnections: 20,
    dataBytes: 4 * 1024 * 1024,
    dataHoldMs: 1000,
    floodTotal: 2000,
    floodParallel: 200,
    serverArgs: [],
    maxRssMb: 1024,
  });
});
