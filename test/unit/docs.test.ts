// The README's configuration table and `inboxd --help` must name every setting there is.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { OPTIONS } from '../../src/config.ts';

const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

test('README documents every flag and environment variable', () => {
  const missing = Object.values(OPTIONS).flatMap((o) => [o.flag, o.env].filter((x) => !readme.includes(`\`${x}\``)));
  assert.deepEqual(missing, []);
  for (const env of ['INBOXD_ADMIN_KEY', 'INBOXD_BILLING_SECRET_KEY', 'INBOXD_MAILGUN_SIGNING_KEY', 'INBOXD_NATIVE_CACHE_DIR'])
    assert.ok(readme.includes(env), env);
});

test('README starts with exactly the two set-up commands', () => {
  const blocks = [...readme.split('## Quick start')[0]!.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  assert.deepEqual(blocks, ['npm ci && npm start', 'npm test']);
});
