// Without OpenStack Swift installed the S3 tests are skipped with one line naming the Debian packages, and under
// CI=true they fail instead (CI must run them).
// not @cluster: runs blobs-s3 without Swift, no server of its own
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(import.meta.dirname, '../../..');

test('without Swift the S3 tests fail under CI=true and are skipped otherwise, naming the apt packages', () => {
  const run = (ci: string) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: ci, SWIFT_BIN_DIR: '/nonexistent/bin' };
    for (const k of Object.keys(env)) if (k.startsWith('NODE_TEST')) delete env[k];
    return spawnSync(process.execPath, ['--test', 'test/api/store/blobs-s3.test.ts'], {
      cwd: root,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
  };
  const packages = /apt-get install swift swift-proxy swift-object swift-container swift-account memcached/;
  const ci = run('true');
  assert.notEqual(ci.status, 0, ci.stdout);
  assert.match(ci.stdout + ci.stderr, packages);
  const local = run('');
  assert.equal(local.status, 0, local.stdout + local.stderr);
  assert.match(
    local.stdout,
    /S3 blob store on OpenStack Swift \(s3api\) .*# S3 tests need OpenStack Swift \(missing .*\): apt-get install/,
  );
});
