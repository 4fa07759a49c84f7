// @cluster
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { openapiPath } from '../../../src/ops/openapi.ts';
import { OPERATIONS } from '../../../src/ops/registry.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(async () => {
  await s.stop();
});

async function problem(res: Response, status: number, code: string) {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.type, 'string');
  assert.ok(typeof body.detail === 'string' && body.detail.length > 10, 'detail says what was wrong');
  return body;
}

describe('open endpoints', () => {
  test('GET /health reports ok, db and version without a key', async () => {
    const res = await s.api('/health', { key: null });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json; charset=utf-8/);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.status, 'ok');
    assert.equal(body.db, 'ok');
    assert.equal(body.version, '0.2.0');
  });

  test('GET /v1 lists endpoints, the 25 presets and version', async () => {
    const res = await s.api('/v1', { key: null });
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      version: string;
      services: string[];
      endpoints: Array<{ method: string; path: string }>;
      tools: string[];
    };
    assert.equal(body.version, '0.2.0');
    assert.equal(body.services.length, 25);
    assert.ok(body.services.includes('github') && body.services.includes('paypal'));
    assert.ok(body.endpoints.some((e) => e.method === 'GET' && e.path === '/health'));
  });

  test('GET /v1/openapi.json is valid OpenAPI 3.0.3 at version 0.2.0', async () => {
    const res = await s.api('/v1/openapi.json', { key: null });
    assert.equal(res.status, 200);
    const doc = (await res.json()) as { openapi: string; info: { version: string } };
    assert.equal(doc.openapi, '3.0.3');
    assert.equal(doc.info.version, '0.2.0');
    await SwaggerParser.validate(structuredClone(doc) as never);
  });
});

describe('the registry is the single source', () => {
  test('every HTTP operation appears in OpenAPI and in /v1, and nothing else does', async () => {
    const doc = (await (await s.api('/v1/openapi.json')).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const disco = (await (await s.api('/v1')).json()) as {
      endpoints: Array<{ method: string; path: string; operation: string }>;
      tools: string[];
    };
    const httpOps = OPERATIONS.filter((o) => o.http);
    assert.ok(httpOps.length >= 3);
    const fromDoc = Object.entries(doc.paths).flatMap(([p, methods]) =>
      Object.entries(methods).map(([m, e]) => `${m.toUpperCase()} ${p} ${e.operationId}`),
    );
    const fromRegistry = httpOps.map((o) => `${o.http!.method} ${openapiPath(o.http!.path)} ${o.name}`);
    assert.deepEqual(fromDoc.sort(), [...fromRegistry].sort());
    assert.deepEqual(
      disco.endpoints.map((e) => `${e.method} ${e.path} ${e.operation}`).sort(),
      httpOps.map((o) => `${o.http!.method} ${o.http!.path} ${o.name}`).sort(),
    );
    assert.deepEqual(disco.tools.sort(), OPERATIONS.flatMap((o) => (o.tool ? [o.tool.name] : [])).sort());
    const names = OPERATIONS.map((o) => o.name);
    assert.equal(new Set(names).size, names.length, 'operation names are unique');
  });
});

describe('errors are problem+json', () => {
  test('unknown route → 404 problem', async () => {
    const body = await problem(await s.api('/v1/nope'), 404, 'not_found');
    assert.match(String(body.detail), /GET \/v1\/nope/);
  });

  test('wrong method on a known path → 405 with Allow', async () => {
    const res = await s.api('/health', { method: 'DELETE' });
    await problem(res, 405, 'method_not_allowed');
    assert.match(res.headers.get('allow') ?? '', /GET/);
  });
});
