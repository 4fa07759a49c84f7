// Message checks (issue 28): each static check's time on a ~100 KB HTML mail (in process, the work a sandbox worker
// does; and end to end through POST /v1/checks), and the SMTP acknowledgement rate with checks on arrival against
// without, in the same server run (alternating rounds into an inbox with checks and one without).
//   node scripts/bench/checks.ts [--runs 30] [--messages 300] [--connections 8] [--rounds 5] [--source]
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import { CheckEngine } from '../../src/checks/engine.ts';
import { PURE_CHECKS } from '../../src/checks/pure.ts';
import { PURE_CHECK_NAMES } from '../../src/checks/registry.ts';
import { parseMessage } from '../../src/mail/parse.ts';
import { machine, report, startInboxd } from './lib.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    messages: { type: 'string', default: '300' },
    connections: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '5' },
    source: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const messages = Number(values.messages);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

/** A transactional-looking mail: nested layout tables, inline styles, images, links; ~100 KB of HTML. */
export function bigHtml(targetBytes = 100 * 1024): string {
  const rows: string[] = [];
  let i = 0;
  let size = 0;
  while (size < targetBytes - 600) {
    const row = `<tr><td style="padding:8px 16px;font-family:Arial,sans-serif;font-size:14px;color:#333333;background-color:#ffffff" class="item">
<table width="100%" cellpadding="0" cellspacing="0" border="0"><tr><td width="64"><img src="https://shop.example/p/${i}.png" width="64" height="64" alt="Product ${i}"></td>
<td style="padding-left:12px"><h3 style="margin:0;font-size:16px">Item number ${i}: a sturdy thing</h3><p style="margin:4px 0">Qty 1 · €${(i * 3.7).toFixed(2)} · ships in ${i % 5} days</p>
<a href="https://shop.example/orders/1234/items/${i}?utm_source=mail&amp;utm_medium=email" style="color:#1a73e8">View item ${i}</a></td></tr></table></td></tr>\n`;
    rows.push(row);
    size += row.length;
    i++;
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your order</title>
<style>.item{border-bottom:1px solid #eee}@media (max-width:600px){.item{padding:4px}}</style></head>
<body style="margin:0;background:#f4f4f4"><table role="presentation" width="600" align="center" cellpadding="0" cellspacing="0">
<tr><td><h1 style="font-size:22px">Thanks for your order</h1></td></tr>
${rows.join('')}<tr><td><p>Questions? <a href="https://shop.example/help">Contact support</a></p></td></tr></table></body></html>`;
}

const html = bigHtml();
const text = 'Thanks for your order. View it at https://shop.example/orders/1234. Contact support: https://shop.example/help';
const raw = Buffer.from(
  `From: shop@shop.example\r\nTo: you@bench.test\r\nSubject: Your order\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}\r\n--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n--b--\r\n`,
);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;
const r1 = (x: number) => Math.round(x * 10) / 10;

// 1. Each check in process (what one sandbox job computes), median of `runs` after a warm-up. Every run gets its own
// variant of the mail (a comment before </body>), so each one parses the HTML: the per-thread parse memo of
// src/checks/dom.ts only helps checks of the same message, as in "together" below.
const engine = new CheckEngine({ checks: PURE_CHECKS, pure: PURE_CHECK_NAMES, timeoutMs: 60_000 });
const OPTS = { clients: [], links: { mode: 'static' as const, includeVerificationLinks: false } };
let variant = 0;
const cutAt = raw.lastIndexOf('</body>');
const fresh = async () => {
  const v = Buffer.concat([raw.subarray(0, cutAt), Buffer.from(`<!-- v${variant++} -->`), raw.subarray(cutAt)]);
  return { messageId: null, raw: v, parsed: await parseMessage(v), facts: null, options: OPTS };
};
const perCheck: Record<string, { medianMs: number; p95Ms: number; findings: number }> = {};
for (const def of PURE_CHECKS) {
  for (let w = 0; w < 5; w++) await engine.run(await fresh(), [def.name], new AbortController().signal);
  const times: number[] = [];
  let findings = 0;
  for (let k = 0; k < runs; k++) {
    const input = await fresh();
    const t0 = performance.now();
    const r = await engine.run(input, [def.name], new AbortController().signal);
    times.push(performance.now() - t0);
    findings = r.checks[def.name]!.findings.length;
  }
  perCheck[def.name] = { medianMs: r1(median(times)), p95Ms: r1(p95(times)), findings };
}
// All three over one message in one thread (one HTML parse shared), as a sandbox worker does when it runs them all.
const together: number[] = [];
for (let k = 0; k < runs; k++) {
  const input = await fresh();
  const t0 = performance.now();
  for (const def of PURE_CHECKS) await engine.run(input, [def.name], new AbortController().signal);
  together.push(performance.now() - t0);
}

const srv = await startInboxd([], { source: values.source });
try {
  // 2. End to end: POST /v1/checks with the .eml (HTTP, parse, the three sandbox jobs in parallel, the answer).
  const e2e: number[] = [];
  for (let k = 0; k < runs + 3; k++) {
    const t0 = performance.now();
    const res = await srv.api('/v1/checks', { method: 'POST', body: raw, headers: { 'content-type': 'message/rfc822' } });
    if (res.status !== 200) throw new Error(`POST /v1/checks answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    if (k >= 3) e2e.push(performance.now() - t0);
  }

  // 3. Acknowledgement rate into an inbox with on-arrival checks and one without, alternating rounds.
  const mk = async (body: Record<string, unknown>) =>
    (await (await srv.api('/v1/inboxes', { method: 'POST', json: { ttlMinutes: 120, ...body } })).json()) as {
      inboxId: string;
      address: string;
    };
  const plain = await mk({ localPart: 'plain' });
  const checked = await mk({ localPart: 'checked', checks: ['html', 'a11y', 'text'] });
  let seq = 0;
  const send = async (to: string, n: number): Promise<number> => {
    const t = nodemailer.createTransport({
      host: '127.0.0.1',
      port: srv.smtp,
      pool: true,
      maxConnections: connections,
      maxMessages: Infinity,
      ignoreTLS: true,
    });
    const t0 = performance.now();
    // Each message its own bytes (a header and a line of the HTML), so no check report comes from the cache.
    const cut = raw.lastIndexOf('</body>');
    const one = () => {
      const id = `${Date.now()}.${seq++}`;
      return Buffer.concat([Buffer.from(`X-Bench-Seq: ${id}\r\n`), raw.subarray(0, cut), Buffer.from(`<!-- ${id} -->`), raw.subarray(cut)]);
    };
    await Promise.all(Array.from({ length: n }, () => t.sendMail({ envelope: { from: 'shop@shop.example', to }, raw: one() })));
    const s = (performance.now() - t0) / 1000;
    t.close();
    return n / s;
  };
  await send(plain.address, 50); // warm-up
  await send(checked.address, 50);
  const rate = { without: [] as number[], with: [] as number[] };
  for (let k = 0; k < rounds; k++) {
    rate.without.push(await send(plain.address, messages));
    rate.with.push(await send(checked.address, messages));
  }
  // How long the background checks took to catch up after the last round (they never hold an acknowledgement).
  const t0 = performance.now();
  let checkedCount = 0;
  for (;;) {
    const page = (await (await srv.api(`/v1/inboxes/${checked.inboxId}/messages?limit=1`)).json()) as {
      items: Array<{ messageId: string }>;
    };
    const last = page.items[0]!.messageId;
    const r = await srv.api(`/v1/inboxes/${checked.inboxId}/messages/${last}/checks`);
    await r.arrayBuffer();
    if (r.status === 200 || performance.now() - t0 > 300_000) {
      checkedCount = r.status === 200 ? 1 : 0;
      break;
    }
    await new Promise((res) => setTimeout(res, 200));
  }
  const catchUpS = Math.round((performance.now() - t0) / 100) / 10;
  const without = median(rate.without);
  const withChecks = median(rate.with);
  const drop = Math.round((1 - withChecks / without) * 1000) / 10;
  const sum = Object.values(perCheck).reduce((a, c) => a + c.medianMs, 0);
  report(
    'checks',
    {
      machine: machine(),
      htmlBytes: Buffer.byteLength(html),
      rawBytes: raw.length,
      perCheck,
      staticTogetherMedianMs: r1(median(together)),
      sumOfMediansMs: r1(sum),
      endToEndMedianMs: r1(median(e2e)),
      endToEndP95Ms: r1(p95(e2e)),
      ackPerSecond: { without: rate.without.map(Math.round), with: rate.with.map(Math.round) },
      ackDropPercent: drop,
      lastMessageCheckedAfterS: catchUpS,
      lastMessageChecked: checkedCount === 1,
      connections,
      messages,
      rounds,
    },
    [
      `checks on a ${Math.round(Buffer.byteLength(html) / 1024)} KB HTML mail (median of ${runs}, in process):`,
      ...Object.entries(perCheck).map(([n, c]) => `  ${n.padEnd(6)} ${c.medianMs} ms (p95 ${c.p95Ms}), ${c.findings} findings`),
      `  all static checks of one message in one thread (one HTML parse): ${r1(median(together))} ms; POST /v1/checks end to end: ${r1(median(e2e))} ms (p95 ${r1(p95(e2e))})`,
      `SMTP acks, ${connections} connections × ${messages} messages of ${Math.round(raw.length / 1024)} KB, ${rounds} alternating rounds:`,
      `  without checks ${rate.without.map(Math.round).join(', ')} msg/s · with checks on arrival ${rate.with.map(Math.round).join(', ')} msg/s → ${drop}% drop (medians)`,
      `  the background checks finished the last message ${catchUpS} s after its round ended`,
    ],
  );
} finally {
  await srv.stop();
}
