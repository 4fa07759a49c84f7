// The tokenizer decision, tested both ways (README "Search"): Chinese and Japanese text indexed as character pairs
// (what inboxd does) against Intl.Segmenter words and FTS5's trigram tokenizer, on the same mail and queries. And the
// query compiler: whatever is typed, the MATCH string holds only quoted strings, column names and AND/OR/NOT.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { compileQuery, parseQuery } from '../../src/search/query.ts';
import { fold, isSingleCjk, segmentCjk, segmentCjkQuery, snippet } from '../../src/search/text.ts';

const DOCS = [
  '請求書を添付しました。お支払い期限は明日です。',
  '朝の運用フローを確認してください',
  '请查看发票附件，付款截止日期是明天。',
  '您的验证码是123456，请勿告诉他人',
  'パスワードの再設定を受け付けました',
  '東京都渋谷区の配送センターから発送しました',
];
// Each query and the document it must find.
const QUERIES: Array<[string, number]> = [
  ['請求書', 1],
  ['支払い', 1],
  ['支払', 1],
  ['期限', 1],
  ['運用', 2],
  ['フロー', 2],
  ['发票', 3],
  ['付款', 3],
  ['截止日期', 3],
  ['验证码', 4],
  ['验证', 4],
  ['パスワード', 5],
  ['再設定', 5],
  ['設定', 5],
  ['渋谷', 6],
  ['配送', 6],
  ['码', 4],
  ['東京', 6],
];

const RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー々]+/gu;
const seg = new Intl.Segmenter('ja', { granularity: 'word' });
const words = (t: string) =>
  t.replace(
    RUN,
    (r) =>
      ` ${[...seg.segment(r)]
        .filter((x) => x.isWordLike !== false)
        .map((x) => x.segment)
        .join(' ')} `,
  );

function found(tokenizer: string, index: (t: string) => string, query: (q: string) => string): number {
  const db = new BetterSqlite3(':memory:');
  db.exec(`create virtual table f using fts5(b, tokenize='${tokenizer}')`);
  for (const [i, d] of DOCS.entries()) db.prepare('insert into f(rowid, b) values (?, ?)').run(i + 1, index(d));
  let ok = 0;
  for (const [q, want] of QUERIES) {
    const rows = db.prepare('select rowid from f where f match ?').all(query(q)) as Array<{ rowid: number }>;
    if (rows.length === 1 && rows[0]!.rowid === want) ok++;
  }
  db.close();
  return ok;
}

test('CJK: character pairs find every query; Intl.Segmenter and trigram miss some', () => {
  const pairs = found('unicode61 remove_diacritics 2', segmentCjk, (q) => (isSingleCjk(q) ? `"${q}"*` : `"${segmentCjkQuery(q).trim()}"`));
  const segmenter = found('unicode61 remove_diacritics 2', words, (q) => `"${words(q).trim()}"`);
  const trigram = found(
    'trigram',
    (t) => t,
    (q) => `"${q}"`,
  );
  assert.equal(pairs, QUERIES.length);
  assert.equal(segmenter, QUERIES.length - 2, 'お支払い is one Segmenter word: 支払い and 支払 are not found');
  assert.equal(trigram, 7, 'trigram needs three characters');
});

test('the compiled MATCH holds only quoted strings, columns and operators', () => {
  const nasty = [
    'NEAR(a b)',
    'a* ^b',
    'col:x',
    'a"b',
    '{subject}:x',
    'x AND y',
    'NOT z',
    'from:"a) OR (b"',
    "'; drop table x; --",
    'a\u0000b',
  ];
  for (const q of nasty) {
    let c: ReturnType<typeof compileQuery>;
    try {
      c = compileQuery(parseQuery(q.replace(/^col:/, '"col:"'), 0));
    } catch {
      continue;
    }
    // Remove every quoted string: what is left is structure we generated.
    const rest = (c.match ?? '').replace(/"(?:[^"]|"")*"\*?/g, 'S');
    assert.match(rest, /^[\s(){}:SANDOR\w]*$/, `${q} → ${c.match}`);
    assert.doesNotMatch(rest.replace(/\{subject sender rcpts body files label\}|\b(subject|sender|rcpts|scope)\b/g, ''), /[a-z]/, q);
  }
});

test('fold, snippet', () => {
  assert.equal(fold('Crème Brûlée ÉTÉ'), 'creme brulee ete');
  assert.equal(fold('İx').length, 2);
  assert.equal(snippet('Nothing here', ['zebra']), null);
  assert.equal(snippet('See the Café Crème today', ['cafe']), 'See the «Café» Crème today');
  assert.equal(snippet('a party for art', ['art']), 'a party for «art»');
  const long = `${'lorem '.repeat(100)}needle ${'ipsum '.repeat(100)}`;
  const s = snippet(long, ['needle'])!;
  assert.match(s, /^….*«needle».*…$/);
  assert.ok(s.length < 200);
});
