// PNG renderings of stored mail through Debian's chromium (issue 32, `--render-chromium`): the picture is a PNG of
// the asked width; inline cid: images are drawn (and not with images=off); the dark theme is what the mail's
// prefers-color-scheme sees; scripts do not run and nothing is fetched (a local "remote" server records every
// request); a bad width is 400, another label scope 404, no chromium configured 501; one rendering at a time, with a
// full queue answering 503 + Retry-After; two messages are compared pixel by pixel.
// not @cluster: each instance drives its own chromium; nothing of a rendering is shared between instances.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { decodePng, type Pixels } from '../../../src/render/png.ts';
import { CHROMIUM, chromiumMissing } from '../../helpers/console.ts';
import { type Json, json } from '../../helpers/http.ts';
import { mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';
import { mintKey } from '../../helpers/workspace-mail.ts';

/** A solid-colour PNG (8-bit RGB), to be a mail's inline image. */
function solidPng(w: number, h: number, rgb: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const pixel = (p: Pixels, x: number, y: number) => [...p.rgba.subarray((y * p.width + x) * 4, (y * p.width + x) * 4 + 3)];

const missing = chromiumMissing();

describe('PNG renderings by chromium', { skip: missing ?? false }, () => {
  let s: TestServer;
  let inbox: Json;
  let remote: http.Server;
  const asked: string[] = [];
  let remoteUrl = '';

  before(async () => {
    remote = http.createServer((req, res) => {
      asked.push(req.url ?? '/');
      res.end('x');
    });
    await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r));
    remoteUrl = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    s = await startTestServer(['--render-chromium', CHROMIUM, '--render-queue', '0']);
    inbox = await json(await s.api('/v1/inboxes', { method: 'POST', json: { label: 'render' } }), 201);
  });
  after(async () => {
    await s?.stop();
    remote.closeAllConnections();
    await new Promise<void>((r) => remote.close(() => r()));
  });

  async function mail(subject: string, html: string, attachments: unknown[] = []): Promise<string> {
    await sendMail(s.server.smtpPort, { to: inbox.address, subject, html, attachments } as never);
    const page = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages?limit=50`));
    const m = (page.items as Json[]).find((x) => x.subject === subject);
    assert.ok(m, subject);
    return m.messageId;
  }

  const render = (id: string, q: string) => s.api(`/v1/inboxes/${inbox.inboxId}/messages/${id}/render?${q}`);

  test('a PNG of the width; cid images drawn unless images=off; dark theme; no script, no request', async () => {
    const html = `<html><head><style>body{margin:0;background:#fff}@media (prefers-color-scheme: dark){body{background:#000}}</style></head><body>
      <img src="cid:logo@acme.test" width="40" height="40" style="display:block">
      <div id="box" style="width:60px;height:60px;background:#0000ff"></div>
      <img src="${remoteUrl}/pixel.gif" width="1" height="1"><link rel="stylesheet" href="${remoteUrl}/style.css">
      <div style="background-image:url(${remoteUrl}/bg.png);width:10px;height:10px"></div>
      <script>document.getElementById('box').style.background='#00ff00';fetch('${remoteUrl}/script')</script>
      <p style="height:400px">tall</p></body></html>`;
    const id = await mail('render me', html, [
      { filename: 'logo.png', content: solidPng(40, 40, [255, 0, 0]), contentType: 'image/png', cid: 'logo@acme.test' },
    ]);
    const r = await render(id, 'width=375');
    assert.equal(r.status, 200, await r.clone().text());
    assert.equal(r.headers.get('content-type'), 'image/png');
    assert.equal(r.headers.get('x-render-width'), '375');
    assert.ok(Number(r.headers.get('x-render-blocked')) >= 3, `blocked ${r.headers.get('x-render-blocked')}`);
    const on = decodePng(Buffer.from(await r.arrayBuffer()));
    assert.equal(on.width, 375);
    assert.ok(on.height >= 500, `the whole mail: ${on.height}`);
    assert.deepEqual(pixel(on, 10, 10), [255, 0, 0], 'the inline image is drawn');
    assert.deepEqual(pixel(on, 10, 70), [0, 0, 255], 'the script did not run');
    assert.deepEqual(pixel(on, 200, 10), [255, 255, 255]);

    const off = decodePng(Buffer.from(await (await render(id, 'width=375&images=off')).arrayBuffer()));
    assert.notDeepEqual(pixel(off, 10, 10), [255, 0, 0], 'images=off draws no image');
    const dark = decodePng(Buffer.from(await (await render(id, 'width=375&theme=dark')).arrayBuffer()));
    assert.deepEqual(pixel(dark, 200, 10), [0, 0, 0], 'the mail sees prefers-color-scheme: dark');
    assert.deepEqual(asked, [], 'nothing reached the "remote" server');
  });

  test('bad options are 400; a key of another label prefix gets 404', async () => {
    const id = await mail('small', '<p>hi</p>');
    for (const q of ['width=100', 'width=99999', 'width=abc', 'images=maybe', 'theme=blue']) {
      const r = await render(id, q);
      assert.equal(r.status, 400, q);
      await r.arrayBuffer();
    }
    const other = await mintKey(s, { label: 'o', role: 'member', scope: { labelPrefix: 'zzz-' } });
    const r = await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${id}/render`, { key: other });
    assert.equal(r.status, 404);
    await r.arrayBuffer();
  });

  test('one chromium at a time: with --render-queue 0 a second rendering meanwhile is 503 with Retry-After', async () => {
    const id = await mail('queue', '<p>queue</p>');
    const [a, b] = await Promise.all([render(id, 'width=600'), render(id, 'width=600')]);
    const statuses = [a.status, b.status].sort();
    assert.deepEqual(statuses, [200, 503]);
    const busy = a.status === 503 ? a : b;
    assert.ok(Number(busy.headers.get('retry-after')) >= 1);
    assert.match(((await busy.json()) as Json).detail, /--render-queue/);
    await (a.status === 200 ? a : b).arrayBuffer();
  });

  test('the tool svc_render_message answers an image a model can look at', async () => {
    const id = await mail('tool', '<div style="width:50px;height:50px;background:#00ff00"></div>');
    const mcp = await mcpClient(s.url, s.key);
    try {
      const r = await mcp.callTool({ name: 'svc_render_message', arguments: { inboxId: inbox.inboxId, messageId: id, width: 320 } });
      assert.equal(r.isError, undefined, JSON.stringify(r));
      const [c] = r.content as Array<{ type: string; data: string; mimeType: string }>;
      assert.equal(c!.type, 'image');
      assert.equal(c!.mimeType, 'image/png');
      const png = decodePng(Buffer.from(c!.data, 'base64'));
      assert.equal(png.width, 320);
      assert.deepEqual(pixel(png, 20, 20), [0, 255, 0]);
      const cmp = await mcp.callTool({ name: 'svc_compare_renderings', arguments: { inboxId: inbox.inboxId, messageId: id, with: id } });
      assert.equal((cmp.structuredContent as Json).differentPixels, 0);
    } finally {
      await mcp.close();
    }
  });

  test('two messages compared: the same mail is 0 pixels apart, another is not', async () => {
    const one = await mail('cmp one', '<h1 style="color:#c00">Order 1</h1>');
    const same = await mail('cmp same', '<h1 style="color:#c00">Order 1</h1>');
    const other = await mail('cmp other', '<h1 style="color:#00c">Order 2</h1>');
    const c1 = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${one}/render/compare?with=${same}&width=400`));
    assert.equal(c1.differentPixels, 0);
    assert.equal(c1.a.width, 400);
    const c2 = await json(await s.api(`/v1/inboxes/${inbox.inboxId}/messages/${one}/render/compare?with=${other}&width=400`));
    assert.ok(c2.differentPixels > 0, JSON.stringify(c2));
    assert.ok(c2.ratio > 0 && c2.ratio < 1);
  });
});

test('without --render-chromium the route is 501 not_configured naming the flag', async () => {
  const s = await startTestServer();
  try {
    const box = await json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
    await sendMail(s.server.smtpPort, { to: box.address, subject: 'x', html: '<p>x</p>' });
    const m = await json(await s.api(`/v1/inboxes/${box.inboxId}/wait?timeoutSeconds=10`));
    const r = await s.api(`/v1/inboxes/${box.inboxId}/messages/${m.messageId}/render`);
    assert.equal(r.status, 501);
    assert.match(((await r.json()) as Json).detail, /--render-chromium/);
  } finally {
    await s.stop();
  }
});

test('a --render-chromium that names no executable stops the start (exit 2) saying what to give', async () => {
  await assert.rejects(
    startTestServer(['--render-chromium', '/nonexistent/chromium']),
    /--render-chromium \/nonexistent\/chromium does not exist/,
  );
  await assert.rejects(startTestServer(['--render-chromium', '/tmp']), /--render-chromium \/tmp is not a file/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-render-'));
  const plain = path.join(dir, 'chromium');
  fs.writeFileSync(plain, 'not a program', { mode: 0o644 });
  try {
    await assert.rejects(startTestServer(['--render-chromium', plain]), /--render-chromium \S+ cannot be run \(EACCES\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
