// packaging/: the systemd unit passes `systemd-analyze verify` (where systemd is installed) with its hardening in
// place, the Dockerfile has what a non-root image needs, both name only real settings, and the image's HEALTHCHECK
// command really tells a healthy server from an absent one.
// not @cluster: checks packaging/ and the image's HEALTHCHECK against one process
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { OPTIONS } from '../../../src/config.ts';
import { ROOT } from '../../helpers/cli.ts';
import { startTestServer, tempDir } from '../../helpers/server.ts';

const unit = fs.readFileSync(path.join(ROOT, 'packaging/inboxd.service'), 'utf8');
const dockerfile = fs.readFileSync(path.join(ROOT, 'packaging/Dockerfile'), 'utf8');
const ENV_ONLY = ['INBOXD_ADMIN_KEY', 'INBOXD_NATIVE_CACHE_DIR', 'INBOXD_BILLING_SECRET_KEY', 'INBOXD_MAILGUN_SIGNING_KEY'];

/** Directive → values, comments and section headers left out. */
function directives(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!]);
  }
  return out;
}

test('the systemd unit runs as a dedicated user with the data dir under /var/lib/inboxd and is hardened', () => {
  const d = directives(unit);
  const one = (k: string) => d.get(k)?.at(-1);
  assert.equal(one('User'), 'inboxd');
  assert.equal(one('StateDirectory'), 'inboxd');
  assert.match(one('ExecStart') ?? '', /^\/usr\/local\/bin\/inboxd serve$/);
  assert.ok(d.get('Environment')!.includes('INBOXD_DATA_DIR=/var/lib/inboxd'));
  assert.equal(one('ReadWritePaths'), '/var/lib/inboxd');
  assert.equal(one('NoNewPrivileges'), 'yes');
  assert.equal(one('ProtectSystem'), 'strict');
  assert.equal(one('AmbientCapabilities'), 'CAP_NET_BIND_SERVICE');
  assert.equal(one('CapabilityBoundingSet'), 'CAP_NET_BIND_SERVICE');
  for (const k of ['ProtectHome', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID', 'LockPersonality']) assert.equal(one(k), 'yes', k);
  // V8 needs writable-then-executable memory: this would make the JIT crash at start.
  assert.notEqual(one('MemoryDenyWriteExecute'), 'yes');
  assert.equal(one('KillSignal'), 'SIGTERM');
});

test('systemd-analyze verify accepts the unit without a warning', (t) => {
  const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  if (probe.error) return t.skip('systemd-analyze is not installed here');
  const dir = tempDir();
  try {
    // verify checks that ExecStart exists: point it at an executable that does (the unit is otherwise unchanged).
    const copy = path.join(dir, 'inboxd.service');
    fs.writeFileSync(copy, unit.replace('ExecStart=/usr/local/bin/inboxd serve', `ExecStart=${process.execPath} serve`));
    const r = spawnSync('systemd-analyze', ['verify', copy], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr.trim(), '', 'no warnings (an unknown or misspelt directive is only a warning)');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the Dockerfile: slim Debian, the single executable, a non-root user with cap_net_bind_service for SMTP 25, /data, a health check', () => {
  assert.match(dockerfile, /^ARG BASE_IMAGE=debian:[a-z]+-slim$/m);
  assert.match(dockerfile, /^FROM \$\{BASE_IMAGE\}$/m);
  // The executable arrives through a bind mount and gets its capability in the same RUN (one copy in the image).
  const run = /^RUN --mount=type=bind,source=dist\/inboxd,target=(\S+) \\\n(?:.*\\\n)*.*$/m.exec(dockerfile);
  assert.ok(run, 'RUN --mount=type=bind,source=dist/inboxd,…');
  assert.ok(run[0].includes(`install -m 0755 ${run[1]} /usr/local/bin/inboxd`), 'installed from the mount, mode 0755');
  assert.ok(run[0].includes('setcap cap_net_bind_service=+ep /usr/local/bin/inboxd'), 'the capability in the same layer');
  assert.doesNotMatch(dockerfile, /^(COPY|ADD) /m, 'no second copy of the executable in another layer');
  const user = /^USER (\S+)$/m.exec(dockerfile)?.[1];
  assert.ok(user && !/^(root|0)(:|$)/.test(user), `USER ${user}`);
  assert.ok(dockerfile.indexOf('\nUSER ') > dockerfile.indexOf('setcap '), 'setcap runs as root, before USER');
  // A variable as the ENV instruction sets it (comments may name other values).
  const env = (name: string) => new RegExp(`^(?:ENV)?\\s+${name}=(\\S+)`, 'm').exec(dockerfile)?.[1];
  const exposed = /^EXPOSE (.+)$/m.exec(dockerfile)?.[1]?.split(/\s+/) ?? [];
  assert.equal(env('INBOXD_SMTP_PORT'), '25');
  assert.ok(exposed.includes(env('INBOXD_SMTP_PORT')!), 'the SMTP port is exposed');
  assert.ok(exposed.includes(env('INBOXD_HTTP_PORT')!), 'the HTTP port is exposed');
  // A non-root user binds 25 only with the capability, given to the executable alone and nothing more.
  assert.match(dockerfile, /setcap cap_net_bind_service=\+ep \/usr\/local\/bin\/inboxd\b/);
  assert.doesNotMatch(dockerfile, /cap_(sys_admin|net_admin|net_raw)/i);
  assert.equal(env('INBOXD_DATA_DIR'), '/data');
  assert.match(dockerfile, /^VOLUME \["\/data"\]$/m);
  assert.match(dockerfile, /install -d -o inboxd -g inboxd -m 0750 \/data\b/);
  assert.match(dockerfile, /^HEALTHCHECK .*\n\s+CMD \[.*\/health/m);
  assert.match(dockerfile, /^ENTRYPOINT \["\/usr\/local\/bin\/inboxd"\]$/m);
});

test('both files name only settings that exist', () => {
  const known = new Set([...Object.values(OPTIONS).map((o) => o.env), ...ENV_ONLY]);
  for (const [name, text] of [
    ['inboxd.service', unit],
    ['Dockerfile', dockerfile],
  ] as const) {
    const used = new Set([...text.matchAll(/\b(INBOXD_[A-Z_]+)=/g)].map((m) => m[1]!));
    assert.ok(used.size >= 3, name);
    for (const v of used) assert.ok(known.has(v), `${name} sets ${v}, which is no inboxd setting`);
  }
});

test('the HEALTHCHECK command passes against a healthy server and fails against a degraded or absent one', async (t) => {
  if (spawnSync('bash', ['-c', 'true']).error) return t.skip('no bash here');
  const json = /^ {2}CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  assert.ok(json, 'HEALTHCHECK … CMD [exec form]');
  const argv = JSON.parse(json) as string[];
  assert.equal(argv[0], 'bash');
  // Asynchronous: the server under test runs in this process and must keep answering meanwhile.
  const check = (port: number) =>
    new Promise<number | null>((resolve) => {
      const child = spawn(argv[0]!, argv.slice(1), { env: { ...process.env, INBOXD_HTTP_PORT: String(port) }, stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
  const s = await startTestServer();
  try {
    assert.equal(await check(s.server.httpPort), 0);
  } finally {
    await s.stop();
  }
  // A degraded server (GET /health 503: less free space than --health-min-free-mb) is unhealthy too.
  const degraded = await startTestServer(['--health-min-free-mb', String(1024 * 1024 * 1024)]);
  try {
    assert.equal((await fetch(`${degraded.url}/health`)).status, 503);
    assert.notEqual(await check(degraded.server.httpPort), 0);
  } finally {
    await degraded.stop();
  }
  const free = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(p));
    });
  });
  assert.notEqual(await check(free), 0, 'nothing listening: unhealthy');
});
