// The build step that keeps bundle sources one byte per character (scripts/build/latin1.ts): characters above U+00FF
// in regular-expression literals become \uXXXX and the patterns match exactly as before; anywhere else the build
// stops; the source map follows the moved columns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Latin1Error, latin1Source, shiftSourceMap } from '../../scripts/build/latin1.ts';

const hasWide = (s: string): boolean => [...s].some((c) => c.codePointAt(0)! > 0xff);

describe('latin1Source', () => {
  it('escapes wide characters in regular expressions and the patterns still match the same text', () => {
    const js =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source under test
      'var a=/(?:確認コード|код|ส่วนลด)\\s*[:：]?/i,b=/[，：；]/g,c=/😀+/u,d=/x😀/,e="\\u4E2D"+`\\xE9${1}`,f=10/2/5;' +
      'function g(t){return/验证码/.test(t)}';
    const r = latin1Source(js, 'x.cjs');
    assert.equal(hasWide(r.js), false);
    assert.equal(r.literals, 5);
    assert.ok(r.escaped >= 20);
    type P = { a: RegExp; b: RegExp; c: RegExp; d: RegExp; e: string; f: number; g: (t: string) => boolean };
    const load = (src: string) => new Function(`${src};return {a,b,c,d,e,f,g}`)() as P;
    const use = (p: P) => [
      p.a.test('код: 1'),
      p.a.test('確認コード：1'),
      p.a.test('code: 1'),
      '，x；'.match(p.b)?.length,
      p.c.exec('a😀😀b')?.[0],
      p.d.test('x😀'),
      p.g('验证码 1'),
      p.e,
      p.f,
      p.a.flags,
      p.c.flags,
    ];
    assert.deepEqual(use(load(r.js)), use(load(js)));
    assert.deepEqual(use(load(js)), [true, true, false, 2, '😀😀', true, true, '中é1', 1, 'i', 'u']);
  });

  it('leaves a bundle without wide characters untouched', () => {
    const js = 'var a=/x/g,b="\\u4E2D",c=a/2;';
    assert.deepEqual(latin1Source(js, 'x.cjs'), { js, escaped: 0, literals: 0, edits: [] });
  });

  it('tells a regular expression from division by the token before it', () => {
    const js = 'var a=4,b=2,g=1,r=a/b/g,s=(a)/2,t=[8][0]/4,u=typeof/中/;x=[r,s,t,u]';
    const r = latin1Source(js, 'x.cjs');
    assert.equal(r.literals, 1);
    assert.equal(hasWide(r.js), false);
  });

  it('handles templates with nested expressions, strings and comments around patterns', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source under test
    const js = 'var x=`a${{k:"}"}.k+`b${/中/.source}`}c`;/* c */var y=/文/;// end';
    const r = latin1Source(js, 'x.cjs');
    assert.equal(r.literals, 2);
    assert.equal(new Function(`${r.js};return x`)(), new Function(`${js};return x`)());
  });

  it('stops on a wide character outside a regular expression, naming where', () => {
    // A raw template: escaping would change what String.raw sees.
    assert.throws(
      () => latin1Source('var a=String.raw`中`;', 'x.cjs'),
      (err: Error) => {
        assert.ok(err instanceof Latin1Error);
        assert.match(err.message, /x\.cjs: character U\+4E2D above U\+00FF in a template literal at offset 17/);
        return true;
      },
    );
    assert.throws(() => latin1Source('var a="中";', 'x.cjs'), /in a string literal/);
    assert.throws(() => latin1Source('/* 中 */', 'x.cjs'), /in a comment/);
    // A pattern the tokenizer reads as division: the characters are then seen in code, and the build stops.
    assert.throws(() => latin1Source('if(a)/中/.test(b)', 'x.cjs'), /above U\+00FF in an identifier at offset 6/);
  });
});

describe('shiftSourceMap', () => {
  it('moves the mappings after a grown literal on the same line, and only those', () => {
    // Line 0: segments at generated columns 0, 6 and 20; a literal at column 6 grew by 10. Line 1: column 3.
    const mappings = 'AAAA,MAAM,cAAc;GAAG';
    const js = 'var a=/中/;var b=12345;\nabc';
    const out = JSON.parse(shiftSourceMap(JSON.stringify({ version: 3, mappings }), js, [{ at: 6, grow: 10 }])) as { mappings: string };
    // 0 → 0, 6 → 6 (the literal itself starts where it did), 20 → 30; line 1 unchanged.
    assert.equal(out.mappings, 'AAAA,MAAM,wBAAc;GAAG');
  });
});
