// Runs @modelcontextprotocol/conformance's server scenarios against a fresh inboxd.
// The harness's client sends no credentials, so a small local proxy adds the bearer key to every request — the
// server under test is unchanged. Scenarios that need the reference server's fixture tools (resources, prompts,
// sampling, …) are listed in test/fixtures/mcp-conformance-expected-failures.yml.
//   node scripts/mcp-conformance.ts [--source] [--scenario NAME]
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_KEY, ROOT, startInboxd } from './bench/lib.ts';

const { values } = parseArgs({ options: { source: { type: 'boolean', default: false }, scenario: { type: 'string' } } });
const srv = await startInboxd([], { source: values.source });
const proxy = http.createServer((req, res) => {
  const upstream = http.request(
    {
      host: '127.0.0.1',
      port: srv.http,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: `127.0.0.1:${srv.http}`, authorization: `Bearer ${BENCH_KEY}` },
    },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
try {
  const args = [
    path.join(ROOT, 'node_modules/.bin/conformance'),
    'server',
    '--url',
    url,
    '--expected-failures',
    path.join(ROOT, 'test/fixtures/mcp-conformance-expected-failures.yml'),
  ];
  if (values.scenario) args.push('--scenario', values.scenario);
  // Not spawnSync: the proxy in this process must keep serving while the harness runs.
  const child = spawn(process.execPath, args, { stdio: 'inherit', cwd: ROOT });
  process.exitCode = await new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
} finally {
  proxy.close();
  proxy.closeAllConnections();
  await srv.stop();
}
