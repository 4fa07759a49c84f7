// PROXY protocol cost per connection: new connections to one dist/inboxd started with --trusted-proxies 127.0.0.9,
// directly (from 127.0.0.1, untrusted: the path every connection takes) and as a balancer would send them (from
// 127.0.0.9 with a v1 or v2 header). HTTP: GET /health with Connection: close; SMTP: banner, QUIT. Modes are
// interleaved in batches so drift of the machine's load hits them alike. Prints medians of the batches' mean per
// connection, then one JSON line.
//
//   node scripts/bench/proxy.ts [--batches 20] [--per-batch 50] [--quick]

import net from 'node:net';
import { parseArgs } from 'node:util';
import { machine, report, round, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: { batches: { type: 'string', default: '20' }, 'per-batch': { type: 'string', default: '50' }, quick: { type: 'boolean' } },
  strict: true,
});
const batches = values.quick ? 4 : Number(values.batches);
const perBatch = values.quick ? 20 : Number(values['per-batch']);
const BALANCER = '127.0.0.9';

function v2(client: string, port: number): Buffer {
  const b = Buffer.alloc(28);
  Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x21, 0x11, 0x00, 12]).copy(b);
  Buffer.from(client.split('.').map(Number)).copy(b, 16);
  Buffer.from([127, 0, 0, 1]).copy(b, 20);
  b.writeUInt16BE(40000, 24);
  b.writeUInt16BE(port, 26);
  return b;
}

type Mode = 'direct' | 'v1' | 'v2';
const header = (mode: Mode, port: number): Buffer =>
  mode === 'direct'
    ? Buffer.alloc(0)
    : mode === 'v1'
      ? Buffer.from(`PROXY TCP4 198.51.100.7 127.0.0.1 40000 ${port}\r\n`)
      : v2('198.51.100.7', port);

/** One connection: `first` at once, then `after` once `ready` matches; resolves when the server closes it. */
function once(port: number, mode: Mode, first: string, ready: RegExp | null, after: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let got = '';
    let sent = false;
    const s = net.connect({ host: '127.0.0.1', port, localAddress: mode === 'direct' ? '127.0.0.1' : BALANCER }, () => {
      s.write(Buffer.concat([header(mode, port), Buffer.from(first)]));
    });
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (ready && !sent && ready.test(got)) {
        sent = true;
        s.write(after);
      }
    });
    s.on('error', reject);
    s.on('close', () => (got ? resolve() : reject(new Error(`${mode}: closed without an answer`))));
  });
}

const server = await startInboxd(['--trusted-proxies', BALANCER, '--log-level', 'error']);
try {
  const probes = {
    http: (mode: Mode) => once(server.http, mode, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', null, ''),
    smtp: (mode: Mode) => once(server.smtp, mode, '', /^220 /m, 'QUIT\r\n'),
  };
  const modes: Mode[] = ['direct', 'v1', 'v2'];
  const perConn: Record<string, number[]> = {};
  for (const probe of Object.values(probes)) for (const m of modes) await probe(m); // warm-up
  for (let b = 0; b < batches; b++)
    for (const [proto, probe] of Object.entries(probes))
      for (const m of modes) {
        const t0 = performance.now();
        for (let i = 0; i < perBatch; i++) await probe(m);
        (perConn[`${proto} ${m}`] ??= []).push(((performance.now() - t0) * 1000) / perBatch);
      }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const figures = Object.fromEntries(Object.entries(perConn).map(([k, xs]) => [k, round(median(xs), 0)]));
  report(
    'proxy',
    { microsecondsPerConnection: figures, batches, perBatch, machine: machine() },
    Object.entries(figures).map(([k, us]) => `${k.padEnd(12)} ${us} µs per connection (median of ${batches} batches of ${perBatch})`),
  );
} finally {
  await server.stop();
}
