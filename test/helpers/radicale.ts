// A real CalDAV server for tests (issue 18): Debian's Radicale on a free loopback port, with a temp storage folder,
// a config, and real authentication (an htpasswd file with plain entries), so a wrong password is refused by the
// server itself. Stopped by its own pid; the temp dir is removed. Without Radicale the tests skip with one line, and
// fail under CI=true (CI installs it).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DAVClient } from 'tsdav';
import { freePort } from '../../scripts/bench/lib.ts';

const BIN = '/usr/bin/radicale';

export interface Radicale {
  url: string;
  /** The folder holding the collections (`collection-root/<user>/<calendar>/…ics`). */
  storage: string;
  users: Record<string, string>;
  /** Creates a calendar for a user and returns its URL. */
  makeCalendar(user: string, name: string): Promise<string>;
  /** PUTs an iCalendar object; returns the HTTP status. */
  put(user: string, calendarUrl: string, filename: string, ics: string): Promise<number>;
  /** The calendar objects of a calendar (url + data), for reading back what inboxd created. */
  objects(user: string, calendarUrl: string): Promise<Array<{ url: string; data: string }>>;
  stop(): Promise<void>;
}

/** Why Radicale cannot run here, or null. */
export function radicaleMissing(): string | null {
  return fs.existsSync(BIN) ? null : `CalDAV tests need Radicale (${BIN} not found): apt-get install radicale`;
}

/** For `describe(…, { skip })`: the reason to skip, or false; under CI=true a missing Radicale throws instead. */
export function radicaleSkip(): string | false {
  const why = radicaleMissing();
  if (!why) return false;
  if (process.env.CI === 'true') throw new Error(why);
  console.log(`# skipped: ${why}`);
  return why;
}

export async function startRadicale(users: Record<string, string> = { alice: 'wonderland' }): Promise<Radicale> {
  const why = radicaleMissing();
  if (why) throw new Error(why);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-radicale-'));
  const storage = path.join(dir, 'collections');
  const htpasswd = path.join(dir, 'users');
  fs.writeFileSync(
    htpasswd,
    `${Object.entries(users)
      .map(([u, p]) => `${u}:${p}`)
      .join('\n')}\n`,
    { mode: 0o600 },
  );
  const port = await freePort();
  const config = path.join(dir, 'config');
  fs.writeFileSync(
    config,
    [
      '[server]',
      `hosts = 127.0.0.1:${port}`,
      '[auth]',
      'type = htpasswd',
      `htpasswd_filename = ${htpasswd}`,
      'htpasswd_encryption = plain',
      'delay = 0',
      '[rights]',
      'type = owner_only',
      '[storage]',
      `filesystem_folder = ${storage}`,
      '[logging]',
      'level = error',
      '',
    ].join('\n'),
  );
  const stderr: string[] = [];
  const child: ChildProcess = spawn(BIN, ['--config', config], { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  child.stderr?.on('data', (b: Buffer) => stderr.push(b.toString()));
  const url = `http://127.0.0.1:${port}/`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`radicale exited: ${stderr.join('').slice(0, 2000)}`);
    const ok = await fetch(url, { method: 'OPTIONS' }).then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (i > 200) {
      child.kill('SIGKILL');
      throw new Error(`radicale did not start on ${url}: ${stderr.join('').slice(0, 2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const client = async (user: string) => {
    const c = new DAVClient({
      serverUrl: url,
      credentials: { username: user, password: users[user] ?? '' },
      authMethod: 'Basic',
      defaultAccountType: 'caldav',
    });
    await c.login();
    return c;
  };
  const auth = (user: string) => `Basic ${Buffer.from(`${user}:${users[user] ?? ''}`).toString('base64')}`;
  return {
    url,
    storage,
    users,
    async makeCalendar(user, name) {
      const calUrl = `${url}${user}/${name}/`;
      const res = await fetch(calUrl, {
        method: 'MKCOL',
        headers: { authorization: auth(user), 'content-type': 'application/xml' },
        body: `<?xml version="1.0"?><D:mkcol xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop><D:resourcetype><D:collection/><C:calendar/></D:resourcetype><D:displayname>${name}</D:displayname></D:prop></D:set></D:mkcol>`,
      });
      if (res.status !== 201) throw new Error(`MKCOL ${calUrl} answered ${res.status}`);
      return calUrl;
    },
    async put(user, calendarUrl, filename, ics) {
      const res = await fetch(new URL(filename, calendarUrl), {
        method: 'PUT',
        headers: { authorization: auth(user), 'content-type': 'text/calendar; charset=utf-8' },
        body: ics,
      });
      await res.arrayBuffer();
      return res.status;
    },
    async objects(user, calendarUrl) {
      const c = await client(user);
      const cal = (await c.fetchCalendars()).find((x) => x.url === calendarUrl);
      if (!cal) throw new Error(`no calendar ${calendarUrl}`);
      return (await c.fetchCalendarObjects({ calendar: cal })).map((o) => ({ url: o.url, data: String(o.data ?? '') }));
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(t);
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
