// PROXY protocol on real listeners (without a balancer: raw sockets bound to loopback aliases play it): a trusted
// proxy's v1/v2 header names the client that SMTP session facts, per-address caps and the audit log see; a header
// from an untrusted address, a trusted connection without one and a malformed one are refused and logged with the flag;
// X-Forwarded-For counts from trusted proxies only. test/e2e/haproxy.test.ts does the same through a real HAProxy.
// not @cluster: binds loopback source addresses and reads one instance's log and store
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SessionFactsRepo } from '../../../src/store/session-facts.ts';
import { json } from '../../helpers/http.ts';
import { connect, deliver, proxyRefusals as refusals, v2Header, waitFor } from '../../helpers/proxy.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const PROXY = '127.0.0.9';

describe('PROXY protocol with --trusted-proxies', () => {
  let s: TestServer;
  let smtpPort: number;
  let httpPort: number;
  before(async () => {
    s = await startTestServer([
      ...['--trusted-proxies', `${PROXY},10.0.0.0/8`, '--smtp-max-connections-per-ip', '1'],
      ...['--pop3-port', '0', '--imap-port', '0'],
    ]);
    smtpPort = s.server.smtpPort;
    httpPort = s.server.httpPort;
  });
  after(() => s.stop());

  test('SMTP: the v2 and v1 headers name the client the session facts record', async () => {
    const inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const facts = new SessionFactsRepo(s.server.parts.store.db as never);
    const c2 = await connect(smtpPort, PROXY, v2Header('203.0.113.7'));
    await c2.until(/^220 /);
    assert.equal((await facts.get(await deliver(c2, inbox.address)))?.clientIp, '203.0.113.7');
    const c1 = await connect(smtpPort, PROXY, 'PROXY TCP4 198.51.100.4 127.0.0.1 5555 25\r\n');
    await c1.until(/^220 /);
    assert.equal((await facts.get(await deliver(c1, inbox.address)))?.clientIp, '198.51.100.4');
  });

  test('SMTP: the per-address cap counts the client named by the header, not the proxy', async () => {
    const a = await connect(smtpPort, PROXY, v2Header('192.0.2.1'));
    await a.until(/^220 /);
    const b = await connect(smtpPort, PROXY, v2Header('192.0.2.2'));
    await b.until(/^220 /);
    const a2 = await connect(smtpPort, PROXY, v2Header('192.0.2.1'));
    await a2.until(/^421 .*too many connections from 192\.0\.2\.1/);
    for (const c of [a, b, a2]) c.socket.destroy();
  });

  test('POP3 and IMAP: the per-address cap counts the client named by the header', async () => {
    for (const [port, ok, full] of [
      [s.server.pop3Port!, /^\+OK/, /^-ERR .*too many connections/],
      [s.server.imapPort!, /^\* OK/, /^\* BYE .*too many connections/],
    ] as const) {
      const a = await connect(port, PROXY, v2Header('192.0.2.11'));
      await a.until(ok);
      const b = await connect(port, PROXY, v2Header('192.0.2.12'));
      await b.until(ok);
      const a2 = await connect(port, PROXY, v2Header('192.0.2.11'));
      await a2.until(full);
      const spoof = await connect(port, '127.0.0.1', v2Header('6.6.6.6'));
      await spoof.closed;
      for (const c of [a, b, a2]) c.socket.destroy();
    }
  });

  test('a PROXY header from an untrusted address is refused: closed, logged with the flag', async () => {
    const before = refusals(s).length;
    const c = await connect(smtpPort, '127.0.0.1', 'PROXY TCP4 6.6.6.6 127.0.0.1 1 25\r\n');
    await c.closed;
    const h = await connect(
      httpPort,
      '127.0.0.1',
      Buffer.concat([v2Header('6.6.6.6'), Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')]),
    );
    await h.closed;
    assert.equal(h.text(), '', 'closed without an answer');
    const h1 = await connect(httpPort, '127.0.0.1', 'PROXY TCP4 6.6.6.6 127.0.0.1 1 80\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    await h1.closed;
    assert.equal(h1.text(), '', 'v1 too');
    const lines = await waitFor('two refusals', () => (refusals(s).length >= before + 2 ? refusals(s).slice(before) : undefined));
    assert.deepEqual(lines.map((l) => l.protocol).sort(), ['http', 'smtp']);
    for (const l of lines) {
      assert.equal(l.remote, '127.0.0.1');
      assert.equal(l.flag, '--trusted-proxies');
      assert.match(String(l.reason), /not a trusted proxy/);
    }
  });

  test('a trusted proxy must send a header on SMTP; a malformed one is refused', async () => {
    const before = refusals(s).length;
    const plain = await connect(smtpPort, PROXY, 'EHLO direct.test\r\n');
    await plain.closed;
    assert.doesNotMatch(plain.text(), /220/, 'no banner for a trusted address without a header');
    const bad = await connect(smtpPort, PROXY, 'PROXY TCP4 1.2.3.999 127.0.0.1 1 25\r\n');
    await bad.closed;
    const lines = await waitFor('two refusals', () => (refusals(s).length >= before + 2 ? refusals(s).slice(before) : undefined));
    assert.match(String(lines[0]!.reason), /did not start with a PROXY header/);
    assert.match(String(lines[1]!.reason), /not both TCP4 addresses/);
  });

  test('HTTP: the audit log records the client of the PROXY header, or the X-Forwarded-For of a trusted proxy', async () => {
    const request = (label: string, extra = '') =>
      `POST /v1/team/keys HTTP/1.1\r\nHost: 127.0.0.1:${httpPort}\r\nAuthorization: Bearer ${s.key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${JSON.stringify({ label }).length}\r\nConnection: close\r\n${extra}\r\n${JSON.stringify({ label })}`;
    const viaHeader = await connect(httpPort, PROXY, Buffer.concat([v2Header('203.0.113.50'), Buffer.from(request('via-header'))]));
    await viaHeader.closed;
    assert.match(viaHeader.text(), /^HTTP\/1\.1 201/);
    const viaXff = await connect(httpPort, PROXY, request('via-xff', 'X-Forwarded-For: 6.6.6.6, 203.0.113.51, 10.1.2.3\r\n'));
    await viaXff.closed;
    assert.match(viaXff.text(), /^HTTP\/1\.1 201/, 'a trusted proxy may send HTTP without a PROXY header');
    const spoofed = await connect(httpPort, '127.0.0.1', request('spoofed', 'X-Forwarded-For: 203.0.113.52\r\n'));
    await spoofed.closed;
    const audit = await json(await s.api('/v1/audit?limit=50'));
    const creates = (audit.items as Array<{ action: string; sourceIp: string }>).filter((e) => e.action.startsWith('key.'));
    assert.ok(
      creates.some((e) => e.sourceIp === '203.0.113.50'),
      JSON.stringify(creates),
    );
    assert.ok(
      creates.some((e) => e.sourceIp === '203.0.113.51'),
      'rightmost untrusted hop of X-Forwarded-For',
    );
    assert.ok(!creates.some((e) => e.sourceIp === '203.0.113.52'), 'X-Forwarded-For from an untrusted client is ignored');
    assert.ok(creates.some((e) => e.sourceIp === '127.0.0.1'));
  });
});
