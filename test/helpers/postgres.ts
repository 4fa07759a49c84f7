// A real PostgreSQL for tests (issue 20): Debian's server binaries, a throw-away cluster made with initdb in a temp
// dir, listening on a free loopback port only (no Unix socket in a shared place). PostgreSQL refuses to run as root,
// so under root the cluster belongs to the `postgres` system user the Debian package creates. Stopped by its own
// process id (the postmaster's), then the dir is removed.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/bench/lib.ts';

export interface PgServer {
  /** postgres://inboxd@127.0.0.1:PORT/inboxd (no password: trust on loopback inside the temp cluster). */
  url: string;
  port: number;
  /** A new empty database on the same server, for a test that needs its own; returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

function binDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

/** Why PostgreSQL cannot be started here, or null when it can. With CI=true a test must fail on this, not skip. */
export function postgresMissing(): string | null {
  return binDir() ? null : 'PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb): apt-get install postgresql';
}

/** `settings`: more `-c name=value` server settings (a bench loads pg_stat_statements this way). */
export async function startPostgres(settings: string[] = []): Promise<PgServer> {
  const bin = binDir();
  if (!bin) throw new Error(postgresMissing() ?? 'no PostgreSQL');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-pg-'));
  const data = path.join(dir, 'data');
  if (asRoot) {
    fs.chmodSync(dir, 0o755);
    execFileSync('chown', ['postgres:postgres', dir]);
  }
  // PostgreSQL binaries run as the cluster's owner (spawned with its uid/gid: no wrapper process in between).
  const owner = asRoot
    ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) }
    : {};
  const run = (file: string, args: string[]) => execFileSync(path.join(bin, file), args, { stdio: 'pipe', ...owner, cwd: dir });
  run('initdb', ['-D', data, '-U', 'inboxd', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  const child: ChildProcess = spawn(
    path.join(bin, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${dir}`,
      '-c',
      'fsync=on',
      '-c',
      'max_connections=200',
      ...settings.flatMap((x) => ['-c', x]),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], ...owner, cwd: dir },
  );
  let log = '';
  child.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const psql = (sql: string, db = 'postgres') =>
    run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'inboxd', '-d', db, '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql]).toString();
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited at start: ${log}`);
    try {
      psql('select 1');
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`postgres did not accept connections within 30 s: ${log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  psql('create database inboxd');
  let stopped = false;
  return {
    port,
    url: `postgres://inboxd@127.0.0.1:${port}/inboxd`,
    async createDatabase(name: string) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`bad database name ${name}`);
      psql(`create database ${name}`);
      return `postgres://inboxd@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      // SIGINT: PostgreSQL's "fast" shutdown (rolls back open transactions, disconnects clients, exits).
      if (child.exitCode === null) {
        child.kill('SIGINT');
        const t = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(t);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
