// Audit retention: the periodic sweep (which also runs at start) deletes audit events past the retention period
// and the oldest beyond the row limit.
// @cluster
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { startTestServer, type TestServer, tempDir } from '../../helpers/server.ts';

const DAY = 86_400_000;

async function auditActions(t: TestServer): Promise<string[]> {
  const r = await t.api('/v1/audit?limit=100');
  assert.equal(r.status, 200);
  const body = (await r.json()) as { items: Array<{ target: string | null }> };
  return body.items.map((e) => e.target ?? '');
}

/** Inbox deletions are audited: one event each, whose target is the inbox id. */
async function makeInboxes(t: TestServer, labels: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const label of labels) {
    const r = await t.api('/v1/inboxes', { method: 'POST', json: { label } });
    const text = await r.text();
    assert.equal(r.status, 201, text);
    const { inboxId: id } = JSON.parse(text) as { inboxId: string };
    assert.equal((await t.api(`/v1/inboxes/${id}`, { method: 'DELETE' })).status, 200);
    ids.push(id);
  }
  return ids;
}

describe('audit retention', () => {
  it('events older than --audit-retention-days are deleted by the sweep', async () => {
    const dir = tempDir();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = { now: () => now };
    let t: TestServer | undefined;
    try {
      t = await startTestServer(['--audit-retention-days', '2'], {}, { dataDir: dir, clock });
      const old = await makeInboxes(t, ['old-1', 'old-2', 'old-3']);
      now += 2 * DAY + 1000;
      await makeInboxes(t, ['new-1']);
      const before = (await auditActions(t)).length;
      assert.ok(before >= 4, `expected at least 4 audit events, got ${before}`);
      await t.stop();
      t = undefined;
      t = await startTestServer(['--audit-retention-days', '2'], {}, { dataDir: dir, clock });
      const after = await auditActions(t);
      assert.equal(
        after.some((x) => old.includes(x)),
        false,
      );
      assert.ok(after.length >= 1 && after.length < before, `${before} → ${after.length}`);
      // The periodic sweep uses the same prune; with time moving on, the rest goes too.
      now += 3 * DAY;
      assert.ok((await t.server.services.auditLog.prune(now)) >= 1);
      assert.deepEqual(await auditActions(t), []);
    } finally {
      await t?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--audit-max-rows keeps only the newest events', async () => {
    const dir = tempDir();
    let t: TestServer | undefined;
    try {
      t = await startTestServer(['--audit-max-rows', '0'], {}, { dataDir: dir });
      const ids = await makeInboxes(t, ['a', 'b', 'c', 'd', 'e', 'f']);
      assert.ok((await auditActions(t)).length >= 6);
      await t.stop();
      t = undefined;
      t = await startTestServer(['--audit-max-rows', '3'], {}, { dataDir: dir });
      const kept = await auditActions(t);
      assert.equal(kept.length, 3, kept.join());
      assert.ok(kept.includes(ids[5]!), kept.join());
      for (const id of ids.slice(0, 3)) assert.equal(kept.includes(id), false, kept.join());
    } finally {
      await t?.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
