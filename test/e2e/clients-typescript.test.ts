// The TypeScript client (clients/typescript, @inboxd/client) against the built executable: the daily calls, errors
// that say what to do, timeouts and AbortSignal cancellation, the Playwright fixture's setup and teardown, the example
// Playwright spec through playwright-core and Debian's chromium, and the package built with tsc and imported by name.
//
// The @playwright/test runner is not a dependency of inboxd: the example spec runs under a stand-in of the few
// @playwright/test parts it uses (test/helpers/playwright-standin.ts), which calls the fixture exactly as Playwright
// does: `fixture({}, use, testInfo)`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { Inbox, InboxdClient, InboxdError } from '../../clients/typescript/src/index.ts';
import { inboxFixture, labelFor } from '../../clients/typescript/src/playwright.ts';
import { GENERATED } from '../../scripts/clients/generate-types.ts';
import { generateTypes, type OpenApiDocument } from '../../scripts/clients/openapi-to-ts.ts';
import { ADMIN_KEY, builtBinary, chromiumMissing, launchChromium, type Running, root, startServer } from '../helpers/console.ts';
import { registerStandin, runStandin } from '../helpers/playwright-standin.ts';

let server: Running;
let client: InboxdClient;

before(async () => {
  server = await startServer(builtBinary());
  client = new InboxdClient({ url: server.base, key: ADMIN_KEY });
});
after(async () => {
  await server?.stop();
});

/** Rejects with what `p` rejected with, or fails when it resolved. */
async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  assert.fail('expected the call to fail');
}

describe('@inboxd/client: the daily calls', () => {
  test('createInbox, simulate, waitForMessage, verify (code, link, action), send, search, deleteInbox', async () => {
    const inbox = await client.createInbox({ label: 'clients-ts', ttlMinutes: 5 });
    assert.ok(inbox instanceof Inbox);
    assert.match(inbox.id, /^inb_/);
    assert.match(inbox.address, /@/);
    assert.equal(inbox.info.label, 'clients-ts');

    const otp = await inbox.simulate({ scenario: 'otp', service: 'github' });
    assert.ok(otp.expected.otp);
    const message = await inbox.waitForMessage({ timeoutSeconds: 10 });
    assert.equal(message.messageId, otp.messageId);
    assert.equal(message.verification.otp, otp.expected.otp);

    const code = await inbox.verify({ timeoutSeconds: 10 });
    assert.equal(code.status, 'verified');
    assert.equal(code.code, otp.expected.otp);
    assert.equal(code.action.type, 'otp');
    assert.match(code.action.instruction, new RegExp(otp.expected.otp!));

    // verify hands a message out once: the next call waits for newer mail, here a magic link
    const pending = inbox.verify({ timeoutSeconds: 10 });
    const magic = await inbox.simulate({ scenario: 'magic_link' });
    const link = await pending;
    assert.equal(link.code, null);
    assert.equal(link.link, magic.expected.primaryLink);
    assert.equal(link.action.type, 'link');

    const other = await client.createInbox({ label: 'clients-ts', ttlMinutes: 5 });
    const sent = await inbox.send({ to: other.address, subject: 'Quarterly zebra report', text: 'Shipped today.' });
    assert.equal(sent.recipients[0]?.state, 'sent');
    const got = await client.waitForMessage(other.id, { subjectContains: 'zebra', timeoutSeconds: 10 });
    assert.equal(got.subject, 'Quarterly zebra report');

    const hits = await client.search('subject:zebra', { label: 'clients-ts' });
    assert.ok(hits.items.some((h) => h.inboxId === other.id && h.inboxAddress === other.address));
    assert.ok((await other.search('zebra')).items.length >= 1);

    assert.equal(await inbox.delete(), true);
    assert.equal(await client.deleteInbox(other.id), true);
    const gone = await rejection(client.getInbox(inbox.id));
    assert.ok(gone instanceof InboxdError);
    assert.equal(gone.status, 404);
    assert.equal(gone.code, 'not_found');
    assert.match(gone.message, /GET \/v1\/inboxes\/inb_\S+ → 404 not_found: .+\(the inbox or message does not exist/);
    assert.equal(await client.deleteInbox(inbox.id, { missingOk: true }), false);
    assert.equal((await rejection(client.deleteInbox(inbox.id))).status, 404);
  });

  test('call(): any operation by its operationId', async () => {
    const health = await client.call('system.health');
    assert.equal(health.status, 'ok');
    const created = await client.call('inboxes.create', { body: { label: 'clients-ts-call' } });
    const listed = await client.call('inboxes.list', { query: { label: 'clients-ts-call' } });
    assert.deepEqual(
      listed.items.map((i) => i.inboxId),
      [created.inboxId],
    );
    await client.call('inboxes.delete', { path: { id: created.inboxId } });
  });
});

describe('@inboxd/client: errors say what happened and what to do', () => {
  test('a wrong key: 401 with the problem detail and where the key comes from', async () => {
    const bad = new InboxdClient({ url: server.base, key: 'ibx_NotAKey000000000000000000000000' });
    const err = await rejection(bad.createInbox());
    assert.ok(err instanceof InboxdError);
    assert.equal(err.status, 401);
    assert.equal(err.code, 'unauthorized');
    assert.equal(err.problem?.status, 401);
    assert.match(err.message, /^POST \/v1\/inboxes → 401 unauthorized: .+INBOXD_KEY/);
  });

  test('invalid input: 400 naming the field', async () => {
    const err = await rejection(client.createInbox({ ttlMinutes: 0 }));
    assert.equal(err.status, 400);
    assert.equal(err.code, 'validation_failed');
    assert.match(err.detail, /ttlMinutes/);
  });

  test('no server there: code network, naming the URL', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as net.AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const err = await rejection(new InboxdClient({ url: `http://127.0.0.1:${port}`, key: ADMIN_KEY }).createInbox());
    assert.equal(err.code, 'network');
    assert.equal(err.status, 0);
    assert.match(err.message, new RegExp(`could not reach inboxd at http://127.0.0.1:${port}.+set INBOXD_URL`));
  });

  test('no URL or key: a TypeError saying which environment variable to set', () => {
    const saved = { url: process.env.INBOXD_URL, key: process.env.INBOXD_KEY };
    delete process.env.INBOXD_URL;
    delete process.env.INBOXD_KEY;
    try {
      assert.throws(() => new InboxdClient(), /INBOXD_URL/);
      assert.throws(() => new InboxdClient({ url: server.base }), /INBOXD_KEY/);
    } finally {
      if (saved.url !== undefined) process.env.INBOXD_URL = saved.url;
      if (saved.key !== undefined) process.env.INBOXD_KEY = saved.key;
    }
  });
});

describe('@inboxd/client: timeouts and cancellation', () => {
  test('the server gives up: 408 wait_timeout; verify: verify_timeout naming the address', async () => {
    const inbox = await client.createInbox({ ttlMinutes: 5 });
    const wait = await rejection(inbox.waitForMessage({ timeoutSeconds: 1 }));
    assert.equal(wait.status, 408);
    assert.equal(wait.code, 'wait_timeout');
    assert.match(wait.message, /raise timeoutSeconds/);
    const verify = await rejection(inbox.verify({ timeoutSeconds: 1 }));
    assert.equal(verify.code, 'verify_timeout');
    assert.ok(verify.message.includes(inbox.address));
    await inbox.delete();
  });

  test('the client gives up: timeoutMs ends a call the server would hold for 30 s', async () => {
    const inbox = await client.createInbox({ ttlMinutes: 5 });
    const t0 = Date.now();
    const err = await rejection(inbox.waitForMessage({ timeoutSeconds: 30 }, { timeoutMs: 300 }));
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    assert.equal(err.code, 'client_timeout');
    assert.match(err.message, /no answer from .+ within 300 ms/);
    await inbox.delete();
  });

  test('an AbortSignal cancels a wait at once, with the signal’s reason', async () => {
    const inbox = await client.createInbox({ ttlMinutes: 5 });
    const ac = new AbortController();
    const t0 = Date.now();
    setTimeout(() => ac.abort(), 200);
    const err = await rejection(inbox.waitForMessage({ timeoutSeconds: 30 }, { signal: ac.signal }));
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    assert.equal(err.name, 'AbortError');
    assert.ok(!(err instanceof InboxdError));
    const reason = new Error('test over');
    const already = await rejection(inbox.verify({ timeoutSeconds: 30 }, { signal: AbortSignal.abort(reason) }));
    assert.equal(already, reason);
    await inbox.delete();
  });
});

describe('generated types', () => {
  test('the served /v1/openapi.json regenerates the committed clients/typescript/src/openapi.gen.ts byte for byte', async () => {
    const served = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as OpenApiDocument;
    assert.ok(generateTypes(served) === fs.readFileSync(GENERATED, 'utf8'), 'stale: run npm run clients:types and commit the file');
    const cli = spawnSync(process.execPath, [path.join(root, 'scripts/clients/generate-types.ts'), '--from', server.base, '--check'], {
      encoding: 'utf8',
    });
    assert.equal(cli.status, 0, cli.stderr);
  });
});

describe('Playwright', () => {
  test('the fixture: an inbox labelled by the test title before the test, deleted after it (also when it fails)', async () => {
    const fixture = inboxFixture({ url: server.base, key: ADMIN_KEY, create: { ttlMinutes: 5 } });
    let seen: Inbox | undefined;
    await fixture.inbox(
      {},
      async (inbox) => {
        seen = inbox;
        const live = await client.getInbox(inbox.id);
        assert.equal(live.info.label, 'signs up > with the code');
      },
      { title: 'signs up > with the code' },
    );
    assert.equal((await rejection(client.getInbox(seen!.id))).status, 404);

    const failing = rejection(
      fixture.inbox(
        {},
        async (inbox) => {
          seen = inbox;
          throw new Error('the test failed');
        },
        { title: 'fails' },
      ),
    );
    assert.equal((await failing).message, 'the test failed');
    assert.equal((await rejection(client.getInbox(seen!.id))).status, 404);

    // keepOnFailure: a failed test's inbox stays for a look (Playwright sets status before the teardown)
    const keep = inboxFixture({ url: server.base, key: ADMIN_KEY, keepOnFailure: true });
    const info: { title: string; status?: string; expectedStatus: string } = { title: 'kept', expectedStatus: 'passed' };
    await keep.inbox(
      {},
      async (inbox) => {
        seen = inbox;
        info.status = 'failed';
      },
      info,
    );
    assert.equal((await client.getInbox(seen!.id)).info.label, 'kept');
    await client.deleteInbox(seen!.id);

    assert.equal(labelFor('ünïcode\ttitle'), '?n?code?title');
    assert.equal(labelFor('x'.repeat(300), 'ci-1/').length, 200);
  });

  test('the example spec signs up on the rehearsal page and types the code (playwright-core, chromium)', async (t) => {
    const missing = chromiumMissing();
    if (missing) return t.skip(missing);
    registerStandin(root);
    process.env.INBOXD_URL = server.base;
    process.env.INBOXD_KEY = ADMIN_KEY;
    const spec = path.join(root, 'clients/typescript/examples/rehearsal-signup.spec.ts');
    let browser: Browser | undefined;
    try {
      await import(spec);
      browser = await launchChromium();
      const results = await runStandin(browser, spec);
      assert.equal(results.length, 1);
      const [r] = results;
      assert.equal(r!.status, 'passed', String((r!.error as Error)?.stack ?? r!.error));
      const inbox = r!.fixtures.inbox as Inbox;
      assert.equal(inbox.info.label, 'signs up on the rehearsal page with the emailed code');
      assert.equal((await rejection(client.getInbox(inbox.id))).status, 404, 'the fixture deleted the inbox');
    } finally {
      await browser?.close();
      delete process.env.INBOXD_URL;
      delete process.env.INBOXD_KEY;
    }
  });
});

describe('the package', () => {
  test('builds with tsc, has no runtime dependencies, and imports by name from node_modules', async () => {
    const pkgDir = path.join(root, 'clients/typescript');
    const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    assert.equal(pkg.name, '@inboxd/client');
    assert.equal(pkg.version, '0.3.0');
    assert.equal(pkg.dependencies, undefined);
    assert.equal(pkg.peerDependencies, undefined);

    const project = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-client-pkg-'));
    try {
      const dest = path.join(project, 'node_modules/@inboxd/client');
      const tsc = spawnSync(
        path.join(root, 'node_modules/.bin/tsc'),
        ['-p', path.join(pkgDir, 'tsconfig.json'), '--outDir', path.join(dest, 'dist')],
        {
          encoding: 'utf8',
        },
      );
      assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
      fs.copyFileSync(path.join(pkgDir, 'package.json'), path.join(dest, 'package.json'));
      for (const f of fs.readdirSync(path.join(dest, 'dist')).filter((f) => f.endsWith('.js'))) {
        const imports = [...fs.readFileSync(path.join(dest, 'dist', f), 'utf8').matchAll(/\bfrom\s+'([^']+)'|import\(\s*'([^']+)'/g)];
        for (const m of imports) assert.match(m[1] ?? m[2]!, /^\.\/[\w.-]+\.js$/, `${f} imports only its own files`);
      }
      for (const d of ['index.d.ts', 'playwright.d.ts']) assert.ok(fs.existsSync(path.join(dest, 'dist', d)), d);
      // the example spec against the client's types (@playwright/test: the stand-in's types, see examples/tsconfig.json)
      const example = spawnSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', path.join(pkgDir, 'examples/tsconfig.json')], {
        encoding: 'utf8',
      });
      assert.equal(example.status, 0, example.stdout + example.stderr);
      // a TypeScript project finds the declarations through the package's exports
      fs.writeFileSync(path.join(project, 'package.json'), '{"type":"module"}');
      fs.writeFileSync(
        path.join(project, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { module: 'nodenext', strict: true, noEmit: true, lib: ['es2024', 'dom'], types: [] },
          files: ['use.ts'],
        }),
      );
      fs.writeFileSync(
        path.join(project, 'use.ts'),
        `import { InboxdClient, type Verification } from '@inboxd/client';
        import { inboxFixture, type InboxFixtures } from '@inboxd/client/playwright';
        const c = new InboxdClient({ url: 'http://localhost:8025', key: 'ibx_x' });
        export const v: Promise<Verification> = c.verify('inb_1', { timeoutSeconds: 5 });
        export const a: InboxFixtures['inbox']['address'] = 'a@b.test';
        export const f = inboxFixture({ labelPrefix: 'ci-' });
        // @ts-expect-error: not an operation of the API (proves the declarations were found, not any)
        c.call('no.such.operation');
        `,
      );
      const consumer = spawnSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', project], { encoding: 'utf8' });
      assert.equal(consumer.status, 0, consumer.stdout + consumer.stderr);
      const script = `import { InboxdClient, VERSION } from '@inboxd/client';
        import { inboxFixture } from '@inboxd/client/playwright';
        const c = new InboxdClient();
        const h = await c.call('system.health');
        console.log(JSON.stringify({ VERSION, status: h.status, fixture: typeof inboxFixture().inbox }));`;
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: project,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, INBOXD_URL: server.base, INBOXD_KEY: ADMIN_KEY },
        timeout: 30_000,
      });
      assert.equal(run.status, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { VERSION: '0.3.0', status: 'ok', fixture: 'function' });
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });
});
