// links check (issue 28): the static rules on real parsed mails, and reach mode against a real loopback HTTP server
// (200, 404, 405 on HEAD then GET, redirects and a redirect loop, a slow host) that counts every request it gets —
// with the host allowed it is followed; without the allow-list it is never contacted.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import fc from 'fast-check';
import { createLinksCheck, linksCheck } from '../../src/checks/links/index.ts';
import { htmlLinks, judgeLinks } from '../../src/checks/links/static.ts';
import type { CheckInput, CheckResult, Finding, LinkOptions } from '../../src/checks/types.ts';
import type { Resolver } from '../../src/lib/addresses.ts';
import { parseMessage } from '../../src/mail/parse.ts';

function mail(html: string, opts: { subject?: string; from?: string; text?: string } = {}): string {
  const head = `From: Shop <${opts.from ?? 'news@acmeshop.com'}>\r\nTo: a@b.example\r\nSubject: ${opts.subject ?? 'Your order shipped'}\r\nMessage-ID: <1@shop>\r\nMIME-Version: 1.0\r\n`;
  if (opts.text === undefined) return `${head}Content-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`;
  return `${head}Content-Type: multipart/alternative; boundary=b1\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${opts.text}\r\n--b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n--b1--\r\n`;
}

async function input(raw: string, links: Partial<LinkOptions> = {}, signal = new AbortController().signal): Promise<CheckInput> {
  const buf = Buffer.from(raw);
  const parsed = await parseMessage(buf);
  return {
    raw: buf,
    parsed,
    html: parsed.html,
    text: parsed.text,
    facts: null,
    options: { clients: [], links: { mode: 'static', includeVerificationLinks: false, ...links } },
    signal,
  };
}

function where(hay: string, needle: string): { line: number; column: number } {
  const i = hay.indexOf(needle);
  assert.ok(i >= 0, `${needle} not found`);
  const before = hay.slice(0, i).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

const rules = (r: CheckResult) => r.findings.map((f) => f.rule);
const byRule = (r: CheckResult, rule: string): Finding => {
  const f = r.findings.find((x) => x.rule === rule);
  assert.ok(f, `no ${rule} among ${rules(r).join(', ')}`);
  return f;
};

describe('links, static', () => {
  it('passes a mail whose links are all fine, without touching the network', async () => {
    const r = await linksCheck.run(
      await input(
        mail(
          '<p><a href="https://acmeshop.com/orders/1">Your order</a> · <a href="mailto:help@acmeshop.com?subject=Order%201">Help</a> · <a href="tel:+49 30 1234567">Call</a> · <a href="#top">Top</a></p><img src="https://cdn.acmeshop.com/logo.png" alt="Shop">',
        ),
      ),
    );
    assert.deepEqual(r.findings, []);
    assert.equal(r.status, 'passed');
    assert.deepEqual(r.meta, { mode: 'static', links: 5, checked: 0, broken: 0, redirects: 0, skipped: 0 });
  });

  it('flags each kind of bad link, at its line and column', async () => {
    const html = [
      '<p><a href="http://acmeshop.com/a">plain http</a></p>',
      '<p><a href="http://localhost:3000/reset?t=1">reset</a></p>',
      '<p><a href="https://10.0.0.12/admin">admin</a></p>',
      '<p><a href="https://staging.acmeshop.com/x">staging</a></p>',
      '<p><a href="https://evil.example.org/login">www.acmeshop.com/login</a></p>',
      '<p><a href="https://bit.ly/3abc">short</a></p>',
      '<p><a href="mailto:not-an-address">mail us</a></p>',
      '<p><a href="tel:call-me">call</a></p>',
      '<p><a href="#">nothing</a></p>',
      '<p><a href="https://acmeshop.com/u/{{user.id}}">profile</a></p>',
      '<p><a href="/account">account</a></p>',
      '<p><a href="javascript:alert(1)">js</a></p>',
      '<p><a href="https://exa mple.com/x">space</a></p>',
    ].join('\n');
    const inp = await input(mail(html));
    const r = await linksCheck.run(inp);
    const expect: Array<[string, string, Finding['severity']]> = [
      ['link-http', 'http://acmeshop.com/a', 'warning'],
      ['link-private-host', 'http://localhost:3000', 'warning'],
      ['link-staging-host', 'https://staging.', 'warning'],
      ['link-text-mismatch', 'https://evil.example.org', 'warning'],
      ['link-shortener', 'https://bit.ly', 'warning'],
      ['link-mailto-invalid', 'mailto:not-an-address', 'error'],
      ['link-tel-invalid', 'tel:call-me', 'error'],
      ['link-empty', 'href="#"', 'warning'],
      ['link-placeholder', '{{user.id}}', 'error'],
      ['link-relative', '/account', 'error'],
      ['link-scheme', 'javascript:', 'error'],
      ['link-malformed', 'exa mple', 'error'],
    ];
    for (const [rule, needle, severity] of expect) {
      const f = byRule(r, rule);
      assert.equal(f.severity, severity, rule);
      const at = where(inp.html!, needle);
      assert.equal(f.location!.line, at.line, `${rule} line`);
      assert.equal(f.location!.part, 'html');
      assert.equal(f.location!.column, inp.html!.split('\n')[at.line - 1]!.indexOf('<a') + 1, `${rule} column`);
    }
    // the private address too, and localhost is not also "plain http"
    assert.equal(r.findings.filter((f) => f.rule === 'link-private-host').length, 2);
    assert.equal(r.findings.filter((f) => f.rule === 'link-http').length, 1);
    assert.equal(r.status, 'failed');
  });

  it('only notes leaked internal hosts (info) when the mail is obviously a test', async () => {
    const html = '<a href="http://localhost:3000/x">x</a> <a href="https://qa.acmeshop.com/y">y</a>';
    const real = await linksCheck.run(await input(mail(html)));
    assert.equal(byRule(real, 'link-private-host').severity, 'warning');
    const test = await linksCheck.run(await input(mail(html, { subject: '[TEST] Your order shipped' })));
    assert.equal(byRule(test, 'link-private-host').severity, 'info');
    assert.equal(byRule(test, 'link-staging-host').severity, 'info');
    const fromTest = await linksCheck.run(await input(mail(html, { from: 'app@mailer.test' })));
    assert.equal(byRule(fromTest, 'link-private-host').severity, 'info');
  });

  it('reads a domain in link text only where it is one', async () => {
    const html = [
      '<a href="https://acmeshop.com/a">Mr.Smith</a>',
      '<a href="https://acmeshop.com/b">Get Node.js</a>',
      '<a href="https://acmeshop.com/c">www.acmeshop.com</a>',
      '<a href="https://acmeshop.com/d">Visit paypal.com now</a>',
      '<a href="https://acmeshop.com/e">https://login.bank.de/x</a>',
    ].join('\n');
    const r = await linksCheck.run(await input(mail(html)));
    const mismatches = r.findings.filter((f) => f.rule === 'link-text-mismatch').map((f) => f.title);
    assert.deepEqual(mismatches, [
      'Link text names paypal.com but the link goes to acmeshop.com',
      'Link text names login.bank.de but the link goes to acmeshop.com',
    ]);
  });

  it('does not call a click-tracking wrapper a mismatch when it unwraps to the named domain', async () => {
    const r = await linksCheck.run(
      await input(mail('<a href="https://click.mailer.example.com/c?url=https%3A%2F%2Facmeshop.com%2Fo">acmeshop.com/o</a>')),
    );
    assert.ok(!rules(r).includes('link-text-mismatch'), rules(r).join());
  });

  it('reads the text part too, at its line and column', async () => {
    const text = 'Hello\nOpen http://acmeshop.com/plain now.\n';
    const inp = await input(mail('<p>Hello</p>', { text }));
    const r = await linksCheck.run(inp);
    const f = byRule(r, 'link-http');
    assert.deepEqual(f.location, { part: 'text', line: 2, column: 6 });
  });

  it('reads style sheets and background images as well as anchors and images', async () => {
    const html =
      '<link rel="stylesheet" href="http://cdn.acmeshop.com/a.css">\n<table><tr><td background="http://cdn.acmeshop.com/bg.png">x</td></tr></table>';
    const inp = await input(mail(html));
    const r = await linksCheck.run(inp);
    const found = r.findings.filter((f) => f.rule === 'link-http').map((f) => [f.evidence, f.location!.line, f.location!.column]);
    assert.deepEqual(found, [
      ['http://cdn.acmeshop.com/a.css', 1, 1],
      ['http://cdn.acmeshop.com/bg.png', 2, 12],
    ]);
  });

  it('never throws on arbitrary hrefs and link texts', () => {
    const atoms = fc.constantFrom(
      'http://',
      'https://',
      'mailto:',
      'tel:',
      'javascript:',
      '#',
      '{{',
      '}}',
      '%',
      '%2F',
      '@',
      '[',
      ']',
      ':',
      '/',
      '?url=https://',
      'www.',
      '.com',
      'localhost',
      '10.0.0.1',
      ' ',
      '&amp;',
      'L0/https:%2F%2F',
    );
    const piece = fc.array(fc.oneof(atoms, fc.string({ maxLength: 5 })), { maxLength: 12 }).map((a) => a.join(''));
    fc.assert(
      fc.property(piece, piece, (href, text) => {
        const html = `<a href="${href.replace(/"/g, '')}">${text.replace(/</g, '')}</a><img src="${href.replace(/"/g, '')}">`;
        const r = judgeLinks(htmlLinks(html), { testMail: false });
        for (const f of r.findings) assert.ok(f.rule.startsWith('link-'));
      }),
      { numRuns: 500 },
    );
  });

  it('bounds the findings per rule', async () => {
    const html = Array.from({ length: 80 }, (_, i) => `<a href="http://acmeshop.com/${i}">${i}</a>`).join('\n');
    const r = await linksCheck.run(await input(mail(html)));
    const http_ = r.findings.filter((f) => f.rule === 'link-http');
    assert.equal(http_.length, 51);
    assert.match(http_.at(-1)!.title, /and 30 more/);
  });
});

describe('links, reach (loopback server)', () => {
  let server: http.Server;
  let port = 0;
  let base = '';
  const seen: Array<{ method: string; path: string }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let bigFinished: boolean | null = null;
  const pending = new Set<http.ServerResponse>();

  before(async () => {
    server = http.createServer((req, res) => {
      const path = req.url ?? '/';
      seen.push({ method: req.method ?? '', path });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => inFlight--);
      const send = (status: number, headers: Record<string, string> = {}) => {
        res.writeHead(status, headers);
        res.end(req.method === 'HEAD' ? undefined : 'body');
      };
      if (path === '/ok' || path.startsWith('/verify')) return send(200);
      if (path === '/missing') return send(404);
      if (path === '/no-head') return req.method === 'HEAD' ? send(405) : send(200);
      if (path === '/big') {
        if (req.method === 'HEAD') return send(501);
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 97);
        let sent = 0;
        res.on('close', () => (bigFinished = res.writableFinished));
        const pump = () => {
          while (sent < 512 && !res.destroyed && res.write(chunk)) sent++;
          if (res.destroyed) return;
          if (sent < 512) res.once('drain', pump);
          else res.end();
        };
        return pump();
      }
      if (path === '/moved') return send(301, { location: '/ok' });
      if (path === '/loop-a') return send(302, { location: '/loop-b' });
      if (path === '/loop-b') return send(302, { location: `${base}/loop-a` });
      const chain = /^\/chain\/(\d+)$/.exec(path);
      if (chain) return Number(chain[1]) > 0 ? send(302, { location: `/chain/${Number(chain[1]) - 1}` }) : send(200);
      if (path === '/away') return send(302, { location: 'http://not-allowed.example.net/x' });
      if (path === '/slow') {
        pending.add(res);
        return;
      }
      if (path.startsWith('/delay')) {
        setTimeout(() => send(200), 80);
        return;
      }
      send(404);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });

  after(async () => {
    for (const r of pending) r.destroy();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  beforeEach(() => {
    seen.length = 0;
    maxInFlight = 0;
  });

  const links = (paths: string[]) => mail(paths.map((p) => `<p><a href="${base}${p}">link ${p}</a></p>`).join('\n'), { subject: 'QA run' });
  const fast = { connectTimeoutMs: 1000, totalTimeoutMs: 400 };

  it('follows allowed links: 200, 404, HEAD 405 → GET, redirects, a redirect loop, too many redirects, a slow host', async () => {
    const check = createLinksCheck({ allowHosts: ['127.0.0.1'], ...fast });
    const paths = ['/ok', '/missing', '/no-head', '/moved', '/loop-a', '/chain/7', '/chain/5', '/slow'];
    const t = performance.now();
    const r = await check.run(await input(links(paths), { mode: 'reach' }));
    const took = performance.now() - t;
    assert.ok(took < 3000, `took ${took} ms`);

    const broken = new Map(r.findings.filter((f) => f.rule === 'link-broken').map((f) => [new URL(f.evidence!).pathname, f]));
    assert.deepEqual([...broken.keys()].sort(), ['/chain/7', '/loop-a', '/missing', '/slow']);
    assert.match(broken.get('/missing')!.title, /HTTP 404/);
    assert.match(broken.get('/loop-a')!.title, /redirect loop/);
    assert.match(broken.get('/chain/7')!.title, /more than 5 redirects/);
    assert.match(broken.get('/slow')!.title, /no complete answer within 400 ms/);
    for (const f of broken.values()) assert.equal(f.severity, 'error');

    // HEAD 405 then GET
    assert.deepEqual(
      seen.filter((s) => s.path === '/no-head').map((s) => s.method),
      ['HEAD', 'GET'],
    );
    assert.ok(!broken.has('/no-head'));
    // HEAD only where HEAD works
    assert.deepEqual(
      seen.filter((s) => s.path === '/ok').map((s) => s.method),
      ['HEAD', 'HEAD'], // /ok itself and the end of /moved
    );
    assert.equal(seen.filter((s) => s.path.startsWith('/chain/7') || /^\/chain\/[0-7]$/.test(s.path)).length > 0, true);
    assert.equal(r.meta!.checked, 8);
    assert.equal(r.meta!.broken, 4);
    // /moved 1 + /loop 2 (a→b→a) + /chain/7 5 + /chain/5 5
    assert.equal(r.meta!.redirects, 13);
    assert.equal(r.meta!.skipped, 0);
    assert.equal(r.status, 'failed');
  });

  it('never contacts the host without the allow-list, nor in static mode, nor for a wildcard onto a private address', async () => {
    const paths = ['/ok', '/missing', '/no-head', '/slow'];
    const none = await createLinksCheck({ allowHosts: [], ...fast }).run(await input(links(paths), { mode: 'reach' }));
    assert.equal(seen.length, 0);
    assert.equal(none.meta!.checked, 0);
    assert.equal(none.meta!.skipped, 4);
    assert.match(byRule(none, 'link-not-followed').detail, /the list is empty/);

    const other = await createLinksCheck({ allowHosts: ['*.example.net'], ...fast }).run(await input(links(paths), { mode: 'reach' }));
    assert.equal(seen.length, 0);
    assert.equal(other.meta!.skipped, 4);

    const staticMode = await createLinksCheck({ allowHosts: ['127.0.0.1'], ...fast }).run(await input(links(paths)));
    assert.equal(seen.length, 0);
    assert.equal(staticMode.meta!.checked, 0);

    // a name matched only by a wildcard that resolves to loopback (DNS rebinding) is refused, not requested
    const resolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const html = mail(`<a href="http://app.qa.example.net:${port}/ok">app</a>`);
    const wild = await createLinksCheck({ allowHosts: ['*.qa.example.net'], resolver, ...fast }).run(await input(html, { mode: 'reach' }));
    assert.equal(seen.length, 0);
    assert.match(byRule(wild, 'link-not-followed').detail, /private address 127\.0\.0\.1.*name the host exactly/);
    // named exactly, it is followed — connecting to the address that was judged
    const exact = await createLinksCheck({ allowHosts: ['app.qa.example.net'], resolver, ...fast }).run(
      await input(html, { mode: 'reach' }),
    );
    assert.deepEqual(seen, [{ method: 'HEAD', path: '/ok' }]);
    assert.equal(exact.meta!.checked, 1);
    assert.equal(exact.meta!.broken, 0);
  });

  it('follows localhost when the allow-list names it (host:port), with the system resolver', async () => {
    const html = mail(
      `<a href="http://localhost:${port}/ok">app</a> <a href="http://localhost:${port + 1 === 65536 ? 1 : port + 1}/ok">other port</a>`,
    );
    const r = await createLinksCheck({ allowHosts: [`localhost:${port}`], ...fast }).run(await input(html, { mode: 'reach' }));
    assert.deepEqual(seen, [{ method: 'HEAD', path: '/ok' }]);
    assert.equal(r.meta!.checked, 1);
    assert.equal(r.meta!.broken, 0);
    assert.equal(r.meta!.skipped, 1); // the other port is not on the list
  });

  it('never follows a redirect to a host that is not allowed, nor to a metadata address', async () => {
    const r = await createLinksCheck({ allowHosts: ['127.0.0.1'], ...fast }).run(await input(links(['/away']), { mode: 'reach' }));
    assert.deepEqual(seen, [{ method: 'HEAD', path: '/away' }]);
    assert.match(byRule(r, 'link-not-followed').detail, /not-allowed\.example\.net.*not in --link-check-hosts/);
    assert.equal(r.meta!.skipped, 1);

    const meta: Resolver = async () => [{ address: '169.254.169.254', family: 4 }];
    const m = await createLinksCheck({ allowHosts: ['metadata.example.net'], resolver: meta, ...fast }).run(
      await input(mail('<a href="http://metadata.example.net/latest">x</a>'), { mode: 'reach' }),
    );
    assert.match(byRule(m, 'link-not-followed').detail, /never contacted/);
  });

  it('skips the one-time verification link unless the caller asks for it', async () => {
    const html = mail(
      `<p>Confirm your email address to finish signing up.</p><p><a href="${base}/verify?token=8f2a9c71d4e3b6a05f">Verify email</a></p><p><a href="${base}/ok">Help</a></p>`,
      { subject: 'Verify your email address' },
    );
    const check = createLinksCheck({ allowHosts: ['127.0.0.1'], ...fast });
    const r = await check.run(await input(html, { mode: 'reach' }));
    assert.ok(!seen.some((s) => s.path.startsWith('/verify')), JSON.stringify(seen));
    assert.ok(seen.some((s) => s.path === '/ok'));
    assert.equal(byRule(r, 'link-verification-skipped').severity, 'info');
    assert.equal(r.meta!.skipped, 1);

    seen.length = 0;
    const asked = await check.run(await input(html, { mode: 'reach', includeVerificationLinks: true }));
    assert.equal(seen.filter((s) => s.path.startsWith('/verify')).length, 1);
    assert.equal(asked.meta!.checked, 2);
  });

  it('keeps at most 2 requests in flight per host, and reads a GET body only a few KB', async () => {
    const check = createLinksCheck({ allowHosts: ['127.0.0.1'], connectTimeoutMs: 1000, totalTimeoutMs: 2000 });
    const r = await check.run(
      await input(links(['/delay/1', '/delay/2', '/delay/3', '/delay/4', '/delay/5', '/delay/6', '/big']), { mode: 'reach' }),
    );
    assert.equal(r.meta!.checked, 7);
    assert.equal(r.meta!.broken, 0);
    assert.ok(maxInFlight <= 2, `max in flight ${maxInFlight}`);
    assert.deepEqual(
      seen.filter((s) => s.path === '/big').map((s) => s.method),
      ['HEAD', 'GET'],
    );
    // the 32 MB body was not read to its end: the check hung up after a few KB
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(bigFinished, false);
  });

  it('stops when the caller aborts', async () => {
    const ac = new AbortController();
    const check = createLinksCheck({ allowHosts: ['127.0.0.1'], connectTimeoutMs: 5000, totalTimeoutMs: 10_000 });
    const run = check.run(await input(links(['/slow']), { mode: 'reach' }, ac.signal));
    setTimeout(() => ac.abort(new Error('budget spent')), 100);
    const t = performance.now();
    await assert.rejects(run, /budget spent/);
    assert.ok(performance.now() - t < 1000);
  });
});
