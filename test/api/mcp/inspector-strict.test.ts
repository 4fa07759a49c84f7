// The MCP Inspector's --strict schema lint (the devDependency @modelcontextprotocol/inspector, run as its CLI)
// over tools/list reports no warning and no error: every input and output schema is portable (no type arrays, no
// untyped schemas, no boolean schemas, no remote refs).
// not @cluster: lints the tool list, which is the same on every instance
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ADMIN_KEY, startTestServer, type TestServer } from '../../helpers/server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const INSPECTOR = path.join(root, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

async function inspect(query: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = [
    INSPECTOR,
    '--cli',
    `${s.url}/mcp${query}`,
    '--method',
    'tools/list',
    '--strict',
    '--header',
    `Authorization: Bearer ${ADMIN_KEY}`,
  ];
  try {
    const r = await promisify(execFile)(process.execPath, args, { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
    return { code: 0, ...r };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

test('npx mcp-inspector --cli <url>/mcp --method tools/list --strict: no warning, every tool listed', async () => {
  const r = await inspect('');
  assert.equal(r.code, 0, r.stderr.slice(0, 4000));
  assert.doesNotMatch(r.stderr, /Warning|Error|portability/, r.stderr.slice(0, 4000));
  const listed = JSON.parse(r.stdout) as { tools: Array<{ name: string }> };
  const discovery = (await (await fetch(`${s.url}/v1`)).json()) as { tools: string[] };
  assert.deepEqual(listed.tools.map((t) => t.name).sort(), [...discovery.tools].sort());
});
