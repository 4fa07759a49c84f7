// Size of the MCP tool definitions a model is given, per toolset and in total.
//
//   node scripts/bench/mcp-tools.ts [--json] [--tools]
//
// Builds tools/list exactly as /mcp serves it (src/mcp/tools.ts over the operation registry, no server needed) and
// counts, per toolset (src/mcp/toolsets.ts) and for all tools: the model-facing part (name + description + input
// schema as JSON), the input schemas and descriptions alone, and the output schemas. Tokens are estimated as
// characters / 4 (no tokenizer). --tools adds one line per tool; --json prints one JSON object instead of the table.
import { parseArgs } from 'node:util';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { listTools } from '../../src/mcp/tools.ts';
import { OPERATIONS } from '../../src/ops/registry.ts';
import { TOOLSETS } from '../../src/ops/toolsets.ts';

const { values } = parseArgs({ options: { json: { type: 'boolean' }, tools: { type: 'boolean' } }, strict: true });

interface Size {
  tools: number;
  /** name + description + JSON of the input schema: what a model is given for the tool. */
  model: number;
  /** description + JSON of the input schema (the issue's `verify` budget counts these). */
  schemaAndDescription: number;
  /** JSON of the output schema (some clients forward it too). */
  output: number;
}

function size(tools: Tool[]): Size {
  const s: Size = { tools: tools.length, model: 0, schemaAndDescription: 0, output: 0 };
  for (const t of tools) {
    const d = (t.description ?? '').length + JSON.stringify(t.inputSchema).length;
    s.model += t.name.length + d;
    s.schemaAndDescription += d;
    s.output += t.outputSchema ? JSON.stringify(t.outputSchema).length : 0;
  }
  return s;
}

const tools = listTools(OPERATIONS);
const rows: Array<{ name: string } & Size> = [
  ...TOOLSETS.map((set) => ({ name: set.name, ...size(tools.filter((t) => set.tools.includes(t.name))) })),
  { name: 'all', ...size(tools) },
];
const perTool = tools.map((t) => ({ name: t.name, ...size([t]) }));

if (values.json) {
  console.log(JSON.stringify({ toolsets: rows, ...(values.tools ? { tools: perTool } : {}) }));
} else {
  const tok = (n: number) => Math.round(n / 4);
  const line = (r: { name: string } & Size) =>
    `${r.name.padEnd(values.tools ? 40 : 10)} ${String(r.tools).padStart(5)} ${String(r.model).padStart(8)} ${String(tok(r.model)).padStart(7)} ${String(r.schemaAndDescription).padStart(8)} ${String(r.output).padStart(8)} ${String(tok(r.output)).padStart(7)}`;
  console.log(
    `${'toolset'.padEnd(values.tools ? 40 : 10)} ${'tools'.padStart(5)} ${'chars'.padStart(8)} ${'tokens'.padStart(7)} ${'in+desc'.padStart(8)} ${'output'.padStart(8)} ${'out tok'.padStart(7)}`,
  );
  for (const r of rows) console.log(line(r));
  if (values.tools) for (const r of perTool) console.log(line(r));
  console.log('chars: name + description + input schema JSON; tokens: chars / 4; in+desc: description + input schema');
}
