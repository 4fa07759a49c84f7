// MCP toolsets and the size of the tool definitions: the spec's groups cover every tool exactly once, finer sets
// sit inside one group, the `verify` set is the six tools; the model-facing definitions stay within the
// budgets of issue 34 (all tools ≤ 40 % of the 98,582 characters measured before it, on main at d245bc5; `verify`
// ≤ 2,500 characters of descriptions and input schemas; scripts/bench/mcp-tools.ts prints the figures); and every
// tool keeps its name and its argument names (test/fixtures/mcp-tool-args.json, from tools/list before issue 34).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listTools } from '../../src/mcp/tools.ts';
import { parseToolsets, resolveToolsets } from '../../src/mcp/toolsets.ts';
import { OPERATIONS } from '../../src/ops/registry.ts';
import { TOOLSETS, toolsetOf } from '../../src/ops/toolsets.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const tools = listTools(OPERATIONS);
const model = (ts: typeof tools) =>
  ts.reduce((n, t) => n + t.name.length + (t.description ?? '').length + JSON.stringify(t.inputSchema).length, 0);

test('the five groups cover every tool exactly once; each finer set lies inside one group', () => {
  const groups = TOOLSETS.filter((t) => t.kind === 'group');
  assert.deepEqual(
    groups.map((g) => g.name),
    ['runs', 'mail', 'workspace', 'mailbox', 'calendar'],
  );
  for (const t of tools) assert.equal(groups.filter((g) => g.tools.includes(t.name)).length, 1, `${t.name} is in one group`);
  const names = new Set(tools.map((t) => t.name));
  for (const set of TOOLSETS) {
    for (const n of set.tools) assert.ok(names.has(n), `${set.name}: ${n} is a tool`);
    if (set.kind === 'set')
      assert.ok(
        groups.some((g) => set.tools.every((n) => g.tools.includes(n))),
        `${set.name} inside a group`,
      );
  }
  assert.deepEqual(toolsetOf('svc_search_messages'), ['search', 'mail']);
  assert.deepEqual(toolsetOf('svc_not_a_tool'), ['other']);
});

test('the verify set is the issue’s six tools', () => {
  assert.deepEqual([...TOOLSETS.find((t) => t.name === 'verify')!.tools].sort(), [
    'svc_check_email',
    'svc_create_inbox',
    'svc_delete_inbox',
    'svc_simulate_message',
    'svc_verify_signup',
    'svc_wait_and_extract',
  ]);
});

test('choosing sets: query over server default; all or nothing = every tool; unknown names refused', () => {
  const p = {
    teamId: 't',
    keyId: 'k',
    role: 'admin' as const,
    scope: { labelPrefix: null, readOnly: false },
    via: 'key' as const,
    clientId: null,
  };
  assert.deepEqual(resolveToolsets('verify, Search', ['faults'], p), ['verify', 'search']);
  assert.deepEqual(resolveToolsets(undefined, ['faults'], p), ['faults']);
  assert.equal(resolveToolsets(undefined, [], p), null);
  assert.equal(resolveToolsets('all', ['faults'], p), null);
  assert.throws(() => parseToolsets('verify,bogus', '--mcp-toolsets'), /--mcp-toolsets: unknown toolset bogus; known: all, runs/);
});

test('size: all tools ≤ 40 % of the characters before issue 34; verify ≤ 2,500 characters', () => {
  const all = model(tools);
  assert.ok(all <= 0.4 * 98_582, `all tools: ${all} characters > ${0.4 * 98_582}`);
  const verify = tools.filter((t) => TOOLSETS.find((s) => s.name === 'verify')!.tools.includes(t.name));
  const verifyChars = verify.reduce((n, t) => n + (t.description ?? '').length + JSON.stringify(t.inputSchema).length, 0);
  assert.ok(verifyChars <= 2500, `verify: ${verifyChars} characters`);
});

test('every tool keeps its name and its argument names', () => {
  const before = JSON.parse(fs.readFileSync(path.join(here, '../fixtures/mcp-tool-args.json'), 'utf8')) as Record<string, string[]>;
  const now = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]));
  for (const [name, args] of Object.entries(before)) assert.deepEqual(now[name], args, name);
});
