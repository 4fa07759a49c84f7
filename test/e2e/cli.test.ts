// The command line from source: usage errors, start-up failures and a clean stop, as a person would meet them.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, runCli, spawnServe } from '../helpers/cli.ts';
import { tempDir } from '../helpers/server.ts';

describe('usage', () => {
  test('--version prints the release version of package.json; `version` adds the commit and the API version', async () => {
    const release = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
    assert.match(release, /^\d+\.\d+\.\d+/);
    const r = await runCli(['--version']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.trim(), release);
    const v = await runCli(['version']);
    assert.equal(v.code, 0, v.stderr);
    assert.match(
      v.stdout,
      new RegExp(`^inboxd ${release.replaceAll('.', '\\.')}\ncommit [0-9a-f]{12}\nbuilt - \\(running from source\\)\napi 0\\.2\\.0\n`),
    );
  });

  test('--help lists every flag and its environment variable', async () => {
    const r = await runCli(['--help']);
    assert.equal(r.code, 0);
    for (const s of [
      '--smtp-port',
      '--http-port',
      '--host',
      '--data-dir',
      '--domain',
      '--base-url',
      '--log-level',
      '--log-format',
      'INBOXD_ADMIN_KEY',
      'INBOXD_SMTP_PORT',
      'extract',
    ]) {
      assert.ok(r.stdout.includes(s), `help mentions ${s}`);
    }
  });

  test('unknown flag exits 2 with one line naming it', async () => {
    const r = await runCli(['serve', '--smtp-prot', '25']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown option '--smtp-prot' \(did you mean --smtp-port\?\)/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  test('a port that is not a number says so and what is expected', async () => {
    const r = await runCli(['serve', '--http-port', 'abc']);
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'inboxd: --http-port: "abc" is not a port number (0-65535)\n');
    const n = await runCli(['serve', '--max-message-bytes', '12x']);
    assert.equal(n.stderr, 'inboxd: --max-message-bytes: "12x" is not a whole number (1024-536870912)\n');
    const e = await runCli(['serve', '--http-port=']);
    assert.equal(e.stderr, 'inboxd: --http-port: "" is not a port number (0-65535)\n', 'an empty value is no port 0');
  });

  test('a --trusted-proxies entry that is no address or range exits 2 naming it, from the flag or the environment', async () => {
    const r = await runCli(['serve', '--trusted-proxies', '10.0.0.5,balancer.lan']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^inboxd: --trusted-proxies: .*"balancer\.lan" is not an IP address or CIDR range \(e\.g\. 10\.0\.0\.5/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    const e = await runCli(['serve'], { env: { INBOXD_TRUSTED_PROXIES: '10.0.0.0/33' } });
    assert.equal(e.code, 2);
    assert.match(e.stderr, /INBOXD_TRUSTED_PROXIES/);
  });

  test('bad port exits 2 naming the flag', async () => {
    const r = await runCli(['serve', '--http-port', '70000']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--http-port/);
  });

  test('bad port in the environment names the variable', async () => {
    const r = await runCli(['serve'], { env: { INBOXD_SMTP_PORT: 'abc' } });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /INBOXD_SMTP_PORT/);
  });

  test('unknown command exits 2', async () => {
    const r = await runCli(['frobnicate']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command/);
    const typo = await runCli(['verfiy']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown command 'verfiy' \(did you mean verify\?\)/);
  });
});

describe('start-up failures', () => {
  test('unwritable data dir exits 1 naming --data-dir', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, 'x');
    const r = await runCli(['serve', '--http-port', '0', '--smtp-port', '0', '--data-dir', path.join(file, 'sub')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--data-dir/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a corrupt database file exits 1 and is left untouched', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'inboxd.db');
    const junk = crypto.randomBytes(64 * 1024);
    fs.writeFileSync(db, junk);
    const r = await runCli(['serve', '--http-port', '0', '--smtp-port', '0', '--data-dir', dir]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not a usable inboxd database/);
    assert.ok(fs.readFileSync(db).equals(junk), 'file content unchanged');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['inboxd.db'], 'no -wal/-shm or other files created');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a port already in use exits 1 naming the flag', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    const dir = tempDir();
    const r = await runCli(['serve', '--host', '127.0.0.1', '--http-port', String(port), '--smtp-port', '0', '--data-dir', dir]);
    blocker.close();
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`--http-port ${port}: the port is already in use`));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('serve', () => {
  test('generates an admin key once, writes ports.json, stops on SIGTERM with exit 0', async () => {
    const dir = tempDir();
    const child = spawnServe(['--host', '127.0.0.1', '--http-port', '0', '--smtp-port', '0', '--data-dir', dir], { INBOXD_ADMIN_KEY: '' });
    try {
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const portsFile = path.join(dir, 'ports.json');
      for (let i = 0; i < 200 && !fs.existsSync(portsFile); i++) await new Promise((r) => setTimeout(r, 25));
      const ports = JSON.parse(fs.readFileSync(portsFile, 'utf8')) as { http: number; smtp: number };
      assert.ok(ports.http > 0);
      const keyFile = path.join(dir, 'admin.key');
      const key = fs.readFileSync(keyFile, 'utf8').trim();
      assert.match(key, /^ibx_[0-9A-Za-z]{32}$/);
      assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
      assert.ok(stderr.includes(key), 'printed once on stderr');
      const ok = await fetch(`http://127.0.0.1:${ports.http}/v1/openapi.json`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(ok.status, 200);
      const code = await new Promise<number | null>((resolve) => {
        child.once('exit', (c) => resolve(c));
        child.kill('SIGTERM');
      });
      assert.equal(code, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
