// fast-check arbitraries that turn the public corpus (test/fixtures/corpus/*.eml) into hostile mail: byte flips,
// truncation, header explosions, deeply nested multiparts, broken transfer encodings and charsets, NUL and 8-bit
// bytes, mangled line ends. Shared by the quick fuzz test and its long form.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { ROOT } from './lib.ts';

const dir = path.join(ROOT, 'test/fixtures/corpus');
export const CORPUS: Buffer[] = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.eml'))
  .sort()
  .map((f) => fs.readFileSync(path.join(dir, f)));

type Mutation = (b: Buffer) => Buffer;

/** How much a single mutation may add: `quick` keeps 10,000 messages to well under a minute, `heavy` goes big. */
export interface MutationBudget {
  headerBytes: number;
  maxDepth: number;
  maxCopies: number;
}
export const QUICK: MutationBudget = { headerBytes: 48 * 1024, maxDepth: 120, maxCopies: 8 };
export const HEAVY: MutationBudget = { headerBytes: 512 * 1024, maxDepth: 400, maxCopies: 50 };

const at = (b: Buffer, frac: number) => Math.min(b.length, Math.floor(frac * b.length));
const splice = (b: Buffer, pos: number, del: number, ins: Buffer) =>
  Buffer.concat([b.subarray(0, pos), ins, b.subarray(Math.min(b.length, pos + del))]);
/** Where the header ends (the first blank line), or the end. */
const headEnd = (b: Buffer) => {
  const s = b.toString('latin1');
  const m = /\r?\n\r?\n/.exec(s);
  return m ? m.index : b.length;
};

const byteFlips: fc.Arbitrary<Mutation> = fc
  .array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 40 })
  .map((flips) => (b) => {
    const out = Buffer.from(b);
    for (const [f, v] of flips) if (out.length) out[Math.min(out.length - 1, Math.floor(f * out.length))] = v;
    return out;
  });

const truncation: fc.Arbitrary<Mutation> = fc.double({ min: 0, max: 1, noNaN: true }).map((f) => (b) => b.subarray(0, at(b, f)));

const headerExplosion = (budget: MutationBudget): fc.Arbitrary<Mutation> =>
  fc
    .record({
      count: fc.integer({ min: 1, max: 2000 }),
      valueLength: fc.integer({ min: 0, max: 2000 }),
      name: fc.constantFrom('X-Junk', 'Received', 'To', 'Subject', 'Content-Type', 'Reply-To', 'References', 'From'),
      folded: fc.boolean(),
    })
    .map(({ count, valueLength, name, folded }) => (b) => {
      const value = folded
        ? Array.from({ length: Math.max(1, Math.floor(valueLength / 60)) }, (_, i) => `v${i}${'x'.repeat(55)}`).join('\r\n ')
        : 'y'.repeat(valueLength);
      // Bounded added header size (the parser is superlinear on some shapes of it: see test/api/ingest/ingest-worker.test.ts).
      const n = Math.max(1, Math.min(count, Math.floor(budget.headerBytes / (value.length + name.length + 4))));
      const head = Buffer.from(Array.from({ length: n }, (_, i) => `${name}: ${i} ${value}\r\n`).join(''));
      return Buffer.concat([head, b]);
    });

const nestedMultipart = (budget: MutationBudget): fc.Arbitrary<Mutation> =>
  fc
    .record({
      depth: fc.integer({ min: 1, max: budget.maxDepth }),
      closeThem: fc.boolean(),
      type: fc.constantFrom('mixed', 'alternative', 'related', 'digest', 'report'),
    })
    .map(({ depth, closeThem, type }) => (b) => {
      let open = '';
      let close = '';
      for (let i = 0; i < depth; i++) {
        open += `Content-Type: multipart/${type}; boundary="n${i}"\r\n\r\n--n${i}\r\n`;
        close = `\r\n--n${i}--\r\n` + close;
      }
      const inner = b.subarray(headEnd(b)).toString('latin1');
      return Buffer.concat([
        Buffer.from(
          `From: fuzz@example.com\r\nSubject: nested ${depth}\r\nMIME-Version: 1.0\r\n${open}Content-Type: text/plain\r\n`,
          'latin1',
        ),
        Buffer.from(inner, 'latin1'),
        Buffer.from(closeThem ? close : '', 'latin1'),
      ]);
    });

const badEncoding: fc.Arbitrary<Mutation> = fc
  .record({
    cte: fc.constantFrom('base64', 'quoted-printable', 'x-uuencode', '8bit', 'binary', 'bogus'),
    charset: fc.constantFrom('utf-8', 'x-unknown-charset', 'iso-2022-jp', 'utf-16', 'gb18030', '"', 'utf-7', ''),
    junk: fc.uint8Array({ minLength: 0, maxLength: 2000 }),
    encodedWords: fc.integer({ min: 0, max: 200 }),
  })
  .map(({ cte, charset, junk, encodedWords }) => (b) => {
    const words = Array.from(
      { length: encodedWords },
      (_, i) => `=?${charset || 'x'}?${i % 2 ? 'B' : 'Q'}?${i % 3 ? '=ZZ=4' : '////'}?=`,
    ).join(' ');
    const head = `Subject: ${words}\r\nContent-Type: text/html; charset=${charset}\r\nContent-Transfer-Encoding: ${cte}\r\n`;
    const pos = headEnd(b);
    return Buffer.concat([
      Buffer.from(head, 'latin1'),
      b.subarray(0, pos),
      Buffer.from('\r\n\r\n=3D=ZZ=\r\n%%%\r\n'),
      Buffer.from(junk),
      b.subarray(pos),
    ]);
  });

const lineMangling: fc.Arbitrary<Mutation> = fc.constantFrom<Mutation>(
  (b) => Buffer.from(b.toString('latin1').replace(/\r?\n/g, '\n'), 'latin1'),
  (b) => Buffer.from(b.toString('latin1').replace(/\r?\n/g, '\r'), 'latin1'),
  (b) => Buffer.from(b.toString('latin1').replace(/\r?\n/g, '\r\r\n'), 'latin1'),
  (b) => Buffer.from(b.toString('latin1').replace(/\r?\n\r?\n/, '\r\n'), 'latin1'), // no header/body separator
  (b) => Buffer.from(b.toString('latin1').replace(/boundary="?([^";\r\n]+)"?/gi, 'boundary=""'), 'latin1'),
);

const insertion: fc.Arbitrary<Mutation> = fc
  .tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.uint8Array({ minLength: 1, maxLength: 4000 }))
  .map(
    ([f, bytes]) =>
      (b) =>
        splice(b, at(b, f), 0, Buffer.from(bytes)),
  );

const duplication = (budget: MutationBudget): fc.Arbitrary<Mutation> =>
  fc
    .tuple(
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.integer({ min: 2, max: budget.maxCopies }),
    )
    .map(([a, c, times]) => (b) => {
      const from = at(b, Math.min(a, c));
      const to = at(b, Math.max(a, c));
      const piece = b.subarray(from, Math.min(to, from + 16 * 1024));
      return splice(b, to, 0, Buffer.concat(Array.from({ length: times }, () => piece)));
    });

export const mutation = (budget: MutationBudget): fc.Arbitrary<Mutation> =>
  fc.oneof(
    byteFlips,
    truncation,
    headerExplosion(budget),
    nestedMultipart(budget),
    badEncoding,
    lineMangling,
    insertion,
    duplication(budget),
  );

/** A corpus message with one to four mutations applied in turn. */
export const mutatedMessage = (budget: MutationBudget = QUICK): fc.Arbitrary<Buffer> =>
  fc
    .tuple(fc.integer({ min: 0, max: CORPUS.length - 1 }), fc.array(mutation(budget), { minLength: 1, maxLength: 4 }))
    .map(([i, ms]) => ms.reduce((b, m) => m(b), CORPUS[i]!));
