// The test tree's rules (test/README.md): API tests live in test/api/<capability>/, named after a src/ folder, and
// every API test file says whether `npm run test:cluster` runs it on two instances (`// @cluster`) or why not
// (`// not @cluster: <why>`), so a new file cannot silently miss the cluster run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { apiTestFiles, clusterMark, ROOT } from '../../scripts/test-cluster.ts';

/** Folders of test/api that are no src/ folder: whole-system tests (OpenAPI, /health, packaging). */
const EXTRA_FOLDERS = ['system'];

test('every API test file is in a capability folder named after src/<capability>/', () => {
  const capabilities = fs
    .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const misplaced = apiTestFiles().filter((f) => {
    const parts = f.split('/');
    return parts.length !== 4 || !(capabilities.includes(parts[2]!) || EXTRA_FOLDERS.includes(parts[2]!));
  });
  assert.deepEqual(misplaced, []);
});

test('every API test file is marked // @cluster or says // not @cluster: <why>', () => {
  const unmarked = apiTestFiles().filter((f) => clusterMark(fs.readFileSync(path.join(ROOT, f), 'utf8')) === null);
  assert.deepEqual(unmarked, []);
});

test('the mark is read from the leading comment block only', () => {
  assert.deepEqual(clusterMark('// Waits.\n// @cluster\nimport x from "y";\n'), { cluster: true });
  assert.deepEqual(clusterMark('// not @cluster: SQLite segment files\nimport x from "y";\n'), {
    cluster: false,
    why: 'SQLite segment files',
  });
  assert.equal(clusterMark('import x from "y";\n// @cluster\n'), null);
  assert.equal(clusterMark('// @clusters are great\n'), null);
});
