// Writes clients/typescript/src/openapi.gen.ts from inboxd's OpenAPI document: by default the document this source
// tree serves (built from the operation registry, exactly as GET /v1/openapi.json builds it), or the one a running
// server serves with `--from http://localhost:8025`. `--check` only compares and exits 1 when the file is stale.
import fs from 'node:fs';
import path from 'node:path';
import { buildOpenApi } from '../../src/ops/openapi.ts';
import { OPERATIONS } from '../../src/ops/registry.ts';
import { generateTypes, type OpenApiDocument } from './openapi-to-ts.ts';

export const GENERATED = path.resolve(import.meta.dirname, '../../clients/typescript/src/openapi.gen.ts');

/** The document GET /v1/openapi.json answers (the server URL does not enter the types). */
export function currentDocument(): OpenApiDocument {
  return buildOpenApi(OPERATIONS, 'http://localhost:8025') as unknown as OpenApiDocument;
}

async function main(argv: string[]): Promise<number> {
  const from = argv.includes('--from') ? argv[argv.indexOf('--from') + 1] : undefined;
  let d: OpenApiDocument;
  if (from) {
    const res = await fetch(new URL('/v1/openapi.json', from));
    if (!res.ok) throw new Error(`GET ${from}/v1/openapi.json → ${res.status}`);
    d = (await res.json()) as OpenApiDocument;
  } else d = currentDocument();
  const text = generateTypes(d);
  const old = fs.existsSync(GENERATED) ? fs.readFileSync(GENERATED, 'utf8') : '';
  if (argv.includes('--check')) {
    if (old === text) return 0;
    console.error(`${path.relative(process.cwd(), GENERATED)} is stale: run npm run clients:types and commit it`);
    return 1;
  }
  if (old !== text) fs.writeFileSync(GENERATED, text);
  console.log(`${old === text ? 'unchanged' : 'wrote'} ${path.relative(process.cwd(), GENERATED)} (${text.length} bytes)`);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
