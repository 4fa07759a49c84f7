// The PostgreSQL side of search text (src/search/pg-text.ts): words cut like FTS5 unicode61, the tsvector literal
// (fields as weights, a gap between fields, ~tokens) and tsquery pieces that carry no syntax from the text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lexemes, tsLexeme, tsPhrase, tsToken, tsvectorLiteral } from '../../src/search/pg-text.ts';
import { compileQuery, parseQuery } from '../../src/search/query.ts';

test('lexemes: lower case, diacritics removed, split at everything but letters and digits', () => {
  assert.deepEqual(lexemes('Zoë Müller <zoe@café.example> NW-2026-0318 482913'), [
    'zoe',
    'muller',
    'zoe',
    'cafe',
    'example',
    'nw',
    '2026',
    '0318',
    '482913',
  ]);
  assert.deepEqual(lexemes("it's & b | c <-> :* \\ 'x'"), ['it', 's', 'b', 'c', 'x']);
  assert.equal(lexemes('a'.repeat(3000))[0]!.length, 500);
});

test('a lexeme literal escapes quotes and backslashes', () => {
  assert.equal(tsLexeme("it's"), "'it''s'");
  assert.equal(tsLexeme('a\\b'), "'a\\\\b'");
});

test('the tsvector literal: weights per field, fields never adjacent, flags and scope as ~tokens', () => {
  const v = tsvectorLiteral(
    {
      subject: 'Hello world',
      sender: 'Ann ann@x.example',
      rcpts: 'bob@y.example',
      body: 'world peace',
      files: 'a.pdf',
      flags: 'xatt xcode',
    },
    ['ci-1'],
    ['t61', 'i62'],
  );
  assert.match(v, /'hello':1A /);
  assert.match(v, /'world':2A,\d+ /, 'subject and body positions, the body one unweighted (D)');
  assert.match(v, /'ann':4B,5B /);
  assert.match(v, /'bob':\d+C /);
  assert.match(v, /'~xatt' '~xcode' '~t61' '~i62'$/);
  // "world" ends the subject at 2, "ann" starts the sender at 4: position 3 is the gap.
  assert.doesNotMatch(v, /:3[A-D, ]/);
});

test('tsquery pieces: phrases, weights, prefixes; compiled queries hold quoted lexemes only', () => {
  assert.equal(tsPhrase('foo-bar', 'any'), "('foo' <-> 'bar')");
  assert.equal(tsPhrase('Alice', 'from'), "'alice':B");
  assert.equal(tsPhrase('書', 'subject', true), "'書':*A");
  assert.equal(tsPhrase('&|!', 'any'), null);
  assert.equal(tsToken('l6369', true), "'~l6369':*");
  const q = compileQuery(parseQuery('"a & b" -c d OR e from:x has:code "it\'s"', Date.now()), 'postgres');
  for (const part of [q.match!, ...q.not]) {
    // Outside quoted lexemes only operators, weights and parentheses remain.
    const bare = part.replace(/'(?:[^']|'')*'/g, '');
    assert.match(bare, /^[\s()&|!<\->:*ABCD]*$/, part);
  }
});
