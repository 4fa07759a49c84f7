// A request under a host the base URL does not name is warned about once per host (the base URL is what rawUrl and
// the OAuth resource metadata carry; a client that reached the server as 127.0.0.1 refuses "localhost" metadata).
// not @cluster: the host warning is logged once per host by each instance; talks to one instance
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import type { Json } from '../../helpers/http.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

function get(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: s.server.httpPort, path: '/health', headers: { host } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}
const warnings = () =>
  s.logs
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Json)
    .filter((l) => l.msg === 'request host differs from the base URL');

test('one warning per distinct host that differs from the base URL, none for the base URL host', async () => {
  const port = s.server.httpPort;
  const before = warnings().length;
  assert.equal(await get(`localhost:${port}`), 200);
  assert.equal(warnings().length, before, 'the base URL host is fine');
  for (let i = 0; i < 3; i++) assert.equal(await get(`127.0.0.1:${port}`), 200);
  assert.equal(await get(`inboxd.internal:${port}`), 200);
  const hosts = warnings().map((w) => w.host);
  assert.deepEqual(hosts.filter((h) => h === `127.0.0.1:${port}`).length, 1);
  assert.deepEqual(hosts.filter((h) => h === `inboxd.internal:${port}`).length, 1);
  const w = warnings().find((x) => x.host === `127.0.0.1:${port}`)!;
  assert.equal(w.level, 'warn');
  assert.match(w.hint, new RegExp(`--base-url http://127\\.0\\.0\\.1:${port}`));
});
