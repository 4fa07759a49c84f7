// What counting limits in the database costs a request (issue 33, README "Scaling out"): GET /v1/me with autocannon
// on one instance, SQLite and PostgreSQL, with --rate-limit 0 (no limiter) and with a limit too high to refuse (the
// limiter counts every request: in memory on SQLite, one batched upsert per tick on PostgreSQL); then MCP pings in one
// session (on PostgreSQL every request of a session reads its row back).
//   node scripts/bench/cluster-limits.ts [--seconds 5] [--connections 20]
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startPostgres } from '../../test/helpers/postgres.ts';
import { BENCH_KEY, machine, report, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '5' }, connections: { type: 'string', default: '20' } },
});
const duration = Number(values.seconds);
const connections = Number(values.connections);
const pg = await startPostgres();
const cells: Array<Record<string, unknown>> = [];
const lines: string[] = [];
let dbs = 0;
try {
  for (const engine of ['sqlite', 'postgres'] as const)
    for (const limit of ['0', '100000000']) {
      const args = ['--rate-limit', limit];
      if (engine === 'postgres') args.push('--database', await pg.createDatabase(`limits_${++dbs}`));
      const srv = await startInboxd(args);
      try {
        const base = `http://127.0.0.1:${srv.http}`;
        const me = await autocannon({ url: `${base}/v1/me`, connections, duration, headers: { authorization: `Bearer ${BENCH_KEY}` } });
        const cell: Record<string, unknown> = {
          engine,
          limiter: limit !== '0',
          meRps: Math.round(me.requests.average),
          meP50: me.latency.p50,
          meP99: me.latency.p99,
        };
        if (limit !== '0') {
          const init = await fetch(`${base}/mcp`, {
            method: 'POST',
            headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json', accept: 'application/json' },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
            }),
          });
          const sid = init.headers.get('mcp-session-id')!;
          await init.text();
          const ping = await autocannon({
            url: `${base}/mcp`,
            method: 'POST',
            connections,
            duration,
            headers: {
              authorization: `Bearer ${BENCH_KEY}`,
              'content-type': 'application/json',
              accept: 'application/json',
              'mcp-session-id': sid,
            },
            // A request id of its own for each (two requests with one id in one session answer only one of them).
            body: '{"jsonrpc":"2.0","id":"[<id>]","method":"ping"}',
            idReplacement: true,
          });
          Object.assign(cell, {
            pingRps: Math.round(ping.requests.average),
            pingP50: ping.latency.p50,
            pingP99: ping.latency.p99,
            pingNon2xx: ping.non2xx,
          });
        }
        cells.push(cell);
        lines.push(JSON.stringify(cell));
      } finally {
        await srv.stop();
      }
    }
} finally {
  await pg.stop();
}
report('cluster-limits', { machine: machine(), duration, connections, cells }, lines);
