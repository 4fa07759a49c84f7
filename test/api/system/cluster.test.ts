// GET /v1/cluster: the instances sharing the database from their heartbeat rows (migration 029): id, version, uptime,
// the once-per-cluster jobs each leads, health, stale and stopped instances; who may read it; every metric series
// labelled with the answering instance's id.
// @cluster (the first test counts the instances the helper started: one, or two under INBOXD_TEST_CLUSTER=1)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startFakeModels } from '../../helpers/fake-models.ts';
import { json } from '../../helpers/http.ts';
import { postgresMissing, startPostgres } from '../../helpers/postgres.ts';
import { parsePrometheus } from '../../helpers/prom.ts';
import { startTestServer, TEST_CLUSTER, type TestServer, tempDir } from '../../helpers/server.ts';

interface Instance {
  id: string;
  version: string;
  pid: number;
  hostname: string;
  startedAt: string;
  uptimeSeconds: number;
  lastHeartbeat: string;
  heartbeatAgeSeconds: number;
  state: 'up' | 'stale' | 'stopped';
  roles: string[];
  health: { status: string; reason: string | null };
  models: Array<{ model: string; ready: boolean; lastProbe: { ok: boolean; error: string | null } | null }>;
  self: boolean;
}
interface ClusterView {
  instance: string;
  heartbeatSeconds: number;
  staleAfterSeconds: number;
  instances: Instance[];
}

async function view(s: TestServer, base?: string): Promise<ClusterView> {
  if (!base) return (await json(await s.api('/v1/cluster'))) as ClusterView;
  const r = await fetch(`${base}/v1/cluster`, { headers: { authorization: `Bearer ${s.key}` } });
  return (await json(r)) as ClusterView;
}

describe('GET /v1/cluster', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());

  test('lists this server as an up, healthy instance leading the background jobs', async () => {
    const v = await view(s, s.url);
    assert.equal(v.instances.length, TEST_CLUSTER ? 2 : 1, JSON.stringify(v));
    const me = v.instances.find((i) => i.self)!;
    assert.equal(me.id, v.instance);
    assert.match(me.id, /^ins_/);
    assert.equal(me.state, 'up');
    assert.equal(me.pid, process.pid);
    assert.equal(me.version, (await json(await fetch(`${s.url}/health`))).version);
    assert.deepEqual(me.health, { status: 'ok', reason: null });
    assert.ok(me.heartbeatAgeSeconds < v.staleAfterSeconds);
    assert.equal(v.heartbeatSeconds, 10);
    assert.equal(v.staleAfterSeconds, 30);
    assert.ok(Date.parse(me.startedAt) <= Date.parse(me.lastHeartbeat));
    // The expiry sweep runs on one instance of a cluster; on SQLite this one runs every job.
    const leaders = v.instances.filter((i) => i.roles.includes('expiry-sweep'));
    assert.equal(leaders.length, 1, JSON.stringify(v.instances.map((i) => i.roles)));
  });

  test('admin only: no key 401, a member key 403', async () => {
    assert.equal((await s.api('/v1/cluster', { key: null })).status, 401);
    const member = (await json(await s.api('/v1/team/keys', { method: 'POST', json: { label: 'member' } }), 201)).key as string;
    assert.equal((await s.api('/v1/cluster', { key: member })).status, 403);
  });

  test('every metric series carries the answering instance id as inboxd_instance', async () => {
    const v = await view(s, s.url);
    const r = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${s.key}` } });
    const families = parsePrometheus(await r.text());
    let n = 0;
    for (const f of families.values())
      for (const sample of f.samples) {
        assert.equal(sample.labels.inboxd_instance, v.instance, `${sample.name} ${JSON.stringify(sample.labels)}`);
        n++;
      }
    assert.ok(n > 20);
  });
});

const missing = postgresMissing();
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`);

test('two instances on one PostgreSQL: both listed, one leads each job, models per instance, stale, stopped', {
  skip: missing ?? false,
}, async () => {
  const pg = await startPostgres();
  const fake = await startFakeModels();
  fake.script.set('up', { kind: 'ok', data: {} });
  fake.script.set('down', { kind: 'status', status: 500 });
  const blobDir = tempDir('inboxd-blobs-');
  const database = await pg.createDatabase('cluster_view');
  const models = (which: string) => ['--models', `ollama:llama3.2@${fake.base(which)}`, '--model-timeout-ms', '2000'];
  const a = await startTestServer(models('up'), {}, { database, blobDir });
  const b = await startTestServer(models('down'), {}, { database, blobDir });
  let bStopped = false;
  try {
    const fromA = await view(a, a.url);
    const fromB = await view(a, `http://127.0.0.1:${b.server.httpPort}`);
    assert.equal(fromA.instances.length, 2);
    assert.deepEqual(fromA.instances.map((i) => i.id).sort(), fromB.instances.map((i) => i.id).sort());
    assert.notEqual(fromA.instance, fromB.instance);
    assert.ok(fromA.instances.find((i) => i.id === fromA.instance)!.self);
    assert.ok(fromB.instances.find((i) => i.id === fromB.instance)!.self);
    assert.ok(fromA.instances.every((i) => i.state === 'up' && i.health.status === 'ok'));
    // Advisory locks: exactly one of the two leads the expiry sweep, and no job is led twice.
    const roles = fromA.instances.flatMap((i) => i.roles);
    assert.equal(roles.filter((r) => r === 'expiry-sweep').length, 1, JSON.stringify(fromA.instances));
    assert.equal(new Set(roles).size, roles.length);

    // The model probe runs where it is asked; the view shows each instance's own answer (B's after its next beat).
    const bBase = `http://127.0.0.1:${b.server.httpPort}`;
    assert.equal((await a.api('/v1/workspace/models/probe', { method: 'POST', json: {} })).status, 200);
    const probeB = await fetch(`${bBase}/v1/workspace/models/probe`, {
      method: 'POST',
      headers: { authorization: `Bearer ${a.key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(probeB.status, 200);
    await b.server.services.cluster.beat();
    const withModels = await view(a, a.url);
    const modelOf = (id: string) => withModels.instances.find((i) => i.id === id)!.models;
    assert.equal(modelOf(fromA.instance).length, 1);
    assert.equal(modelOf(fromA.instance)[0]!.lastProbe?.ok, true);
    assert.equal(modelOf(fromB.instance)[0]!.lastProbe?.ok, false, JSON.stringify(modelOf(fromB.instance)));
    assert.equal(modelOf(fromB.instance)[0]!.ready, false);

    // A heartbeat 40 s late (the instance died or lost the database): stale.
    await a.server.parts.store.db
      .updateTable('instances' as never)
      .set({ heartbeat_at: Date.now() - 40_000 } as never)
      .where('id' as never, '=', fromB.instance as never)
      .execute();
    const late = (await view(a, a.url)).instances.find((i) => i.id === fromB.instance)!;
    assert.equal(late.state, 'stale');
    assert.ok(late.heartbeatAgeSeconds >= 39);

    // A clean stop writes a last heartbeat marking the instance stopped.
    await b.stop();
    bStopped = true;
    const gone = (await view(a, a.url)).instances.find((i) => i.id === fromB.instance)!;
    assert.equal(gone.state, 'stopped');
    assert.equal(gone.health.status, 'down');
  } finally {
    await a.stop();
    if (!bStopped) await b.stop();
    await pg.stop();
    await fake.stop();
    fs.rmSync(blobDir, { recursive: true, force: true });
  }
});
