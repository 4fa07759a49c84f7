// A real Dovecot IMAP server (Debian dovecot-imapd) for the mailbox provider tests: a temp dir holds its config,
// a passwd-file user database, maildirs, sockets, state and log; it listens on a free loopback port and runs in the
// foreground (-F) so the process we spawn is the master and stop() ends it by its own pid. Dovecot's login processes
// refuse to run as root: as root they drop to dovenull/dovecot and mail is owned by nobody; as a plain user every
// process runs as that user.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../scripts/bench/lib.ts';

export const DOVECOT = process.env.DOVECOT_PATH ?? '/usr/sbin/dovecot';

/** Why the IMAP tests cannot run here, or null. With CI=true a missing Dovecot is a failure, not a skip. */
export function dovecotMissing(): string | null {
  if (fs.existsSync(DOVECOT)) return null;
  const why = `${DOVECOT} not found: apt-get install dovecot-imapd (or set DOVECOT_PATH)`;
  if (process.env.CI === 'true') assert.fail(`the IMAP tests need Dovecot: ${why}`);
  return why;
}

export interface DovecotUser {
  user: string;
  password: string;
  /** Raw RFC 5322 messages written into the user's INBOX before the server starts (fast: no APPEND). */
  seed?: Buffer[];
}

export interface Dovecot {
  host: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
}

function owner(): { uid: number; gid: number; login: string; internal: string } {
  if (process.getuid?.() === 0) return { uid: 65534, gid: 65534, login: 'dovenull', internal: 'dovecot' };
  const me = os.userInfo();
  return { uid: me.uid, gid: me.gid, login: me.username, internal: me.username };
}

function chownTree(p: string, uid: number, gid: number): void {
  fs.chownSync(p, uid, gid);
  if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) chownTree(path.join(p, e), uid, gid);
}

/** Writes messages as maildir files (seen) in the order given: Dovecot numbers their UIDs in that order. */
function writeMaildir(root: string, messages: Buffer[]): void {
  for (const sub of ['cur', 'new', 'tmp']) fs.mkdirSync(path.join(root, sub), { recursive: true });
  const t = 1_700_000_000;
  messages.forEach((m, i) => {
    const name = `${t + i}.M${String(i).padStart(6, '0')}P1.seed,S=${m.length}:2,S`;
    fs.writeFileSync(path.join(root, 'cur', name), m);
  });
}

export async function startDovecot(users: DovecotUser[]): Promise<Dovecot> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-dovecot-'));
  fs.chmodSync(dir, 0o755);
  const o = owner();
  const port = await freePort();
  for (const d of ['run', 'state', 'home']) fs.mkdirSync(path.join(dir, d), { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'passwd'), users.map((u) => `${u.user}:{PLAIN}${u.password}::::::\n`).join(''), { mode: 0o644 });
  for (const u of users) {
    const home = path.join(dir, 'home', u.user);
    fs.mkdirSync(home, { recursive: true });
    writeMaildir(path.join(home, 'Maildir'), u.seed ?? []);
    chownTree(home, o.uid, o.gid);
  }
  const conf = `
protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
info_log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = ${o.login}
default_internal_user = ${o.internal}
mail_location = maildir:~/Maildir
first_valid_uid = 0
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${o.uid} gid=${o.gid} home=${dir}/home/%u
}
namespace inbox {
  inbox = yes
  separator = /
  mailbox Drafts {
    special_use = \\Drafts
  }
  mailbox Sent {
    special_use = \\Sent
  }
}
# No brute-force penalty: a test's deliberate wrong password must not slow (or time out) the logins after it.
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
`;
  fs.writeFileSync(path.join(dir, 'dovecot.conf'), conf, { mode: 0o644 });
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', path.join(dir, 'dovecot.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      const log = fs.existsSync(path.join(dir, 'dovecot.log')) ? fs.readFileSync(path.join(dir, 'dovecot.log'), 'utf8') : '';
      await stop();
      throw new Error(`dovecot exited at start (${child.exitCode}): ${out}${log}`);
    }
    if (await greets(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`dovecot did not greet on 127.0.0.1:${port} within 15 s: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host: '127.0.0.1', port, dir, stop };
}

function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('data', (d) => done(d.toString().startsWith('* OK')));
    s.once('error', () => done(false));
  });
}

/** A small RFC 5322 message for seeding. */
export function rfc822(m: {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
  date?: Date;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
}): Buffer {
  const h = [
    `From: ${m.from}`,
    `To: ${m.to}`,
    `Subject: ${m.subject}`,
    `Date: ${(m.date ?? new Date()).toUTCString()}`,
    `Message-ID: ${m.messageId}`,
    ...(m.inReplyTo ? [`In-Reply-To: ${m.inReplyTo}`] : []),
    ...(m.references?.length ? [`References: ${m.references.join(' ')}`] : []),
    ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
  ];
  return Buffer.from(`${h.join('\r\n')}\r\n\r\n${m.text.replace(/\r?\n/g, '\r\n')}\r\n`);
}
