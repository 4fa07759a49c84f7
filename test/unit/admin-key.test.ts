// INBOXD_ADMIN_KEY must not be guessable: a short key or one with odd characters stops the start with exit 2.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { loadConfig, UsageError } from '../../src/config.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/server.ts';

describe('INBOXD_ADMIN_KEY strength', () => {
  for (const bad of ['x', 'letmein', 'a'.repeat(23), 'ibx_short', 'correct horse battery staple 1', 'k'.repeat(257)]) {
    it(`refuses ${JSON.stringify(bad.slice(0, 30))}`, () => {
      assert.throws(
        () => loadConfig([], { INBOXD_ADMIN_KEY: bad }),
        (e: unknown) =>
          e instanceof UsageError && /^INBOXD_ADMIN_KEY must be/.test(e.message) && (bad.length < 8 || !e.message.includes(bad)),
      );
    });
  }

  for (const good of ['ibx_TestAdminKey0000000000000000000', 'a'.repeat(24), 'Zm9vYmFyYmF6cXV4LXF1dXgtMTIzNDU2Nzg5MA==']) {
    it(`accepts ${good.slice(0, 12)}… (${good.length} chars)`, () => {
      assert.equal(loadConfig([], { INBOXD_ADMIN_KEY: good }).adminKey, good);
    });
  }

  it('the CLI exits 2 with one line naming INBOXD_ADMIN_KEY, before touching the data dir', async () => {
    const dir = tempDir();
    try {
      const r = await runCli(['serve', '--http-port', '0', '--smtp-port', '0', '--data-dir', dir], { env: { INBOXD_ADMIN_KEY: 'x' } });
      assert.equal(r.code, 2);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /INBOXD_ADMIN_KEY/);
      assert.deepEqual(fs.readdirSync(dir), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
