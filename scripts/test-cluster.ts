// `npm run test:cluster`: every API test file marked `// @cluster` runs once more with INBOXD_TEST_CLUSTER=1, where
// each test server is two instances on one PostgreSQL and one S3 bucket (test/helpers/server.ts). The mark is a
// comment line of its own in the file's leading comment block; a file that cannot run there says why instead with
// `// not @cluster: <why>` (test/README.md; test/unit/test-layout.test.ts checks every file says one or the other).
// No list of files to keep in step by hand.
//
//   node scripts/test-cluster.ts                          every marked file, two at a time
//   node scripts/test-cluster.ts --list                   print the marked files and stop
//   node scripts/test-cluster.ts --test-name-pattern=x    other arguments go to `node --test`
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

export type ClusterMark = { cluster: true } | { cluster: false; why: string };

/** What a file's leading comment block (the lines before its first line of code) says: the mark, why not, or nothing. */
export function clusterMark(source: string): ClusterMark | null {
  for (const line of source.split('\n')) {
    if (!line.startsWith('//')) return null;
    if (/^\/\/ @cluster\b/.test(line)) return { cluster: true };
    const not = /^\/\/ not @cluster: (\S.*)$/.exec(line);
    if (not) return { cluster: false, why: not[1]! };
  }
  return null;
}

/** The API test files, relative to the repo root, sorted. */
export function apiTestFiles(): string[] {
  return fs.globSync('test/api/**/*.test.ts', { cwd: ROOT }).sort();
}

function main(args: string[]): never {
  const files = apiTestFiles().filter((f) => clusterMark(fs.readFileSync(path.join(ROOT, f), 'utf8'))?.cluster);
  if (args.includes('--list')) {
    for (const f of files) console.log(f);
    process.exit(0);
  }
  if (files.length === 0) {
    console.error('test:cluster: no test/api file is marked // @cluster');
    process.exit(1);
  }
  console.error(`test:cluster: ${files.length} files marked // @cluster, on two instances (INBOXD_TEST_CLUSTER=1)`);
  // As `npm test`: a file whose `before` failed and left a handle open ends instead of waiting forever (a CI run's
  // cluster run hung 72 minutes so; test/helpers/exit-when-done.ts), and no test or hook runs longer than 10 minutes.
  const flags = ['--test', '--test-concurrency=2', '--import', './test/helpers/exit-when-done.ts', '--test-timeout=600000'];
  const run = spawnSync(process.execPath, [...flags, ...args, ...files], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, INBOXD_TEST_CLUSTER: '1' },
  });
  if (run.error) throw run.error;
  process.exit(run.status ?? 1);
}

if (import.meta.main) main(process.argv.slice(2));
