// SIGKILL while 200 sends to a slow relay are pending: after the restart every accepted send is delivered exactly
// once. Deterministic: the test relay holds its answers to DATA, so the kill lands while none of the messages in
// flight has been acknowledged (the real-life window — relay acknowledged, process killed before recording — is the
// README's at-least-once statement).
// not @cluster: SIGKILLs one child process on SQLite and restarts it
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { spawnServe } from '../../helpers/cli.ts';
import { startRelay } from '../../helpers/relay.ts';
import { tempDir } from '../../helpers/server.ts';

const KEY = 'ibx_OutboundCrashKey0000000000000000';
const SENDS = 200;
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

async function start(dir: string, relayUrl: string): Promise<{ child: ChildProcess; http: number }> {
  fs.rmSync(path.join(dir, 'ports.json'), { force: true });
  const child = spawnServe(
    [
      '--host',
      '127.0.0.1',
      '--http-port',
      '0',
      '--smtp-port',
      '0',
      '--data-dir',
      dir,
      '--log-level',
      'warn',
      '--smtp-relay',
      relayUrl,
      '--smtp-relay-tls-insecure',
      '--max-sends-per-minute',
      '0',
    ],
    { INBOXD_ADMIN_KEY: KEY },
  );
  children.push(child);
  child.stdout!.resume();
  child.stderr!.resume();
  const file = path.join(dir, 'ports.json');
  for (let i = 0; i < 600 && !fs.existsSync(file); i++) await new Promise((r) => setTimeout(r, 25));
  return { child, http: (JSON.parse(fs.readFileSync(file, 'utf8')) as { http: number }).http };
}

const api = (port: number, p: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}${p}`, {
    ...init,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

test('SIGKILL with 200 sends pending: each is delivered exactly once after the restart', async () => {
  const dir = tempDir();
  const relay = await startRelay();
  relay.hold = true;
  try {
    let srv = await start(dir, relay.url);
    const inbox = (await (await api(srv.http, '/v1/inboxes', { method: 'POST', body: '{}' })).json()) as { inboxId: string };
    const accepted: Array<{ messageId: string; rfcMessageId: string }> = [];
    for (let i = 0; i < SENDS; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, async (_, j) => {
          const r = await api(srv.http, `/v1/inboxes/${inbox.inboxId}/send`, {
            method: 'POST',
            body: JSON.stringify({ to: `r${i + j}@example.com`, subject: `crash ${i + j}`, text: 'x' }),
          });
          assert.equal(r.status, 202, await r.clone().text());
          return (await r.json()) as { messageId: string; rfcMessageId: string };
        }),
      );
      accepted.push(...batch);
    }
    // Some are at the relay, waiting for its answer; none has been acknowledged.
    await relay.whenHeld(1);
    assert.equal(relay.received.length, 0);
    srv.child.kill('SIGKILL');
    await new Promise((r) => srv.child.once('exit', r));
    relay.discard();
    relay.hold = false;

    srv = await start(dir, relay.url);
    await relay.whenReceived(SENDS);
    // Give a duplicate the chance to show up before counting.
    await new Promise((r) => setTimeout(r, 500));
    const ids = relay.received.map((m) => /^Message-ID:\s*(<[^>]+>)/im.exec(m.raw.toString())?.[1]);
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id!, (counts.get(id!) ?? 0) + 1);
    assert.equal(counts.size, SENDS);
    for (const a of accepted) assert.equal(counts.get(a.rfcMessageId), 1, `${a.rfcMessageId} delivered exactly once`);
    // Their outbox rows end as sent (recorded just after each acknowledgement).
    for (const a of accepted) {
      for (;;) {
        const m = (await (await api(srv.http, `/v1/inboxes/${inbox.inboxId}/messages/${a.messageId}`)).json()) as {
          deliveries: Array<{ state: string }>;
        };
        if (m.deliveries[0]!.state === 'sent') break;
        assert.equal(m.deliveries[0]!.state, 'queued');
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    srv.child.kill('SIGTERM');
    await new Promise((r) => srv.child.once('exit', r));
  } finally {
    await relay.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
