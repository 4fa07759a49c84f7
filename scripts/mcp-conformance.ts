// Runs @modelcontextprotocol/conformance's server scenarios against a fresh inboxd, or against running instances.
// The harness's client sends no credentials, so a small local proxy adds the bearer key to every request — the
// server under test is unchanged. Scenarios that need the reference server's fixture tools (resources, prompts,
// sampling, …) are listed in test/fixtures/mcp-conformance-expected-failures.yml.
//   node scripts/mcp-conformance.ts [--source] [--scenario NAME]
//   node scripts/mcp-conformance.ts --upstream http://127.0.0.1:A,http://127.0.0.1:B --key ibx_…
// With several upstreams (instances of one cluster) the proxy is the load balancer of README "Scaling out", with no
// stickiness: every request goes to the next instance, whatever MCP session it belongs to.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_KEY, ROOT, startInboxd } from './bench/lib.ts';

const { values } = parseArgs({
  options: {
    source: { type: 'boolean', default: false },
    scenario: { type: 'string' },
    upstream: { type: 'string' },
    key: { type: 'string' },
  },
});
const srv = values.upstream ? null : await startInboxd([], { source: values.source });
const upstreams = values.upstream ? values.upstream.split(',').map((u) => new URL(u)) : [new URL(`http://127.0.0.1:${srv!.http}`)];
const key = values.key ?? BENCH_KEY;
/** Session id → the instances that served its requests. */
const sessions = new Map<string, Set<string>>();
let turn = 0;
const proxy = http.createServer((req, res) => {
  const sid = req.headers['mcp-session-id'];
  const target = upstreams[turn++ % upstreams.length] as URL;
  if (typeof sid === 'string') sessions.get(sid)?.add(target.host);
  const upstream = http.request(
    {
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: target.host, authorization: `Bearer ${key}` },
    },
    (up) => {
      const issued = up.headers['mcp-session-id'];
      if (typeof issued === 'string' && !sessions.has(issued)) sessions.set(issued, new Set([target.host]));
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
  if (upstreams.length > 1) {
    const used = new Set([...sessions.values()].flatMap((u) => [...u]));
    const spread = [...sessions.values()].filter((u) => u.size > 1).length;
    console.log(`sessions: ${sessions.size} over ${used.size} of ${upstreams.length} instances; ${spread} served by more than one`);
  }
} finally {
  proxy.close();
  proxy.closeAllConnections();
  // Kept-alive sockets to running upstreams would keep this process alive after the run.
  http.globalAgent.destroy();
  await srv?.stop();
}
