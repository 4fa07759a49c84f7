// compat check (issue 28): HTML/CSS features of a real parsed mail judged against caniemail's data — latest version
// per client, unknown kept unknown, notes resolved, client globs, line and column in the HTML, a Mailpit-like score,
// and the build carrying the data compacted.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { caniemailCompact } from '../../scripts/caniemail-plugin.ts';
import { cellOf, compactCaniemail, latestVersion, type RawCaniemail } from '../../src/checks/compat/compact.ts';
import { CANIEMAIL } from '../../src/checks/compat/data.ts';
import { CANIEMAIL_DATA_DATE, COMPAT_CLIENTS, checkCompat, compatCheck, MAX_FINDINGS_PER_RULE } from '../../src/checks/compat/index.ts';
import type { CheckInput, CheckOptions, Finding } from '../../src/checks/types.ts';
import { parseMessage } from '../../src/mail/parse.ts';

const RAW_DATA = JSON.parse(
  fs.readFileSync(new URL('../../src/checks/compat/data/caniemail.json', import.meta.url), 'utf8'),
) as RawCaniemail;

function mail(html: string | null, text: string | null = null, subject = 'Your order'): string {
  const head = `From: Shop <shop@shop.example.net>\r\nTo: a@b.example\r\nSubject: ${subject}\r\nMessage-ID: <1@shop>\r\nMIME-Version: 1.0\r\n`;
  if (html === null) return `${head}Content-Type: text/plain; charset=utf-8\r\n\r\n${text ?? ''}\r\n`;
  if (text === null) return `${head}Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${html}\r\n`;
  return `${head}Content-Type: multipart/alternative; boundary=b1\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}\r\n--b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n--b1--\r\n`;
}

async function input(raw: string, clients: string[] = []): Promise<CheckInput> {
  const buf = Buffer.from(raw);
  const parsed = await parseMessage(buf);
  const options: CheckOptions = { clients, links: { mode: 'static', includeVerificationLinks: false } };
  return { raw: buf, parsed, html: parsed.html, text: parsed.text, facts: null, options, signal: new AbortController().signal };
}

/** 1-based line and column of the first occurrence of `needle` in `hay`, computed independently of the check. */
function where(hay: string, needle: string, from = 0): { line: number; column: number } {
  const i = hay.indexOf(needle, from);
  assert.ok(i >= 0, `${needle} not in the HTML`);
  const before = hay.slice(0, i).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

const one = (fs_: Finding[], rule: string) => {
  const found = fs_.filter((f) => f.rule === rule);
  assert.ok(found.length > 0, `no ${rule} finding among ${fs_.map((f) => f.rule).join(', ')}`);
  return found[0]!;
};

const MODERN = `<!DOCTYPE html>
<html>
<head>
<style>
  .cta { display: flex; }
  a:hover { text-decoration: underline; }
  @media (prefers-color-scheme: dark) { .cta { color: #fff; } }
</style>
</head>
<body>
<div class="cta" style="position: absolute; top: 0">Hello</div>
<video src="https://cdn.shop.example.net/intro.mp4" width="320"></video>
<p style="box-shadow: 0 0 4px #000">Shadow</p>
</body>
</html>`;

describe('compat', () => {
  it('names Outlook on Windows and Gmail where features they do not support are used, at line and column', async () => {
    const inp = await input(mail(MODERN), ['outlook.windows', 'gmail.*']);
    const html = inp.html!;
    const r = await compatCheck.run(inp);
    assert.equal(r.status, 'failed');

    const video = one(r.findings, 'html-video');
    assert.equal(video.severity, 'error');
    assert.ok(video.clients!.includes('outlook.windows'), `video clients: ${video.clients}`);
    assert.ok(video.clients!.includes('gmail.desktop-webmail'));
    assert.deepEqual({ line: video.location!.line, column: video.location!.column }, where(html, '<video'));
    assert.equal(video.location!.part, 'html');
    assert.match(video.docs!, /^https:\/\/www\.caniemail\.com\/features\/html-video/);

    // in a style attribute: the property's own position
    const pos = one(r.findings, 'css-position');
    assert.equal(pos.severity, 'error');
    assert.ok(pos.clients!.includes('outlook.windows') && pos.clients!.includes('gmail.desktop-webmail'));
    assert.deepEqual({ line: pos.location!.line, column: pos.location!.column }, where(html, 'position: absolute'));

    // in a <style> block: the declaration, the pseudo-class and the at-rule
    const flex = one(r.findings, 'css-display-flex');
    assert.ok(flex.clients!.includes('outlook.windows'));
    assert.deepEqual({ line: flex.location!.line, column: flex.location!.column }, where(html, 'display: flex'));
    assert.equal(flex.location!.selector, '.cta');
    const hover = one(r.findings, 'css-pseudo-class-hover');
    assert.deepEqual({ line: hover.location!.line, column: hover.location!.column }, where(html, 'a:hover'));
    const dark = one(r.findings, 'css-at-media-prefers-color-scheme');
    assert.ok(dark.clients!.some((c) => c.startsWith('gmail.')) && dark.clients!.includes('outlook.windows'));
    assert.deepEqual({ line: dark.location!.line, column: dark.location!.column }, where(html, '@media'));

    const shadow = one(r.findings, 'css-box-shadow');
    assert.ok(shadow.clients!.includes('gmail.desktop-webmail') && shadow.clients!.includes('outlook.windows'));

    // only the selected clients, each once, no versions
    const ids = new Set(COMPAT_CLIENTS.map((c) => c.id));
    for (const f of r.findings) {
      assert.equal(new Set(f.clients).size, f.clients!.length, `${f.rule} lists a client twice`);
      for (const c of f.clients!) {
        assert.ok(ids.has(c), c);
        assert.ok(c === 'outlook.windows' || c.startsWith('gmail.'), `${f.rule}: ${c} was not selected`);
      }
    }
    assert.deepEqual(r.meta!.clients, ['gmail.desktop-webmail', 'gmail.ios', 'gmail.android', 'gmail.mobile-webmail', 'outlook.windows']);
    assert.ok((r.meta!.errors as number) >= 6);
    assert.equal(r.findings.filter((f) => f.severity === 'error').length, r.meta!.errors);
    assert.ok(typeof r.score === 'number' && r.score >= 0 && r.score < 100);
  });

  it('gives a plain text mail no findings, and a conservative table mail no errors for Outlook and Gmail', async () => {
    const plain = await compatCheck.run(await input(mail(null, 'Your order shipped.\nTrack it at https://shop.example.net/t/1')));
    assert.deepEqual(plain.findings, []);
    assert.equal(plain.status, 'skipped');

    const safe = `<table width="600" cellpadding="0" cellspacing="0" border="0">
<tr><td style="padding: 16px; font-family: Arial, sans-serif; font-size: 16px; color: #333333; background-color: #ffffff">
<p style="margin: 0">Your order shipped.</p>
<a href="https://shop.example.net/t/1" style="color: #0066cc">Track it</a>
<img src="https://cdn.shop.example.net/logo.png" width="120" height="40" alt="Shop">
</td></tr>
</table>`;
    const r = await compatCheck.run(await input(mail(safe, 'Your order shipped.'), ['outlook.windows', 'gmail.*']));
    assert.deepEqual(
      r.findings.filter((f) => f.severity === 'error').map((f) => f.rule),
      [],
    );
    assert.equal(r.status, 'passed');
  });

  it('judges each client by its latest tested version only', () => {
    assert.equal(latestVersion(['2007', '2010', '2013', '2016', '2019']), '2019');
    // Outlook for Mac: JSON.parse hoists the integer keys, the app version was appended last and is the newest
    assert.equal(latestVersion(['2011', '2016', '2021-02', '16.80']), '16.80');
    assert.equal(latestVersion(['2019-10', '16.80', '16.105.2', '16.103']), '16.105.2');
    assert.equal(latestVersion(['6.0', '2021-11']), '2021-11');
    assert.equal(latestVersion(['2021', '2022-08', '2019']), '2022-08');
    // in the data: Outlook on Windows is one client, judged by its newest row
    const windows = CANIEMAIL.clients.findIndex((c) => c.id === 'outlook.windows');
    let judged = 0;
    for (const d of RAW_DATA.data) {
      const rows = d.stats.outlook?.windows;
      if (!rows) continue;
      assert.equal(cellOf(CANIEMAIL.features[d.slug]!, windows)!.version, latestVersion(Object.keys(rows)), d.slug);
      judged++;
    }
    assert.ok(judged > 250);
    assert.equal(CANIEMAIL.clients.filter((c) => c.id.startsWith('outlook.windows')).length, 2); // windows + windows-mail
  });

  it('keeps unknown support unknown (info), not partial, and resolves notes to their text', async () => {
    // html-comments is `u` for Orange's webmail in the data
    const orange = CANIEMAIL.clients.findIndex((c) => c.id === 'orange.desktop-webmail');
    assert.equal(cellOf(CANIEMAIL.features['html-comments']!, orange)!.support, 'u');
    const r = await compatCheck.run(await input(mail('<p>Hi</p><!-- tracking marker --><p>there</p>'), ['orange.desktop-webmail']));
    const c = one(r.findings, 'html-comments');
    assert.equal(c.severity, 'info');
    assert.deepEqual(c.clients, ['orange.desktop-webmail']);
    assert.equal(r.meta!.warnings, 0);
    assert.ok((r.meta!.unknown as number) >= 1);
    assert.equal(r.status, 'passed');

    // @media is partial in Outlook for Mac, with notes #1 and #10 in the data
    const m = await compatCheck.run(
      await input(mail('<style>@media (max-width: 600px) { .x { width: 100% } }</style><p class="x">a</p>'), ['outlook.macos']),
    );
    const media = one(m.findings, 'css-at-media');
    assert.equal(media.severity, 'warning');
    const noteText = RAW_DATA.data.find((d) => d.slug === 'css-at-media')!.notes_by_num!['10']!;
    assert.ok(media.detail.includes(noteText), media.detail);
    assert.doesNotMatch(media.detail, /#10/);
  });

  it('selects clients by id, family or glob, and refuses a selection that matches nothing', async () => {
    const html = mail('<video src="https://x.example.net/a.mp4"></video>');
    const family = await compatCheck.run(await input(html, ['gmail']));
    const listed = await compatCheck.run(await input(html, ['gmail.ios, outlook.windows']));
    assert.deepEqual(listed.meta!.clients, ['gmail.ios', 'outlook.windows']);
    assert.deepEqual(family.meta!.clients, ['gmail.desktop-webmail', 'gmail.ios', 'gmail.android', 'gmail.mobile-webmail']);
    const ios = await compatCheck.run(await input(html, ['*.ios']));
    assert.ok((ios.meta!.clients as string[]).every((c) => c.endsWith('.ios')));
    assert.ok((ios.meta!.clients as string[]).includes('apple-mail.ios'));
    const all = await compatCheck.run(await input(html));
    assert.equal((all.meta!.clients as string[]).length, CANIEMAIL.clients.length);
    const bad = await compatCheck.run(await input(html, ['nokia.*']));
    assert.equal(bad.status, 'error');
    assert.match(bad.reason!, /"nokia\.\*" matches no client.*gmail/);
  });

  it('scores like Mailpit: 100 − the largest weighted unsupported and partial shares, over the selected clients', async () => {
    // <video>: unsupported in Outlook on Windows, supported in Apple Mail on macOS → 50 % of the clients, 1 of 4 elements
    const apple = CANIEMAIL.clients.findIndex((c) => c.id === 'apple-mail.macos');
    assert.equal(cellOf(CANIEMAIL.features['html-video']!, apple)!.support, 'y');
    const clients = ['outlook.windows', 'apple-mail.macos'];
    const one_ = await compatCheck.run(await input(mail('<video src="https://x.example.net/a.mp4"></video>'), clients));
    assert.equal(one_.score, 50);
    const quarter = await compatCheck.run(
      await input(mail('<video src="https://x.example.net/a.mp4"></video><div>b</div><div>c</div><div>d</div>'), clients),
    );
    assert.equal(quarter.meta!.nodes, 4);
    assert.equal(quarter.score, 87.5);
  });

  it('reads style attributes with entities in them, keeping positions', async () => {
    const html = '<p style="font-family: &quot;Segoe UI&quot;, system-ui; box-shadow: 0 0 1px #000">x</p>';
    const inp = await input(mail(html));
    const r = await compatCheck.run(inp);
    const shadow = one(r.findings, 'css-box-shadow');
    assert.deepEqual({ line: shadow.location!.line, column: shadow.location!.column }, where(inp.html!, 'box-shadow'));
    // the font list after the quoted name is still read (`&quot;` ends in `;`, which must not end the declaration)
    const ui = one(r.findings, 'css-sytem-ui');
    assert.deepEqual({ line: ui.location!.line, column: ui.location!.column }, where(inp.html!, 'system-ui'));
  });

  it('bounds the findings: at most MAX_FINDINGS_PER_RULE per feature, then one "and N more"', async () => {
    const many = Array.from({ length: 120 }, (_, i) => `<video src="https://x.example.net/${i}.mp4"></video>`).join('\n');
    const r = await compatCheck.run(await input(mail(many), ['outlook.windows']));
    const videos = r.findings.filter((f) => f.rule === 'html-video');
    assert.equal(videos.length, MAX_FINDINGS_PER_RULE + 1);
    assert.match(videos.at(-1)!.title, /and 70 more/);
    assert.equal(r.meta!.errors, 120);
  });

  it('survives hostile CSS: unclosed blocks, deep nesting, stray braces, huge values', async () => {
    const css = `${'@media screen {'.repeat(200)} .a { color: red; ${'x'.repeat(100_000)} } }}}} ;;; {{{ /* open comment`;
    const t = performance.now();
    const r = await compatCheck.run(await input(mail(`<style>${css}</style><p style="color: red; ;; : ; display:">x</p>`)));
    assert.ok(performance.now() - t < 2000);
    assert.ok(r.findings.some((f) => f.rule === 'css-at-media'));
  });

  it('never throws on arbitrary CSS and HTML, and every location is inside the document', () => {
    const cssAtoms = fc.constantFrom(
      '{',
      '}',
      ';',
      ':',
      '(',
      ')',
      '[',
      ']',
      '"',
      "'",
      '/*',
      '*/',
      '@media ',
      '@font-face',
      'a:hover',
      '!important',
      'display:flex',
      '\\',
      '<!--',
      '-->',
      ' ',
      '\n',
      'x',
      '&quot;',
    );
    const css = fc.array(fc.oneof(cssAtoms, fc.string({ maxLength: 6 })), { maxLength: 60 }).map((a) => a.join(''));
    fc.assert(
      fc.property(css, css, fc.string({ maxLength: 40 }), (sheet, inline, junk) => {
        const html = `<style>${sheet}</style>\n<p style="${inline.replace(/"/g, '')}">${junk}</p><${junk}>`;
        const r = checkCompat(html, []);
        const lines = html.split('\n');
        for (const f of r.findings) {
          if (!f.location) continue;
          const line = lines[f.location.line! - 1];
          assert.ok(line !== undefined && f.location.column! >= 1 && f.location.column! <= line.length + 1, JSON.stringify(f.location));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('ships the data compacted in the bundle, equal to compacting the vendored file, with its date exposed', async () => {
    assert.equal(CANIEMAIL_DATA_DATE, RAW_DATA.last_update_date);
    assert.deepEqual(CANIEMAIL, compactCaniemail(RAW_DATA));
    const esbuild = await import('esbuild');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compat-bundle-'));
    try {
      const out = path.join(dir, 'data.mjs');
      await esbuild.build({
        entryPoints: [new URL('../../src/checks/compat/data.ts', import.meta.url).pathname],
        bundle: true,
        platform: 'node',
        format: 'esm',
        outfile: out,
        logLevel: 'silent',
        plugins: [caniemailCompact],
      });
      const size = fs.statSync(out).size;
      assert.ok(size < 300_000, `bundle is ${size} bytes`);
      const bundled = (await import(pathToFileURL(out).href)) as { CANIEMAIL: unknown };
      assert.deepEqual(bundled.CANIEMAIL, CANIEMAIL);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
