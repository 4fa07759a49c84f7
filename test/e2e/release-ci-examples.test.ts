// packaging/ci/: the CI service examples (README "Releases and installing") name only real settings, reach the ports
// the image listens on, and the compose file's two instances share what "Scaling out" says they must share; HAProxy
// accepts its configuration. (No Docker daemon or CI runner here: the files are checked, not run.)
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { OPTIONS } from '../../src/config.ts';
import { ROOT } from '../helpers/cli.ts';

const dir = path.join(ROOT, 'packaging/ci');
const read = (f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
// Settings read from the environment only (README "Command line" and "PostgreSQL"), besides the flags' variables.
const ENV_ONLY = ['INBOXD_ADMIN_KEY', 'INBOXD_SECRET_KEY', 'INBOXD_DATABASE_PASSWORD', 'INBOXD_NATIVE_CACHE_DIR'];
// What the examples set for the application under test and for inboxd's client commands.
const CLIENT = ['INBOXD_URL', 'INBOXD_KEY'];
const known = new Set([...Object.values(OPTIONS).map((o) => o.env), ...ENV_ONLY, ...CLIENT]);
const dockerfile = fs.readFileSync(path.join(ROOT, 'packaging/Dockerfile'), 'utf8');
const imagePorts = /^EXPOSE (.+)$/m.exec(dockerfile)![1]!.split(/\s+/);

/** `  NAME: value` pairs of a YAML text (the examples keep to one-line scalars). */
function settings(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^\s+(INBOXD_[A-Z_]+|AWS_[A-Z_]+|POSTGRES_[A-Z_]+):\s*(.+?)\s*$/gm)].map((m) => [m[1]!, m[2]!]));
}

test('every INBOXD_ variable in the CI examples is an inboxd setting', () => {
  for (const f of fs.readdirSync(dir)) {
    for (const [name] of settings(read(f))) {
      if (name.startsWith('INBOXD_')) assert.ok(known.has(name), `${f} sets ${name}, which inboxd does not read`);
    }
  }
});

test('GitHub Actions and GitLab CI run the image as a service on the ports it exposes, with an admin key that fits', () => {
  const gh = read('github-actions.yml');
  assert.match(gh, /^ {4}services:\n {6}inboxd:\n {8}image: \S+\/inboxd:\d+\.\d+\.\d+$/m);
  const mapped = [...gh.matchAll(/^ {10}- (\d+):(\d+)/gm)].map((m) => m[2]!);
  assert.deepEqual(mapped.sort(), [...imagePorts].sort(), 'both image ports are published');
  const gl = read('gitlab-ci.yml');
  assert.match(gl, /^ {2}services:\n {4}- name: \S+\/inboxd:\d+\.\d+\.\d+\n {6}alias: inboxd$/m);
  assert.match(gl, /INBOXD_URL: http:\/\/inboxd:8025$/m);
  for (const [f, text] of [
    ['github-actions.yml', gh],
    ['gitlab-ci.yml', gl],
  ] as const) {
    const s = settings(text);
    // INBOXD_ADMIN_KEY: 24-256 characters of A-Z a-z 0-9 . _ ~ + / = -, and the tests use the same key.
    assert.match(s.get('INBOXD_ADMIN_KEY') ?? '', /^[A-Za-z0-9._~+/=-]{24,256}$/, f);
    assert.equal(s.get('INBOXD_KEY'), s.get('INBOXD_ADMIN_KEY'), `${f}: the tests use the service's key`);
  }
});

test('compose: two inboxd instances on one PostgreSQL and one bucket, sharing keys, each with its own data dir', () => {
  const c = read('compose.yaml');
  const services = [...c.matchAll(/^ {2}([a-z0-9-]+):(?:\s+#.*)?$/gm)].map((m) => m[1]!);
  const instances = services.filter((s) => /^inboxd-/.test(s));
  assert.equal(instances.length, 2);
  for (const s of ['postgres', 'minio', 'bucket', 'haproxy']) assert.ok(services.includes(s), s);
  for (const i of instances) assert.match(c, new RegExp(`^ {2}${i}:\\n {4}<<: \\*inboxd\\n {4}volumes: \\[data-\\w:/data\\]`, 'm'));
  const s = settings(c);
  assert.match(s.get('INBOXD_DATABASE_URL')!, /^postgres:\/\/inboxd@postgres:5432\/inboxd$/, 'no password in the URL');
  assert.equal(s.get('INBOXD_DATABASE_PASSWORD'), s.get('POSTGRES_PASSWORD'));
  assert.match(s.get('INBOXD_BLOB_STORE')!, /^s3:\/\/[a-z-]+\?endpoint=http:\/\/minio:9000/);
  for (const k of ['INBOXD_ADMIN_KEY', 'INBOXD_SECRET_KEY', 'INBOXD_DOMAIN', 'INBOXD_BASE_URL']) assert.ok(s.has(k), `shared ${k}`);
  const bucket = /^s3:\/\/([a-z-]+)/.exec(s.get('INBOXD_BLOB_STORE')!)![1]!;
  assert.match(c, new RegExp(`mc mb --ignore-existing s3/${bucket}`), 'the bucket is created');
});

test('HAProxy accepts haproxy.cfg, which balances both instances on the image ports', (t) => {
  const cfg = read('haproxy.cfg');
  for (const p of imagePorts) {
    assert.match(cfg, new RegExp(`server a inboxd-a:${p}\\n\\s+server b inboxd-b:${p}`), `both instances on ${p}`);
  }
  const r = spawnSync('haproxy', ['-c', '-f', path.join(dir, 'haproxy.cfg')], { encoding: 'utf8' });
  if (r.error) {
    if (process.env.CI === 'true') assert.fail('haproxy is not installed (Debian: haproxy)');
    return t.skip('haproxy is not installed (Debian: haproxy)');
  }
  assert.equal(r.status, 0, r.stderr);
  assert.match(`${r.stdout}${r.stderr}`, /Configuration file is valid/);
});
