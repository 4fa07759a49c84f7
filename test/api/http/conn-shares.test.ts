// Fair shares of the connection caps (issue 25): when a few client addresses hold every HTTP or SMTP place with idle
// connections, a newcomer from another address still gets in: the longest-idle connection of the largest holder is
// closed (HTTP) or ended with 421 (SMTP) to make room. A request in flight or a message in DATA is never reclaimed.
// Several loopback addresses (127.0.0.x) stand for distinct clients; the caps are set low by flags.
// not @cluster: connection caps are per instance (README "Scaling out"); talks to one instance
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { shareKey } from '../../../src/lib/client-address.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { RawSmtp, sleep } from '../../stress/lib.ts';

type Json = Record<string, any>;
const servers: TestServer[] = [];
const sockets: net.Socket[] = [];
const smtps: RawSmtp[] = [];
after(async () => {
  for (const s of sockets) s.destroy();
  for (const c of smtps) c.destroy();
  for (const s of servers) await s.stop();
});

async function server(args: string[]): Promise<TestServer> {
  const s = await startTestServer(args);
  servers.push(s);
  return s;
}

interface Conn {
  socket: net.Socket;
  received(): string;
  closed: boolean;
  gone: Promise<void>;
}

async function connect(port: number, localAddress: string): Promise<Conn> {
  const s = net.connect({ port, host: '127.0.0.1', localAddress });
  sockets.push(s);
  let got = '';
  const conn: Conn = { socket: s, received: () => got, closed: false, gone: Promise.resolve() };
  s.on('data', (d) => (got += d.toString('latin1')));
  s.on('error', () => undefined);
  conn.gone = new Promise<void>((r) =>
    s.once('close', () => {
      conn.closed = true;
      r();
    }),
  );
  await new Promise((r) => s.once('connect', r));
  return conn;
}

/** A keep-alive connection that has had one request answered and now sits idle. */
async function keptAlive(port: number, localAddress: string): Promise<Conn> {
  const c = await connect(port, localAddress);
  c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
  while (!/\r\n\r\n[\s\S]*\}/.test(c.received())) await sleep(5);
  assert.match(c.received(), /^HTTP\/1\.1 200 /);
  return c;
}

async function health(port: number, localAddress: string): Promise<string> {
  const c = await connect(port, localAddress);
  c.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await c.gone;
  return c.received();
}

test('share keys: IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by /64', () => {
  assert.equal(shareKey('127.0.0.2'), '127.0.0.2');
  assert.equal(shareKey('::ffff:10.1.2.3'), '10.1.2.3');
  assert.equal(shareKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
  assert.equal(shareKey('2001:db8:1:2::9'), '2001:db8:1:2::/64');
  assert.equal(shareKey('2001:DB8:0001:0002::'), '2001:db8:1:2::/64');
  assert.equal(shareKey('::1'), '0:0:0:0::/64');
  assert.equal(shareKey(undefined), '');
});

describe('HTTP connection shares', () => {
  test('idle keep-alive connections from a few addresses fill the cap: a new client is served, one idle connection is closed', async () => {
    const s = await server(['--max-http-connections', '6', '--max-http-connections-per-ip', '0']);
    const port = s.server.httpPort;
    const held: Conn[] = [];
    for (const from of ['127.0.0.2', '127.0.0.3']) for (let i = 0; i < 3; i++) held.push(await keptAlive(port, from));
    assert.match(await health(port, '127.0.0.9'), /^HTTP\/1\.1 200 /, 'a newcomer gets in while two addresses hold the cap');
    await sleep(50);
    assert.equal(held.filter((c) => c.closed).length, 1, 'exactly one idle connection made room');
    assert.equal(held[0]!.closed, true, 'the longest idle of the largest holder');
    // A newcomer from an address that already holds as many as the others is refused: it takes no one's place.
    const s2 = await server(['--max-http-connections', '4', '--max-http-connections-per-ip', '0']);
    for (const from of ['127.0.0.2', '127.0.0.2', '127.0.0.3', '127.0.0.3']) held.push(await keptAlive(s2.server.httpPort, from));
    const refused = await health(s2.server.httpPort, '127.0.0.2');
    assert.match(refused, /^HTTP\/1\.1 503 /);
    assert.match(refused, /too many open connections \(limit 4\)/);
  });

  test('a request in flight is never reclaimed: with every place busy, a newcomer gets 503 and the waits go on', async () => {
    const s = await server(['--max-http-connections', '4', '--max-http-connections-per-ip', '0']);
    const port = s.server.httpPort;
    // The inbox is made over a connection that is closed after it, so the four waits are all there is.
    const make = await connect(port, '127.0.0.1');
    make.socket.write(
      `POST /v1/inboxes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    );
    await make.gone;
    const inbox = JSON.parse(make.received().slice(make.received().indexOf('\r\n\r\n') + 4)) as Json;
    await sleep(50);
    const waits: Conn[] = [];
    for (const from of ['127.0.0.2', '127.0.0.2', '127.0.0.3', '127.0.0.3']) {
      const c = await connect(port, from);
      c.socket.write(
        `GET /v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=3 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\n\r\n`,
      );
      waits.push(c);
    }
    await sleep(200);
    const refused = await health(port, '127.0.0.9');
    assert.match(refused, /^HTTP\/1\.1 503 /);
    assert.equal(waits.filter((c) => c.closed).length, 0, 'no wait was cut');
    // The waits end on their own (timeout answer), and then the newcomer takes an idle place.
    while (waits.some((c) => !/^HTTP\/1\.1 \d{3} /.test(c.received()))) await sleep(50);
    assert.match(await health(port, '127.0.0.9'), /^HTTP\/1\.1 200 /);
  });
});

describe('SMTP connection shares', () => {
  async function session(port: number, from: string): Promise<RawSmtp> {
    const c = new RawSmtp(port, { localAddress: from });
    smtps.push(c);
    assert.match(await c.reply(), /^220 /);
    assert.match(await c.cmd('EHLO client.example'), /^250 /);
    return c;
  }

  test('idle sessions from a few addresses fill the cap: a new address gets 220; the longest idle of the largest holder gets 421', async () => {
    const s = await server(['--smtp-max-connections', '6', '--smtp-max-connections-per-ip', '0']);
    const port = s.server.smtpPort;
    const big: RawSmtp[] = [];
    for (let i = 0; i < 4; i++) big.push(await session(port, '127.0.0.2'));
    const small = [await session(port, '127.0.0.3'), await session(port, '127.0.0.3')];
    // Every session but the first has spoken since: the first is the longest idle.
    for (const c of [...big.slice(1), ...small]) assert.match(await c.cmd('NOOP'), /^250 /);
    const fresh = new RawSmtp(port, { localAddress: '127.0.0.9' });
    smtps.push(fresh);
    assert.match(await fresh.reply(), /^220 /, 'a newcomer from another address gets in');
    while (!big[0]!.closed) await sleep(10);
    assert.match(big[0]!.lines.at(-1)!, /^421 4\.7\.0 .*idle session to admit another client/);
    for (const c of [...big.slice(1), ...small]) assert.match(await c.cmd('NOOP'), /^250 /, 'the others go on');
    // The newcomer delivers.
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json;
    assert.match(await fresh.cmd('EHLO fresh.example'), /^250 /);
    assert.match(await fresh.cmd('MAIL FROM:<a@example.com>'), /^250 /);
    assert.match(await fresh.cmd(`RCPT TO:<${inbox.address}>`), /^250 /);
    assert.match(await fresh.cmd('DATA'), /^354 /);
    assert.match(await fresh.cmd('Subject: in\r\n\r\nhello\r\n.'), /^250 /);
    // A newcomer from the largest holder takes no one's place.
    const greedy = new RawSmtp(port, { localAddress: '127.0.0.2' });
    smtps.push(greedy);
    assert.match(await greedy.reply(), /^421 .*too many connected clients/);
    const logged = s.logs.map((l) => JSON.parse(l) as Json).find((l) => l.msg === 'smtp idle session closed to admit another client');
    assert.equal(logged?.closedFrom, '127.0.0.2');
  });

  test('a session in the middle of DATA is never reclaimed', async () => {
    const s = await server(['--smtp-max-connections', '2', '--smtp-max-connections-per-ip', '0']);
    const port = s.server.smtpPort;
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json;
    const sending: RawSmtp[] = [];
    for (let i = 0; i < 2; i++) {
      const c = await session(port, '127.0.0.2');
      assert.match(await c.cmd('MAIL FROM:<a@example.com>'), /^250 /);
      assert.match(await c.cmd(`RCPT TO:<${inbox.address}>`), /^250 /);
      assert.match(await c.cmd('DATA'), /^354 /);
      c.write(`Subject: long ${i}\r\n\r\nfirst half\r\n`);
      sending.push(c);
    }
    await sleep(100);
    const fresh = new RawSmtp(port, { localAddress: '127.0.0.9' });
    smtps.push(fresh);
    assert.match(await fresh.reply(), /^421 .*too many connected clients/);
    for (const c of sending) assert.match(await c.cmd('second half\r\n.'), /^250 /, 'the message in DATA is stored');
  });
});
