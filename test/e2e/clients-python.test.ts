// The Python client (clients/python: standard library only, Python ≥ 3.9) and its pytest fixture against the built
// executable: Debian's python3 runs `python3 -m pytest` on clients/python/tests (the daily calls, errors, timeouts,
// the `inbox` fixture and the example that signs up on the rehearsal page), with the plugin loaded as `-p` from the
// source checkout. Missing python3 or pytest skips with the package to install, and fails under CI=true.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ADMIN_KEY, builtBinary, type Running, root, startServer } from '../helpers/console.ts';

const PKG = path.join(root, 'clients/python');
/** Debian's python3 (and its python3-pytest) when it is there, as in CI; else the first python3 on PATH. */
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function pythonMissing(): string | null {
  const r = spawnSync(PYTHON, ['-c', 'import pytest'], { encoding: 'utf8' });
  if (r.status === 0) return null;
  const why = r.error
    ? 'python3 not found: apt-get install -y python3 python3-pytest'
    : 'pytest not found: apt-get install -y python3-pytest';
  if (process.env.CI === 'true') assert.fail(`the Python client tests need ${why}`);
  return why;
}

let server: Running | undefined;
const missing = pythonMissing();

before(async () => {
  if (!missing) server = await startServer(builtBinary());
});
after(async () => {
  await server?.stop();
});

/** Runs python3 with the package importable and no bytecode or cache written into the source tree. */
function python(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, {
      cwd: PKG,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONPATH: PKG, PYTHONDONTWRITEBYTECODE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

test('python3 -m pytest: the client, the inbox fixture and the rehearsal signup example pass', { skip: missing ?? false }, async () => {
  const s = server!;
  const r = await python(['-m', 'pytest', '-p', 'inboxd.pytest_plugin', '-p', 'pytester', '-p', 'no:cacheprovider', '-v', 'tests'], {
    INBOXD_URL: s.base,
    INBOXD_KEY: ADMIN_KEY,
  });
  assert.equal(r.code, 0, r.out);
  for (const name of [
    'tests/test_example.py::test_signs_up_on_the_rehearsal_page',
    'tests/test_client.py::test_daily_calls',
    'tests/test_client.py::test_errors_say_what_to_do',
    'tests/test_client.py::test_timeouts',
    'tests/test_client.py::test_the_fixture_labels_the_inbox_by_the_test_name',
    'tests/test_plugin.py::test_failed_test_inbox[False]',
    'tests/test_plugin.py::test_failed_test_inbox[True]',
  ])
    assert.match(r.out, new RegExp(`${name.replace(/[.[\]]/g, '\\$&')} PASSED`), r.out);
  // the fixture deleted every inbox it made, each labelled by its test's name
  for (const label of ['test_signs_up_on_the_rehearsal_page', 'test_timeouts', 'test_the_fixture_labels_the_inbox_by_the_test_name']) {
    const left = await s.api<{ items: unknown[] }>(`/v1/inboxes?label=${label}`);
    assert.deepEqual(left.items, [], label);
  }
});

test('the package is standard library only and parses as Python 3.9', { skip: missing ?? false }, async () => {
  const check = `
import ast, pathlib, sys
for f in sorted(pathlib.Path("inboxd").glob("*.py")):
    tree = ast.parse(f.read_text(), str(f), feature_version=(3, 9))
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        for n in names:
            top = n.split(".")[0]
            assert top in sys.stdlib_module_names or (f.name == "pytest_plugin.py" and top == "pytest"), f"{f}: imports {n}"
print("ok")
`;
  const r = await python(['-c', check]);
  assert.equal(r.code, 0, r.out);
  assert.equal(r.out.trim(), 'ok');
});

test('pip installs the package (no index, no network) and pytest then loads the fixture by itself', {
  skip: missing ?? false,
}, async (t) => {
  const pip = spawnSync(PYTHON, ['-c', 'import setuptools, pip'], { encoding: 'utf8' });
  if (pip.status !== 0) {
    const why = 'pip or setuptools missing: apt-get install -y python3-pip python3-setuptools';
    if (process.env.CI === 'true') assert.fail(why);
    return t.skip(why);
  }
  const s = server!;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-py-pkg-'));
  try {
    // a copy, so that the build writes nothing into the source tree
    fs.cpSync(PKG, path.join(dir, 'src'), { recursive: true, filter: (f) => !f.includes('__pycache__') });
    const install = await python(
      ['-m', 'pip', 'install', '--no-index', '--no-build-isolation', '--quiet', '--target', path.join(dir, 'site'), path.join(dir, 'src')],
      {
        HOME: dir,
        PIP_DISABLE_PIP_VERSION_CHECK: '1',
      },
    );
    assert.equal(install.code, 0, install.out);
    const r = await python(['-m', 'pytest', '-p', 'no:cacheprovider', '-v', path.join(dir, 'src/tests/test_example.py')], {
      PYTHONPATH: path.join(dir, 'site'),
      INBOXD_URL: s.base,
      INBOXD_KEY: ADMIN_KEY,
    });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /test_signs_up_on_the_rehearsal_page PASSED/);
    assert.match(r.out, /plugins: .*inboxd-client-0\.3\.0/, 'the pytest11 entry point registered the plugin');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
