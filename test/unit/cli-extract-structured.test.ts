// `inboxd extract --preset NAME FILE.eml` / `--schema FILE.json FILE.eml`: the route's answer offline, and usage errors.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { extractCommand } from '../../src/cli/extract.ts';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/structured');
const invoice = path.join(dir, '001-northwind-invoice-previous-balance.eml');

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
async function run(args: string[]) {
  const out = sink();
  const err = sink();
  const code = await extractCommand(args, out.stream, err.stream);
  return { code, out: out.text(), err: err.text() };
}

test('--preset prints {data, engine, model, validated, fallbacks}', async () => {
  for (const args of [
    ['--preset', 'invoice', invoice],
    [invoice, '--preset=invoice'],
  ]) {
    const r = await run(args);
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out) as {
      data: { invoiceNumber: string };
      engine: string;
      model: null;
      validated: boolean;
      fallbacks: unknown[];
    };
    assert.equal(j.data.invoiceNumber, 'NW-2026-0318');
    assert.equal(j.engine, 'builtin');
    assert.equal(j.model, null);
    assert.equal(j.validated, true);
    assert.deepEqual(j.fallbacks, []);
  }
});

test('--schema fills a custom schema; a refused schema is a usage error naming the problem', async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'inboxd-cli-schema-'));
  try {
    const good = path.join(tmp, 'good.json');
    writeFileSync(
      good,
      JSON.stringify({ type: 'object', properties: { total: { type: ['number', 'null'] }, colour: { type: ['string', 'null'] } } }),
    );
    const r = await run(['--schema', good, invoice]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out).data, { total: 3450.3, colour: null });
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, JSON.stringify({ $ref: 'https://evil.example/x.json' }));
    const b = await run(['--schema', bad, invoice]);
    assert.equal(b.code, 2);
    assert.match(b.err, /only local refs/);
    const notJson = path.join(tmp, 'x.json');
    writeFileSync(notJson, 'nope');
    assert.equal((await run(['--schema', notJson, invoice])).code, 2);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('usage errors: unknown preset, preset with --service or --schema, missing file', async () => {
  const u = await run(['--preset', 'payslip', invoice]);
  assert.equal(u.code, 2);
  assert.match(u.err, /unknown preset 'payslip'; valid: 2fa, invoice, receipt/);
  assert.equal((await run(['--preset', 'invoice', '--service', 'github', invoice])).code, 2);
  assert.equal((await run(['--preset', 'invoice', '--schema', 'x.json', invoice])).code, 2);
  assert.equal((await run(['--preset'])).code, 2);
  assert.equal((await run(['--preset', 'invoice', '/nonexistent/file.eml'])).code, 1);
});

test('--schema runs the same checks as the route: a $ref cycle is a usage error naming its path, a ReDoS pattern is stopped', async () => {
  const tmp = mkdtempSync(path.join(tmpdir(), 'inboxd-cli-schema-'));
  const budget = process.env.INBOXD_SCHEMA_BUDGET_MS;
  try {
    const cyclic = path.join(tmp, 'cyclic.json');
    writeFileSync(cyclic, JSON.stringify({ $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }));
    const c = await run(['--schema', cyclic, invoice]);
    assert.equal(c.code, 2);
    assert.match(c.err, /\$ref cycle #\/\$defs\/a → #\/\$defs\/b → #\/\$defs\/a.*schema\/\$defs\/b\/\$ref/);
    const evil = path.join(tmp, 'evil.json');
    writeFileSync(evil, JSON.stringify({ type: 'object', properties: { subject: { type: ['string', 'null'], pattern: '^(a+)+$' } } }));
    const subjectOf = path.join(tmp, 'a.eml');
    writeFileSync(subjectOf, `From: a@example.com\r\nSubject: ${'a'.repeat(40)}!\r\n\r\nhello\r\n`);
    process.env.INBOXD_SCHEMA_BUDGET_MS = '200';
    const r = await run(['--schema', evil, subjectOf]);
    assert.equal(r.code, 1, r.out);
    assert.match(r.err, /took more than 200 ms.*schema\/properties\/subject\/pattern/);
  } finally {
    if (budget === undefined) delete process.env.INBOXD_SCHEMA_BUDGET_MS;
    else process.env.INBOXD_SCHEMA_BUDGET_MS = budget;
    rmSync(tmp, { recursive: true, force: true });
  }
});
