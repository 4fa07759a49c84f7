// The world corpus (test/fixtures/world, README there): labelled mails the built-in engine was not written against,
// in a tune part and a held-out part. This checks that the corpus itself is sound (every expected answer validates
// against its preset schema and follows the labelling conventions, every mail parses, the stated coverage holds)
// and that the engine's figures, measured by scripts/corpus/score-world.ts with the shared scorer's rules, do not
// fall below the floors below. The floors are measured figures: raise them when the engine improves.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PARTS, type Part, PRESET_FIELDS, presetValidator, readExpected, scorePart, WORLD_DIR } from '../../scripts/corpus/score-world.ts';
import { validate } from '../../src/ai/schema.ts';
import { parseMessage } from '../../src/mail/parse.ts';

/** Matched fields per part: [required ok, optional ok] per preset field, plus files passed. Measured after issue 27's tuning
 * (before it: tune 15/64 files, 226/326 required; held-out 15/46, 160/228). */
const FLOORS: Record<Part, { files: number; fields: Record<string, [number, number]> }> = {
  tune: {
    files: 64,
    fields: {
      'invoice.invoiceNumber': [33, 0],
      'invoice.vendor': [33, 0],
      'invoice.issueDate': [33, 0],
      'invoice.dueDate': [33, 0],
      'invoice.currency': [33, 0],
      'invoice.total': [33, 0],
      'invoice.subtotal': [0, 33],
      'invoice.tax': [0, 32],
      'invoice.lineItems': [0, 26],
      'invoice.paymentUrl': [0, 33],
      'receipt.merchant': [24, 0],
      'receipt.date': [24, 0],
      'receipt.currency': [24, 0],
      'receipt.total': [24, 0],
      'receipt.orderNumber': [24, 0],
      'receipt.subtotal': [0, 24],
      'receipt.tax': [0, 24],
      'receipt.items': [0, 20],
      'receipt.paymentMethod': [0, 24],
      '2fa.code': [7, 0],
      '2fa.link': [1, 6],
      '2fa.service': [0, 7],
      '2fa.expiresInMinutes': [0, 7],
    },
  },
  heldout: {
    files: 37,
    fields: {
      'invoice.invoiceNumber': [17, 0],
      'invoice.vendor': [20, 0],
      'invoice.issueDate': [20, 0],
      'invoice.dueDate': [17, 0],
      'invoice.currency': [20, 0],
      'invoice.total': [17, 0],
      'invoice.subtotal': [0, 17],
      'invoice.tax': [0, 18],
      'invoice.lineItems': [0, 14],
      'invoice.paymentUrl': [0, 20],
      'receipt.merchant': [20, 0],
      'receipt.date': [19, 0],
      'receipt.currency': [20, 0],
      'receipt.total': [19, 0],
      'receipt.orderNumber': [19, 0],
      'receipt.subtotal': [0, 16],
      'receipt.tax': [0, 18],
      'receipt.items': [0, 9],
      'receipt.paymentMethod': [0, 13],
      '2fa.code': [5, 0],
      '2fa.link': [2, 4],
      '2fa.service': [0, 5],
      '2fa.expiresInMinutes': [0, 3],
    },
  },
};

const REQUIRED: Record<string, string[]> = {
  invoice: ['invoiceNumber', 'vendor', 'issueDate', 'dueDate', 'currency', 'total'],
  receipt: ['merchant', 'date', 'currency', 'total', 'orderNumber'],
};

test('world corpus: every expected answer validates against its preset schema and follows the corpus conventions', () => {
  for (const part of PARTS) {
    for (const { eml, exp } of readExpected(path.join(WORLD_DIR, part))) {
      const where = `${part}/${eml}`;
      assert.equal(exp.file, eml, `${where}: "file" names the .eml`);
      assert.ok(Object.hasOwn(PRESET_FIELDS, exp.preset), `${where}: unknown preset ${exp.preset}`);
      const v = validate(presetValidator(exp.preset), exp.data);
      assert.ok(v.ok, `${where}: data does not validate: ${JSON.stringify(v.errors)}`);
      assert.deepEqual(Object.keys(exp.data), PRESET_FIELDS[exp.preset], `${where}: every preset field, in order`);
      const nulls = PRESET_FIELDS[exp.preset].filter((f) => exp.data[f] === null);
      assert.deepEqual(exp.nullFields, nulls, `${where}: nullFields lists exactly the null fields`);
      const req = exp.preset === '2fa' ? (exp.data.code === null ? ['code', 'link'] : ['code']) : REQUIRED[exp.preset];
      assert.deepEqual(exp.requiredFields, req, `${where}: requiredFields as in the shared corpus rules`);
      assert.match(exp.language, /^[a-z]{2}$/, `${where}: language`);
    }
  }
});

test('world corpus: every mail parses and has the headers and a body', async () => {
  for (const part of PARTS) {
    for (const { eml } of readExpected(path.join(WORLD_DIR, part))) {
      const msg = await parseMessage(readFileSync(path.join(WORLD_DIR, part, eml)));
      const where = `${part}/${eml}`;
      assert.ok(msg.from?.address, `${where}: From`);
      assert.ok(msg.date, `${where}: Date`);
      assert.ok(msg.messageId, `${where}: Message-ID`);
      assert.ok(msg.subject, `${where}: Subject`);
      assert.ok((msg.text ?? '').trim() || (msg.html ?? '').trim(), `${where}: a text or HTML body`);
    }
  }
});

test('world corpus: size, languages and classes as the README states; the parts do not share a file', () => {
  const byPart = Object.fromEntries(PARTS.map((p) => [p, readExpected(path.join(WORLD_DIR, p))]));
  const all = PARTS.flatMap((p) => byPart[p]!);
  assert.ok(all.length >= 90, `at least 90 mails (${all.length})`);
  assert.ok(byPart.heldout!.length >= 30, 'at least 30 held-out mails');
  assert.ok(new Set(all.map((c) => c.exp.language)).size >= 14, 'at least 14 languages');
  const names = all.map((c) => c.eml.replace(/^\d+-/, ''));
  assert.equal(new Set(names).size, names.length, 'no mail is in both parts');
  const classes = (p: Part) =>
    new Set(byPart[p]!.flatMap((c) => ((c.exp as unknown as { classes?: string[] }).classes ?? []).map((k) => k.replace(/-.*$/, ''))));
  const tune = classes('tune');
  const heldout = classes('heldout');
  for (const k of [
    'jsonld',
    'labels',
    'vendor',
    'fapiao',
    'forward',
    'order',
    'per',
    'digits',
    'grouping',
    'calendar',
    'credit',
    'shared',
    'null',
    '2fa',
  ]) {
    assert.ok(tune.has(k), `class ${k}* in tune`);
    assert.ok(heldout.has(k), `class ${k}* in heldout`);
  }
});

for (const part of PARTS) {
  test(`world corpus (${part}): the built-in engine stays at or above the measured floors`, async () => {
    const s = await scorePart(part);
    const floor = FLOORS[part];
    assert.equal(s.invalidAnswers, 0, 'every answer validates against its preset schema');
    assert.ok(s.files.ok >= floor.files, `files passed ${s.files.ok} < floor ${floor.files}`);
    const drops: string[] = [];
    for (const [key, [req, opt]] of Object.entries(floor.fields)) {
      const [preset, field] = key.split('.') as [string, string];
      const t = s.fields[preset]?.[field];
      const gotReq = t?.required.ok ?? 0;
      const gotOpt = t?.optional.ok ?? 0;
      if (gotReq < req) drops.push(`${key} required ${gotReq} < ${req}`);
      if (gotOpt < opt) drops.push(`${key} optional ${gotOpt} < ${opt}`);
    }
    assert.deepEqual(drops, [], `fields below their floor (node scripts/corpus/score-world.ts --part ${part})`);
  });
}
