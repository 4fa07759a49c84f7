// The structured-extraction corpus (test/fixtures/structured, a copy of the shared corpus): the built-in engine
// must match every required field. Results are computed in-process through the same CLI code path, then the
// corpus' own scorer reads them (results mode).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { extractCommand } from '../../src/cli/extract.ts';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/structured');

function sink(): { stream: Writable; text: () => string } {
  let buf = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      buf += String(chunk);
      cb();
    },
  });
  return { stream, text: () => buf };
}

test('built-in engine: 100 % of the required fields of the structured corpus', async () => {
  const out = mkdtempSync(path.join(tmpdir(), 'inboxd-structured-'));
  const flagged: string[] = [];
  try {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.eml'))) {
      const expected = JSON.parse(readFileSync(path.join(dir, f.replace(/\.eml$/, '.json')), 'utf8')) as { preset: string };
      const o = sink();
      const e = sink();
      const code = await extractCommand(['--preset', expected.preset, path.join(dir, f)], o.stream, e.stream);
      assert.equal(code, 0, `${f}: ${e.text()}`);
      const r = JSON.parse(o.text()) as { engine: string; validated: boolean; errors?: unknown; checks: Array<{ ok: boolean }> };
      assert.equal(r.engine, 'builtin');
      assert.equal(r.errors, undefined, `${f}: answer must validate against the preset schema`);
      // `validated` also needs every reader's check to pass (issue 27); a failing check is a real miss of the engine
      if (r.checks.some((c) => !c.ok)) flagged.push(f);
      assert.equal(r.validated, !flagged.includes(f));
      writeFileSync(path.join(out, f.replace(/\.eml$/, '.json')), o.text());
    }
    // no answer fails a reader's check (012's "GST/HST return, Q1 2026" is a service about tax, so an item)
    assert.deepEqual(flagged, [], 'the files whose answer fails a check');
    const r = spawnSync(process.execPath, [path.join(dir, 'score.mjs'), dir, '--results', out], { encoding: 'utf8' });
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    assert.equal(r.status, 0, r.stdout);
    assert.match(last, /^score: required (\d+)\/\1 fields, files (\d+)\/\2$/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
