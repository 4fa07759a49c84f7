// @cluster
// A real server's components (store, workers, listeners, jobs) stop in the reverse of the order they started.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../../helpers/server.ts';

function order(logs: string[], msg: string): string[] {
  return logs.filter((l) => l.includes(`"msg":"${msg}"`)).map((l) => (JSON.parse(l) as { component: string }).component);
}

test('the server stops its components in reverse start order', async () => {
  const s = await startTestServer();
  const logs = s.logs;
  await s.stop();
  const started = order(logs, 'component started');
  // Under INBOXD_TEST_CLUSTER both instances log into one list: compare each instance's half.
  const instances = s.peer ? 2 : 1;
  const each = started.length / instances;
  assert.ok(each >= 12, `expected the full component list, got ${started.join(', ')}`);
  for (const name of ['store', 'blobs', 'writer', 'callbacks', 'http', 'smtp', 'expiry-sweep', 'monitors'])
    assert.ok(started.includes(name), `${name} is a component`);
  const first = started.slice(0, each);
  assert.deepEqual(order(logs, 'component stopped').slice(0, each), [...first].reverse());
  // Listeners stop accepting before pending writes commit, and those before the store closes.
  const stopped = order(logs, 'component stopped');
  assert.ok(stopped.indexOf('smtp') < stopped.indexOf('writer'));
  assert.ok(stopped.indexOf('http') < stopped.indexOf('writer'));
  assert.ok(stopped.indexOf('writer') < stopped.indexOf('callbacks'));
  assert.ok(stopped.indexOf('callbacks') < stopped.indexOf('store'));
});
