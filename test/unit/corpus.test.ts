// The public corpus must score 60/60 with the real command line (`node src/main.ts extract FILE`).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('corpus: score.mjs reports all 60/60', () => {
  const r = spawnSync(
    process.execPath,
    ['test/fixtures/corpus/score.mjs', 'test/fixtures/corpus', '--', process.execPath, 'src/main.ts', 'extract'],
    { cwd: root, encoding: 'utf8', timeout: 180_000 },
  );
  const lines = r.stdout.trim().split('\n');
  const last = lines[lines.length - 1] ?? '';
  assert.equal(r.status, 0, `scorer failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(last, /all 60\/60/);
});
