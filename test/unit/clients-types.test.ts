// The TypeScript client's types are generated from the OpenAPI document (scripts/clients/generate-types.ts), never
// edited by hand: regenerating from the document this source tree serves gives the committed file byte for byte, and
// the converter writes what each schema construct means.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { currentDocument, GENERATED } from '../../scripts/clients/generate-types.ts';
import { generateTypes, type OpenApiDocument, schemaType } from '../../scripts/clients/openapi-to-ts.ts';

test('clients/typescript/src/openapi.gen.ts is what the current OpenAPI document generates', () => {
  const fresh = generateTypes(currentDocument());
  assert.ok(fresh === fs.readFileSync(GENERATED, 'utf8'), 'stale: run npm run clients:types and commit the file');
  for (const id of [
    'inboxes.create',
    'inboxes.wait',
    'agent.verify',
    'inboxes.simulate',
    'messages.send',
    'messages.search_all',
    'inboxes.delete',
  ])
    assert.ok(fresh.includes(`  ${JSON.stringify(id)}: {\n`), id);
});

test('a change of the document changes the generated types', () => {
  const d = currentDocument();
  const create = d.paths['/v1/inboxes']!.post!;
  const schema = create.responses['201']!.content!['application/json']!.schema!;
  schema.properties!.brandNew = { type: 'string', description: 'a field added to the API' };
  const out = generateTypes(d);
  assert.match(out, /\/\*\* a field added to the API \*\/\n\s+brandNew\?: string;/);
});

test('schema constructs: nullable, enum, anyOf, allOf, arrays, records, $ref, optional and quoted keys', () => {
  assert.equal(schemaType({ type: 'string', nullable: true }), 'string | null');
  assert.equal(schemaType({ type: 'string', enum: ['a', 'b'] }), '"a" | "b"');
  assert.equal(schemaType({ anyOf: [{ type: 'integer' }, { type: 'string', enum: ['x'] }] }), 'number | "x"');
  assert.equal(
    schemaType({
      allOf: [{ $ref: '#/components/schemas/Problem' }, { type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'] }],
    }),
    'Problem & {\n  a: boolean;\n}',
  );
  assert.equal(schemaType({ type: 'array', items: { type: 'string', nullable: true } }), '(string | null)[]');
  assert.equal(schemaType({ type: 'object', additionalProperties: { type: 'number' } }), 'Record<string, number>');
  assert.equal(schemaType({ type: 'object' }), 'Record<string, unknown>');
  assert.equal(schemaType({ type: 'object', properties: {}, additionalProperties: false }), 'Record<string, never>');
  assert.equal(schemaType({}), 'unknown');
  assert.equal(schemaType({ type: 'string', format: 'binary' }), 'Blob');
  assert.equal(
    schemaType({
      type: 'object',
      properties: { 'x-y': { type: 'string', description: 'no */ here' }, id: { type: 'integer' } },
      required: ['id'],
    }),
    '{\n  /** no *\\/ here */\n  "x-y"?: string;\n  id: number;\n}',
  );
});

test('the run-time table: method, path and status of every operation', () => {
  const d: OpenApiDocument = {
    info: { title: 't', version: '1' },
    paths: {
      '/v1/x/{id}': {
        delete: {
          operationId: 'x.del',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '204': {} },
        },
      },
    },
  };
  const out = generateTypes(d);
  assert.match(out, /"x\.del": \{ method: "DELETE", path: "\/v1\/x\/\{id\}", status: 204 \},/);
  assert.match(out, /pathParams: \{\n\s+id: string;\n\s+\};/);
});

test('the client has no runtime dependency: its sources import only each other', () => {
  const dir = path.resolve(import.meta.dirname, '../../clients/typescript/src');
  for (const f of fs.readdirSync(dir)) {
    const src = fs.readFileSync(path.join(dir, f), 'utf8');
    for (const m of src.matchAll(/^(?:import|export)[^;]*?from '([^']+)'/gm)) assert.match(m[1]!, /^\.\/[\w.-]+\.ts$/, `${f}: ${m[1]}`);
  }
});
