// Debian's HAProxy in front of two instances (one PostgreSQL database), sending PROXY v2 (`send-proxy-v2`) for SMTP
// and HTTP from its own source address, the one --trusted-proxies names. Clients bind distinct loopback addresses
// (127.0.0.2, 127.0.0.3): per-address SMTP caps apply per real client, not per balancer; session facts and the audit
// log show the client's address, through PROXY v2 and through X-Forwarded-For (an HTTP frontend with `option
// forwardfor` and no PROXY header); a PROXY header sent straight to an instance from elsewhere is refused.
// not @cluster: starts its own two instances on PostgreSQL behind HAProxy
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { freePort } from '../../../scripts/bench/lib.ts';
import { SessionFactsRepo } from '../../../src/store/session-facts.ts';
import { json } from '../../helpers/http.ts';
import { postgresMissing, startPostgres } from '../../helpers/postgres.ts';
import { connect, deliver, haproxyMissing, proxyRefusals, startHaproxy, v2Header, waitFor } from '../../helpers/proxy.ts';
import { startTestServer, tempDir } from '../../helpers/server.ts';

const missing = haproxyMissing() ?? postgresMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);
if (missing) console.log(`# skipped: ${missing}`);

/** HAProxy connects to the instances from this address (`source`); only it is trusted. */
const BALANCER = '127.0.0.9';

test('HAProxy send-proxy-v2 in front of two instances: caps, session facts and audit see the client', {
  skip: missing ?? false,
}, async () => {
  const pg = await startPostgres();
  const blobDir = tempDir('inboxd-blobs-');
  const database = await pg.createDatabase('haproxy');
  const args = ['--trusted-proxies', BALANCER, '--smtp-max-connections-per-ip', '1'];
  const a = await startTestServer(args, {}, { database, blobDir });
  const b = await startTestServer(args, {}, { database, blobDir });
  const [smtpFront, httpFront, xffFront] = [await freePort(), await freePort(), await freePort()];
  /** A frontend on `front` balancing round robin over the two instances' `ports`, with or without PROXY v2. */
  const section = (name: string, front: number, mode: 'tcp' | 'http', ports: [number, number], proxy: boolean) => [
    `listen ${name}`,
    `  mode ${mode}`,
    `  bind 127.0.0.1:${front}`,
    '  balance roundrobin',
    // Health checks as a deployment would have them: SMTP's EHLO check and HTTP's /health, through the PROXY header.
    ...(mode === 'http'
      ? ['  option forwardfor', '  option httpchk GET /health']
      : name === 'smtp'
        ? ['  option smtpchk EHLO lb.test']
        : []),
    ...ports.map((port, i) => `  server ${'ab'[i]} 127.0.0.1:${port}${proxy ? ' send-proxy-v2' : ''} source ${BALANCER} check inter 250ms`),
  ];
  const haproxy = await startHaproxy(
    [
      'global',
      '  nbthread 1',
      'defaults',
      '  timeout connect 5s',
      '  timeout client 30s',
      '  timeout server 30s',
      ...section('smtp', smtpFront, 'tcp', [a.server.smtpPort, b.server.smtpPort], true),
      ...section('http', httpFront, 'tcp', [a.server.httpPort, b.server.httpPort], true),
      ...section('xff', xffFront, 'http', [a.server.httpPort, b.server.httpPort], false),
      '',
    ].join('\n'),
    [smtpFront, httpFront, xffFront],
  );
  try {
    const inbox = await json(await a.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    const facts = new SessionFactsRepo(a.server.parts.store.db as never);

    // Mail through the balancer: each instance records the client's own address.
    for (const client of ['127.0.0.2', '127.0.0.3', '127.0.0.2', '127.0.0.3']) {
      const c = await connect(smtpFront, client);
      await c.until(/^220 /);
      assert.equal((await facts.get(await deliver(c, inbox.address)))?.clientIp, client);
      await c.closed;
    }

    // Per-address caps (1 per instance): round robin puts connections on the instances in turn. Two clients hold
    // one each on both instances; the third of 127.0.0.2 is refused, naming the client, not the balancer.
    const held = [];
    for (const client of ['127.0.0.2', '127.0.0.2', '127.0.0.3', '127.0.0.3']) {
      const c = await connect(smtpFront, client);
      await c.until(/^220 /);
      held.push(c);
    }
    const third = await connect(smtpFront, '127.0.0.2');
    await third.until(/^421 .*too many connections from 127\.0\.0\.2/);
    for (const c of held) c.socket.destroy();

    // HTTP through PROXY v2 and through X-Forwarded-For: the audit log (shared by both instances) shows the client.
    for (const [port, client, label] of [
      [httpFront, '127.0.0.3', 'via-proxy-v2'],
      [xffFront, '127.0.0.2', 'via-xff'],
    ] as const) {
      const body = JSON.stringify({ label });
      const c = await connect(
        port,
        client,
        `POST /v1/team/keys HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${a.key}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
      );
      await c.closed;
      assert.match(c.text(), /^HTTP\/1\.1 201/, c.text());
    }
    const audit = await json(await b.api('/v1/audit?action=key.*&limit=20'));
    const ips = (audit.items as Array<{ sourceIp: string | null }>).map((e) => e.sourceIp);
    assert.ok(ips.includes('127.0.0.3'), `PROXY v2 client in the audit log: ${ips.join(', ')}`);
    assert.ok(ips.includes('127.0.0.2'), `X-Forwarded-For client in the audit log: ${ips.join(', ')}`);
    assert.ok(!ips.includes(BALANCER), 'never the balancer');

    // The balancer's health checks (every 250 ms on each instance, all along) were never refused.
    assert.deepEqual([...proxyRefusals(a), ...proxyRefusals(b)], []);

    // Straight to an instance from an address that is not the balancer: a PROXY header is refused and logged.
    const before = proxyRefusals(a).length;
    const spoof = await connect(a.server.smtpPort, '127.0.0.4', v2Header('203.0.113.9'));
    await spoof.closed;
    assert.doesNotMatch(spoof.text(), /^220/m);
    const line = await waitFor('the refusal', () => proxyRefusals(a)[before]);
    assert.equal(line.remote, '127.0.0.4');
    assert.equal(line.flag, '--trusted-proxies');
  } finally {
    await haproxy.stop();
    await a.stop();
    await b.stop();
    await pg.stop();
    fs.rmSync(blobDir, { recursive: true, force: true });
  }
});
