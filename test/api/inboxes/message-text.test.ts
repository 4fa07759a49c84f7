// What a message answer says about its text and its parts (issue 27): HTML-only mail carries the text derived from
// its HTML (`textSource: "html"`), and images the HTML draws through cid: URLs are inline parts, not attachments.
// Real SMTP in, real HTTP and MCP out.
// @cluster
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Json, json } from '../../helpers/http.ts';
import { callOk, mcpClient } from '../../helpers/mcp-tools.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { sendMail } from '../../helpers/smtp.ts';

let s: TestServer;
let mcp: Client;
before(async () => {
  s = await startTestServer();
  mcp = await mcpClient(s.url, s.key);
});
after(async () => {
  await mcp.close();
  await s.stop();
});

const inbox = async (): Promise<Json> => json(await s.api('/v1/inboxes', { method: 'POST', json: {} }), 201);
const waitFor = async (id: string): Promise<Json> => json(await s.api(`/v1/inboxes/${id}/wait?timeoutSeconds=10`));

const INVOICE_HTML = `<html><head><style>td{padding:4px}</style></head><body>
<p>Hello Dana,</p><p>your invoice INV-77:</p>
<table><tr><th>Description</th><th>Qty</th><th>Amount</th></tr>
<tr><td>Consulting</td><td>1</td><td>240.00 EUR</td></tr>
<tr><td>Support hours</td><td>3</td><td>150.00 EUR</td></tr>
<tr><td colspan="2">Total</td><td>390.00 EUR</td></tr></table></body></html>`;
const DERIVED = [
  'Hello Dana,',
  'your invoice INV-77:',
  'Description\tQty\tAmount',
  'Consulting\t1\t240.00 EUR',
  'Support hours\t3\t150.00 EUR',
  'Total\t390.00 EUR',
].join('\n');

describe('text of HTML-only mail', () => {
  test('wait, message detail, MCP wait and the thread snippet carry the derived text, marked "html"', async () => {
    const box = await inbox();
    await sendMail(s.server.smtpPort, { to: box.address, subject: 'Invoice INV-77', html: INVOICE_HTML });
    const waited = await waitFor(box.inboxId);
    assert.equal(waited.text, DERIVED);
    assert.equal(waited.textSource, 'html');
    assert.equal(waited.html.includes('<table>'), true, 'the HTML stays as it was');

    const one = await json(await s.api(`/v1/inboxes/${box.inboxId}/messages/${waited.messageId}`));
    assert.equal(one.text, DERIVED);
    assert.equal(one.textSource, 'html');

    const viaMcp = await callOk(mcp, 'svc_wait_for_message', { inboxId: box.inboxId, timeoutSeconds: 5 });
    assert.equal(viaMcp.text, DERIVED);
    assert.equal(viaMcp.textSource, 'html');

    const threads = await json(await s.api(`/v1/inboxes/${box.inboxId}/threads`));
    assert.match(threads.items[0].snippet, /^Hello Dana, your invoice INV-77: Description Qty Amount Consulting 1 240\.00 EUR/);
  });

  test('a text part is "part" and stays exactly as sent; a message with no body has text null and textSource null', async () => {
    const box = await inbox();
    await sendMail(s.server.smtpPort, { to: box.address, subject: 'both', text: 'the plain part\n', html: '<p>the html part</p>' });
    const both = await waitFor(box.inboxId);
    assert.equal(both.text, 'the plain part\n');
    assert.equal(both.textSource, 'part');

    await sendMail(s.server.smtpPort, { to: box.address, subject: 'empty', text: '' });
    const list = await json(await s.api(`/v1/inboxes/${box.inboxId}/messages`));
    const empty = await json(await s.api(`/v1/inboxes/${box.inboxId}/messages/${list.items[0].messageId}`));
    assert.equal(empty.subject, 'empty');
    assert.equal(empty.text, null);
    assert.equal(empty.textSource, null);
  });

  test('includeBody=false leaves the derived text out, like a text part', async () => {
    const box = await inbox();
    await sendMail(s.server.smtpPort, { to: box.address, subject: 'short', html: '<p>only html</p>' });
    const w = await json(await s.api(`/v1/inboxes/${box.inboxId}/wait?timeoutSeconds=10&includeBody=false`));
    assert.equal(w.text, null);
    assert.equal(w.truncated, true);
  });
});

describe('inline parts', () => {
  // a 1×1 PNG
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

  test('an image the HTML draws via cid: is inline, not counted; a PDF and an undrawn inline image are attachments', async () => {
    const box = await inbox();
    const pdf = crypto.randomBytes(2000);
    await sendMail(s.server.smtpPort, {
      to: box.address,
      subject: 'Your receipt',
      html: '<p><img src="cid:logo@shop.example" alt="Shop"></p><p>Thanks for your order.</p>',
      attachments: [
        { filename: 'logo.png', content: png, contentType: 'image/png', cid: 'logo@shop.example' },
        { filename: 'receipt.pdf', content: pdf, contentType: 'application/pdf' },
        // disposition inline, but the HTML never shows it: a file the sender attached
        { filename: 'photo.png', content: png, contentType: 'image/png', contentDisposition: 'inline', cid: 'photo@shop.example' },
      ],
    });
    const msg = await waitFor(box.inboxId);
    assert.equal(msg.attachmentCount, 2);
    assert.equal(msg.hasAttachments, true);
    const byName = (items: Json[]): Json => Object.fromEntries(items.map((a) => [a.filename, a]));
    const atts = byName(msg.attachments);
    assert.equal(atts['logo.png'].inline, true);
    assert.equal(atts['logo.png'].contentId, 'logo@shop.example');
    assert.equal(atts['receipt.pdf'].inline, false);
    assert.equal(atts['photo.png'].inline, false);
    assert.equal(atts['photo.png'].disposition, 'inline');

    const list = await json(await s.api(`/v1/inboxes/${box.inboxId}/messages`));
    assert.equal(list.items[0].attachmentCount, 2);
    const listed = byName((await json(await s.api(`/v1/inboxes/${box.inboxId}/messages/${msg.messageId}/attachments`))).items);
    assert.deepEqual(
      Object.values(listed)
        .map((a) => [a.filename, a.inline])
        .sort(),
      [
        ['logo.png', true],
        ['photo.png', false],
        ['receipt.pdf', false],
      ],
    );
    const viaMcp = byName((await callOk(mcp, 'svc_list_attachments', { inboxId: box.inboxId, messageId: msg.messageId })).items);
    assert.equal(viaMcp['logo.png'].inline, true);

    // the inline part downloads from its url like any attachment: its bytes, its image type, never rendered as a page
    const logo = atts['logo.png'];
    assert.equal(new URL(logo.url).pathname, `/v1/inboxes/${box.inboxId}/messages/${msg.messageId}/attachments/${logo.attachmentId}`);
    const res = await s.api(new URL(logo.url).pathname);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="logo\.png"/);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), png);
    const meta = await json(await s.api(new URL(logo.url).pathname, { headers: { accept: 'application/json' } }));
    assert.equal(meta.inline, true);
    const viaTool = (await mcp.callTool({
      name: 'svc_get_attachment',
      arguments: { inboxId: box.inboxId, messageId: msg.messageId, attachmentId: logo.attachmentId },
    })) as Json;
    assert.ok(!viaTool.isError, JSON.stringify(viaTool.content));
    const blob = viaTool.content.find((c: Json) => c.type === 'resource')?.resource;
    assert.equal(blob?.mimeType, 'image/png');
    assert.deepEqual(Buffer.from(blob.blob, 'base64'), png);
  });

  test('HTML mail whose only part is its logo has no attachments', async () => {
    const box = await inbox();
    await sendMail(s.server.smtpPort, {
      to: box.address,
      subject: 'Welcome',
      html: '<table><tr><td><img src="cid:Logo.Part@Brand.Example"></td></tr></table><p>Welcome aboard.</p>',
      attachments: [{ filename: 'logo.png', content: png, contentType: 'image/png', cid: 'Logo.Part@Brand.Example' }],
    });
    const msg = await waitFor(box.inboxId);
    assert.equal(msg.attachmentCount, 0);
    assert.equal(msg.hasAttachments, false);
    assert.equal(msg.attachments.length, 1);
    assert.equal(msg.attachments[0].inline, true);
    const found = await json(await s.api(`/v1/inboxes/${box.inboxId}/search?q=${encodeURIComponent('has:attachment')}`));
    assert.equal(found.items.length, 0, 'has:attachment leaves out mail whose only part is inline');
  });
});
