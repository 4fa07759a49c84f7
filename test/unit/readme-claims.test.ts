// The README promises only what exists, and its commands run outside this repository.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { OPERATIONS } from '../../src/ops/registry.ts';

const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

test('send and reply are not mentioned as operations while no operation sends or replies', () => {
  const sends = OPERATIONS.some((o) => /send|reply/i.test(JSON.stringify(o.http ?? {})));
  if (sends) return;
  const claims = readme.split('\n').filter((l) => /\b(send|reply)\b,|, (send|reply)\b|execute-reply|\/send\b|\/reply\b/i.test(l));
  assert.deepEqual(claims, []);
});

test('npx commands pin the package version (a bare npx name resolves differently outside the repo)', () => {
  const unpinned = [...readme.matchAll(/npx (@?[\w./-]+(?:@[\w.-]+)?)/g)].map((m) => m[1]!).filter((p) => p !== 'node' && !/.@\d/.test(p));
  assert.deepEqual(unpinned, []);
});
