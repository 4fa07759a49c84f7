// The lifecycle starts components in list order and stops them in reverse; a failed start unwinds what started.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Component, Lifecycle } from '../../src/server/lifecycle.ts';

const quiet = { debug: () => undefined, error: () => undefined };

function recorder(names: string[], events: string[], failStart?: string, failStop?: string): Component[] {
  return names.map((name) => ({
    name,
    start() {
      if (name === failStart) throw new Error(`${name} cannot start`);
      events.push(`start ${name}`);
    },
    async stop() {
      events.push(`stop ${name}`);
      if (name === failStop) throw new Error(`${name} cannot stop`);
    },
  }));
}

test('components stop in reverse start order, once', async () => {
  const events: string[] = [];
  const life = new Lifecycle(recorder(['store', 'writer', 'http', 'smtp'], events), quiet);
  await life.start();
  await Promise.all([life.stop(), life.stop()]);
  assert.deepEqual(events, [
    'start store',
    'start writer',
    'start http',
    'start smtp',
    'stop smtp',
    'stop http',
    'stop writer',
    'stop store',
  ]);
});

test('a failed start stops the components already started, in reverse, and rethrows', async () => {
  const events: string[] = [];
  const life = new Lifecycle(recorder(['store', 'writer', 'http', 'smtp'], events, 'http'), quiet);
  await assert.rejects(life.start(), /http cannot start/);
  assert.deepEqual(events, ['start store', 'start writer', 'stop writer', 'stop store']);
});

test('a failing stop is logged and the rest still stop', async () => {
  const events: string[] = [];
  const errors: unknown[] = [];
  const life = new Lifecycle(recorder(['store', 'writer', 'http'], events, undefined, 'writer'), {
    debug: () => undefined,
    error: (_m, f) => errors.push(f),
  });
  await life.start();
  await life.stop();
  assert.deepEqual(events.slice(3), ['stop http', 'stop writer', 'stop store']);
  assert.equal(errors.length, 1);
});
