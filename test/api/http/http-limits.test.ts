// HTTP connection hardening (issue 11): caps on open connections in total and per client address (503 + close),
// idle and half-sent request headers cut off after --http-header-timeout-seconds, long waits and event streams
// unaffected, and a client that hangs up mid-upload logged as an aborted request, not a 500. Limits are set low.
// not @cluster: connection caps and timeouts are per instance; talks to one instance
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { RawSmtp, sleep } from '../../stress/lib.ts';

type Json = Record<string, any>;
const servers: TestServer[] = [];
const sockets: net.Socket[] = [];
after(async () => {
  for (const s of sockets) s.destroy();
  for (const s of servers) await s.stop();
});

async function server(args: string[]): Promise<TestServer> {
  const s = await startTestServer(args);
  servers.push(s);
  return s;
}

/** A connection that sends nothing; resolves once connected. Collects whatever the server writes. */
interface Conn {
  socket: net.Socket;
  received(): string;
  gone: Promise<void>;
}

async function idle(port: number, localAddress = '127.0.0.1'): Promise<Conn> {
  const s = net.connect({ port, host: '127.0.0.1', localAddress });
  sockets.push(s);
  let got = '';
  s.on('data', (d) => (got += d.toString('latin1')));
  s.on('error', () => undefined);
  const gone = new Promise<void>((r) => s.once('close', () => r()));
  await new Promise((r) => s.once('connect', r));
  return { socket: s, received: () => got, gone };
}

/** GET /health over a fresh connection from `localAddress`; the raw answer (status line first). */
async function health(port: number, localAddress = '127.0.0.1'): Promise<string> {
  const s = await idle(port, localAddress);
  s.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await s.gone;
  return s.received();
}

/** Retries until the server has noticed closed sockets (their close events run after the client's). */
async function eventually(fn: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await fn()) return;
    await sleep(20);
  }
  assert.fail('condition not reached');
}

describe('connection caps', () => {
  test('more connections from one address than --max-http-connections-per-ip get 503 and a close; other addresses are served', async () => {
    const s = await server(['--max-http-connections-per-ip', '3']);
    const held = [await idle(s.server.httpPort), await idle(s.server.httpPort), await idle(s.server.httpPort)];
    const refused = await health(s.server.httpPort);
    assert.match(refused, /^HTTP\/1\.1 503 /);
    assert.match(refused, /Retry-After: 1/i);
    const problem = JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4)) as Json;
    assert.equal(problem.code, 'unavailable');
    assert.match(problem.detail, /from your address \(limit 3\)/);
    assert.match(await health(s.server.httpPort, '127.0.0.2'), /^HTTP\/1\.1 200 /, 'another client address is not affected');
    held[0]!.socket.destroy();
    await eventually(async () => /^HTTP\/1\.1 200 /.test(await health(s.server.httpPort)));
    const warned = s.logs.map((l) => JSON.parse(l) as Json).find((l) => l.msg === 'http connection refused');
    assert.equal(warned?.flag, '--max-http-connections-per-ip');
  });

  test('more connections in total than --max-http-connections get 503', async () => {
    const s = await server(['--max-http-connections', '4', '--max-http-connections-per-ip', '0']);
    for (const from of ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4']) await idle(s.server.httpPort, from);
    const refused = await health(s.server.httpPort, '127.0.0.5');
    assert.match(refused, /^HTTP\/1\.1 503 /);
    assert.match(refused, /too many open connections \(limit 4\)/);
    // SMTP is a separate listener and keeps accepting.
    const smtp = new RawSmtp(s.server.smtpPort);
    assert.match(await smtp.reply(), /^220 /);
    smtp.destroy();
  });
});

describe('header timeout', () => {
  test('a connection that sends no request, or half a header, is answered 408 and closed', async () => {
    const s = await server(['--http-header-timeout-seconds', '1', '--max-http-connections-per-ip', '2']);
    const silent = await idle(s.server.httpPort);
    const half = await idle(s.server.httpPort);
    half.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    await Promise.all([silent.gone, half.gone]);
    assert.match(silent.received(), /^HTTP\/1\.1 408 /);
    assert.match(half.received(), /^HTTP\/1\.1 408 /);
    // Their slots are free again.
    await eventually(async () => /^HTTP\/1\.1 200 /.test(await health(s.server.httpPort)));
  });

  test('long waits and event streams outlive the header timeout', async () => {
    const s = await server(['--http-header-timeout-seconds', '1']);
    const inbox = (await (await s.api('/v1/inboxes', { method: 'POST', json: {} })).json()) as Json;
    const events = await s.api(`/v1/inboxes/${inbox.inboxId}/events`, { headers: { accept: 'text/event-stream' } });
    assert.equal(events.status, 200);
    const reader = events.body!.getReader();
    const wait = s.api(`/v1/inboxes/${inbox.inboxId}/wait?timeoutSeconds=10`);
    await sleep(2500);
    const smtp = new RawSmtp(s.server.smtpPort);
    await smtp.reply();
    await smtp.cmd('EHLO late.example');
    await smtp.cmd('MAIL FROM:<a@example.com>');
    await smtp.cmd(`RCPT TO:<${inbox.address}>`);
    await smtp.cmd('DATA');
    assert.match(await smtp.cmd('Subject: after the timeout\r\n\r\nhello\r\n.'), /^250 /);
    smtp.destroy();
    const waited = await wait;
    assert.equal(waited.status, 200);
    assert.equal(((await waited.json()) as Json).subject, 'after the timeout');
    let text = '';
    while (!text.includes('after the timeout')) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'the stream is still open');
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
  });
});

describe('abandoned uploads', () => {
  test('a client that disconnects mid-body is logged as an aborted request: no error, no stack, no 500', async () => {
    const s = await server(['--inbound-webhooks', 'raw']);
    for (const head of [
      'POST /webhooks/raw HTTP/1.1\r\nHost: x\r\nContent-Type: message/rfc822\r\nContent-Length: 1000000\r\n\r\n',
      `POST /v1/inboxes HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${s.key}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    ]) {
      const sock = await idle(s.server.httpPort);
      sock.socket.write(head + 'x'.repeat(10_000));
      await sleep(100);
      sock.socket.destroy();
    }
    await eventually(async () => s.logs.filter((l) => l.includes('request aborted by the client')).length === 2);
    const lines = s.logs.map((l) => JSON.parse(l) as Json);
    const aborted = lines.filter((l) => l.msg === 'request aborted by the client');
    assert.deepEqual(
      aborted.map((l) => [l.level, l.method, l.path, l.status]),
      [
        ['info', 'POST', '/webhooks/raw', 499],
        ['info', 'POST', '/v1/inboxes', 499],
      ],
    );
    assert.deepEqual(
      lines.filter((l) => l.level === 'error' || l.status === 500 || l.err !== undefined),
      [],
    );
  });
});
