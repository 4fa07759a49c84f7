// The connection-level PROXY wrapper (src/lib/proxied-connections.ts) on a bare TCP server: a header split over
// packets, client bytes in the header's packet, the header time limit, an oversized v2 length, and the server's own
// handler running only for admitted connections with the client's address.
// not @cluster: a bare TCP server of its own, no inboxd
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { acceptProxied } from '../../../src/lib/proxied-connections.ts';
import { TrustedProxies } from '../../../src/lib/proxy-protocol.ts';
import { createLogger } from '../../../src/log.ts';
import { connect, v2Header } from '../../helpers/proxy.ts';

const PROXY = '127.0.0.9';
const lines: Array<Record<string, unknown>> = [];
const seen: Array<{ remote: string | undefined; port: number | undefined; first: string }> = [];
let server: net.Server;
let port: number;

before(async () => {
  // An echo-like server speaking second: it reports who it thinks connected and the first bytes it read.
  server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', (d) => {
      seen.push({ remote: socket.remoteAddress, port: socket.remotePort, first: d.toString('latin1') });
      socket.end(`hello ${socket.remoteAddress}\n`);
    });
  });
  const log = createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
  acceptProxied(server, { trusted: new TrustedProxies([PROXY]), protocol: 'http', log, headerTimeoutMs: 300 });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as net.AddressInfo).port;
});
after(() => new Promise<void>((r) => server.close(() => r())));

test('a header delivered in pieces, then the client bytes: the server sees the client and all its bytes', async () => {
  const header = v2Header('198.51.100.20', 4242);
  const c = await connect(port, PROXY, header.subarray(0, 5));
  await new Promise((r) => setTimeout(r, 30));
  c.write(header.subarray(5, 17));
  await new Promise((r) => setTimeout(r, 30));
  c.write(Buffer.concat([header.subarray(17), Buffer.from('GET / HTTP/1.0\r\n\r\n')]));
  await c.until(/hello 198\.51\.100\.20/);
  assert.deepEqual(seen.at(-1), { remote: '198.51.100.20', port: 4242, first: 'GET / HTTP/1.0\r\n\r\n' });
});

test('v1 and its client bytes in one packet', async () => {
  const c = await connect(port, PROXY, 'PROXY TCP6 2001:db8::5 ::1 999 80\r\nPING');
  await c.until(/hello 2001:db8::5/);
  assert.equal(seen.at(-1)!.first, 'PING');
});

test('no header within the time limit: closed, logged; the server never sees the connection', async () => {
  const n = seen.length;
  const t0 = Date.now();
  const c = await connect(port, PROXY, 'PROXY TCP4 1.2.3.4');
  await c.closed;
  assert.ok(Date.now() - t0 >= 250, 'waited for the limit');
  assert.equal(seen.length, n);
  const line = lines.findLast((l) => l.msg === 'connection refused: PROXY protocol')!;
  assert.match(String(line.reason), /no complete PROXY header within 300 ms/);
  assert.equal(line.remote, PROXY);
});

test('an oversized v2 length is refused at once, without reading it', async () => {
  const huge = Buffer.from(v2Header('1.2.3.4'));
  huge.writeUInt16BE(0xfff0, 14);
  const t0 = Date.now();
  const c = await connect(port, PROXY, huge);
  await c.closed;
  assert.ok(Date.now() - t0 < 250);
  assert.match(String(lines.at(-1)!.reason), /at most 2064 are read/);
});

test('LOCAL (a health check) keeps the proxy address; untrusted peers go straight through', async () => {
  const local = Buffer.from(v2Header('1.2.3.4'));
  local[12] = 0x20;
  const c = await connect(port, PROXY, Buffer.concat([local, Buffer.from('x')]));
  await c.until(/hello 127\.0\.0\.9/);
  const direct = await connect(port, '127.0.0.1', 'y');
  await direct.until(/hello 127\.0\.0\.1/);
});
