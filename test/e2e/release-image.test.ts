// The container image of packaging/Dockerfile (README "Releases and installing"): SMTP on port 25 as a non-root user
// through the file capability the image gives the executable, and — where podman can build and run containers — the
// image built and run, answering /health and SMTP on 25. On the machine these tests were written on, podman cannot
// (no registry access for the base image; crun refuses the cgroup layout): that test skips there with the reason.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';
import { builtBinary } from '../helpers/console.ts';
import { tempDir } from '../helpers/server.ts';

const NOBODY = 65534;
const dirs: string[] = [];
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const has = (cmd: string, args = ['--version']) => !spawnSync(cmd, args, { stdio: 'ignore' }).error;

/** The first line a server on host:25 says (the SMTP greeting), or the error. */
function greeting(host: string, port = 25): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port }, () => undefined);
    s.setEncoding('utf8');
    s.once('data', (d: string) => {
      resolve(d.split('\r\n')[0]!);
      s.end('QUIT\r\n');
    });
    s.once('error', (e) => resolve(`error: ${e.message}`));
  });
}

/** Runs the executable as `nobody` (no capabilities of its own) on port 25 of a loopback address of its own. */
async function serveAsNobody(exe: string, host: string): Promise<{ code: number | null; greeting: string; log: string }> {
  const data = path.join(path.dirname(exe), `data-${children.length}`);
  fs.mkdirSync(data);
  fs.chownSync(data, NOBODY, NOBODY);
  const child = spawn(
    'setpriv',
    [
      '--reuid',
      String(NOBODY),
      '--regid',
      String(NOBODY),
      '--clear-groups',
      exe,
      'serve',
      '--host',
      host,
      '--smtp-port',
      '25',
      '--http-port',
      '0',
    ],
    {
      env: { PATH: '/usr/bin:/bin', INBOXD_DATA_DIR: data, INBOXD_NATIVE_CACHE_DIR: path.join(data, '.native-cache') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (log += d));
  for (let i = 0; i < 1200 && child.exitCode === null && !fs.existsSync(path.join(data, 'ports.json')); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  if (child.exitCode !== null) return { code: child.exitCode, greeting: '', log };
  const hello = await greeting(host);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { code: child.exitCode, greeting: hello, log };
}

test('with the capability the image gives it (setcap cap_net_bind_service=+ep), a non-root user serves SMTP on port 25', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root to set a file capability and to switch to nobody');
  if (!has('setcap', ['-h']) || !has('setpriv')) return t.skip('needs setcap (Debian libcap2-bin) and setpriv (util-linux)');
  // Inside a container Docker lets every user bind low ports (the sysctl below is 0): no difference to show there.
  const unprivileged = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
  if (unprivileged <= 25) return t.skip(`any user may bind port 25 here (net.ipv4.ip_unprivileged_port_start=${unprivileged})`);
  const dockerfile = fs.readFileSync(path.join(ROOT, 'packaging/Dockerfile'), 'utf8');
  const setcap = /setcap (cap_net_bind_service=\+ep) \/usr\/local\/bin\/inboxd/.exec(dockerfile)?.[1];
  assert.ok(setcap, 'the Dockerfile sets the capability on the executable');
  const dir = tempDir();
  dirs.push(dir);
  fs.chmodSync(dir, 0o755);
  const exe = path.join(dir, 'inboxd');
  fs.copyFileSync(builtBinary(), exe);
  fs.chmodSync(exe, 0o755);
  // A loopback address of this test's own (all of 127/8 is local): no clash with anything else on port 25.
  const host = `127.0.${(process.pid >> 8) & 255}.${(process.pid & 253) + 1}`;

  const without = await serveAsNobody(exe, host);
  assert.notEqual(without.code, 0, 'without the capability port 25 is refused');
  assert.match(without.log, /25/);

  const r = spawnSync('setcap', [setcap, exe], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const withCap = await serveAsNobody(exe, host);
  assert.match(withCap.greeting, /^220 /, withCap.log);
  assert.equal(withCap.code, 0, withCap.log);
});

test('podman builds packaging/Dockerfile and the container serves /health and SMTP on 25 as a non-root user', async (t) => {
  if (!has('podman')) return t.skip('podman is not installed (Debian: podman)');
  const base = /^ARG BASE_IMAGE=(\S+)$/m.exec(fs.readFileSync(path.join(ROOT, 'packaging/Dockerfile'), 'utf8'))?.[1];
  assert.ok(base, 'the Dockerfile names its base image in ARG BASE_IMAGE');
  const pm = (args: string[], timeout = 600_000) => spawnSync('podman', args, { encoding: 'utf8', timeout });
  if (pm(['image', 'exists', base]).status !== 0) {
    const pull = pm(['pull', '-q', base], 120_000);
    if (pull.status !== 0) return t.skip(`podman cannot get the base image ${base}: ${pull.stderr.trim().split('\n').at(-1)}`);
  }
  const probe = pm(['run', '--rm', base, 'true'], 120_000);
  if (probe.status !== 0) return t.skip(`podman cannot run containers here: ${probe.stderr.trim().split('\n').at(-1)}`);

  const context = tempDir();
  dirs.push(context);
  fs.mkdirSync(path.join(context, 'dist'));
  fs.copyFileSync(builtBinary(), path.join(context, 'dist/inboxd'));
  const tag = `localhost/inboxd-test:${process.pid}`;
  const name = `inboxd-test-${process.pid}`;
  try {
    const build = pm(['build', '-q', '-f', path.join(ROOT, 'packaging/Dockerfile'), '-t', tag, context]);
    assert.equal(build.status, 0, build.stderr);
    assert.equal(pm(['image', 'inspect', '--format', '{{.Config.User}}', tag]).stdout.trim(), 'inboxd:inboxd');
    const run = pm(['run', '-d', '--name', name, '-p', '127.0.0.1::8025', '-p', '127.0.0.1::25', tag], 120_000);
    assert.equal(run.status, 0, run.stderr);
    const port = (p: number) => Number(/:(\d+)\s*$/.exec(pm(['port', name, String(p)]).stdout.trim())?.[1]);
    let ok = false;
    for (let i = 0; i < 120 && !ok; i++) {
      ok = await fetch(`http://127.0.0.1:${port(8025)}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (!ok) await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(ok, `no /health from the container:\n${pm(['logs', name]).stderr}`);
    assert.equal(pm(['healthcheck', 'run', name]).status, 0, 'the image HEALTHCHECK passes');
    assert.match(await greeting('127.0.0.1', port(25)), /^220 /);
    assert.equal(pm(['exec', name, 'id', '-u']).stdout.trim(), '10001');
  } finally {
    pm(['rm', '-f', name]);
    pm(['rmi', '-f', tag]);
  }
});
