// The console when inboxd runs from source (`npm run dev`, the API tests): esbuild bundles the UI on the first request
// and the page and assets carry the same headers as from the executable. A bundle that cannot be made is a clear
// 503, tried again on the next request.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import Koa from 'koa';
import { consoleMiddleware } from '../../src/console/serve.ts';
import type { Logger } from '../../src/log.ts';
import { root } from '../helpers/console.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('console from source', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s.stop();
  });

  test('GET / and its assets are served, bundled on first use', async () => {
    const res = await s.api('/', { key: null });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'.*script-src 'self'/);
    const page = await res.text();
    const js = /src="\.(\/console\/console\.[0-9a-f]{12}\.js)"/.exec(page)?.[1];
    assert.ok(js, page);
    const a = await s.api(js, { key: null });
    assert.equal(a.status, 200);
    assert.match(a.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(await a.text(), /inboxd\.console\.key/);
  });

  test('HEAD / answers like GET without a body; POST / is not the console', async () => {
    const head = await s.api('/', { method: 'HEAD', key: null });
    assert.equal(head.status, 200);
    const post = await s.api('/', { method: 'POST', key: null });
    assert.equal(post.status, 404);
    await post.arrayBuffer();
  });
});

test('a bundle that cannot be made answers 503 and is tried again on the next request', async () => {
  const lines: string[] = [];
  const log = { error: (m: string) => lines.push(m), warn() {}, info() {}, debug() {} } as unknown as Logger;
  let calls = 0;
  const app = new Koa();
  app.use(
    consoleMiddleware({
      log,
      load: async () => {
        calls++;
        if (calls === 1) throw new Error('esbuild missing');
        return { js: 'console.log(1)', css: 'body{}' };
      },
    }),
  );
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const first = await fetch(url);
    assert.equal(first.status, 503);
    assert.match(((await first.json()) as { detail: string }).detail, /console could not be loaded/);
    assert.deepEqual(lines, ['the console could not be loaded']);
    const second = await fetch(url);
    assert.equal(second.status, 200);
    await second.text();
    assert.equal(calls, 2);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('without chromium the browser tests fail under CI=true and are skipped otherwise', () => {
  const run = (ci: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: ci, CHROMIUM_PATH: '/nonexistent/chromium', INBOXD_BINARY: '/nonexistent/inboxd' };
    for (const k of Object.keys(env)) if (k.startsWith('NODE_TEST')) delete env[k];
    return spawnSync(process.execPath, ['--test', 'test/e2e/console.test.ts'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  };
  const ci = run('true');
  assert.notEqual(ci.status, 0, ci.stdout);
  assert.match(ci.stdout + ci.stderr, /browser tests need chromium: \/nonexistent\/chromium not found/);
  const local = run('');
  assert.equal(local.status, 0, local.stdout + local.stderr);
  assert.match(local.stdout, /browser console .*# \/nonexistent\/chromium not found/);
});
