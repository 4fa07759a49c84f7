// Third-party MCP clients against a real inboxd process: the MCP Inspector CLI and the conformance suite.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { BENCH_KEY, type Inboxd, ROOT, startInboxd } from '../../scripts/bench/lib.ts';

function run(cmd: string, args: string[], timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(args[0] ?? cmd)} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, stdout, stderr });
    });
  });
}

let srv: Inboxd;
before(async () => {
  srv = await startInboxd();
});
after(async () => {
  await srv.stop();
});

test('MCP Inspector CLI lists the tools', async () => {
  const r = await run(process.execPath, [
    path.join(ROOT, 'node_modules/.bin/mcp-inspector'),
    '--cli',
    `http://127.0.0.1:${srv.http}/mcp`,
    '--transport',
    'http',
    '--method',
    'tools/list',
    '--header',
    `Authorization: Bearer ${BENCH_KEY}`,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { tools: Array<{ name: string }> };
  const names = out.tools.map((t) => t.name);
  for (const n of ['svc_verify_signup', 'svc_wait_for_message', 'svc_simulate_message']) assert.ok(names.includes(n), n);
});

test('MCP conformance server scenarios pass (fixture-tool scenarios are listed as expected failures)', async () => {
  const r = await run(process.execPath, [path.join(ROOT, 'scripts/mcp-conformance.ts')], 240_000);
  assert.equal(r.code, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
  assert.match(r.stdout, /✓ tools-list/);
  assert.match(r.stdout, /✓ server-initialize/);
});
