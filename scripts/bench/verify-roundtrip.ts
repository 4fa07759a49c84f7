// Time from SMTP end-of-DATA to the verify (and open) response carrying the extracted code, with the caller
// already waiting — the latency an agent or CI run sees after the service sends its mail.
//   node scripts/bench/verify-roundtrip.ts [--rounds 300] [--source]
import { parseArgs } from 'node:util';
import { percentile, report, SmtpSession, startInboxd } from './lib.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '300' }, source: { type: 'boolean', default: false } } });
const rounds = Number(values.rounds);
const srv = await startInboxd([], { source: values.source });
const f = (x: number) => Math.round(x * 100) / 100;
try {
  const smtp = await SmtpSession.open(srv.smtp);
  const results: Record<string, number[]> = { verify: [], open: [] };
  for (let n = 0; n < rounds; n++) {
    const kind = n % 2 === 0 ? 'verify' : 'open';
    const code = String(100000 + n);
    let pending: Promise<Response>;
    let address: string;
    if (kind === 'verify') {
      const created = (await (await srv.api('/v1/agent/verify', { method: 'POST', json: { service: 'github' } })).json()) as {
        email: { inboxId: string; address: string };
      };
      address = created.email.address;
      pending = srv.api('/v1/agent/verify', {
        method: 'POST',
        json: { inboxId: created.email.inboxId, service: 'github', timeoutSeconds: 30, deleteAfter: true },
      });
    } else {
      address = `open-${n}@inboxd.test`;
      pending = srv.api('/v1/inboxes/open', { method: 'POST', json: { localPart: `open-${n}`, service: 'github', timeoutSeconds: 30 } });
    }
    await new Promise((r) => setTimeout(r, 5)); // the request is waiting before the mail lands
    const body = `From: GitHub <noreply@github.com>\nSubject: [GitHub] Please verify your device\n\nVerification code: ${code}\n\nIf you did not try to sign in, change your password.\n`;
    const { reply, endOfData } = await smtp.send('noreply@github.com', address, body);
    if (!reply.startsWith('250')) throw new Error(`SMTP: ${reply}`);
    const res = await pending;
    const done = performance.now();
    const j = (await res.json()) as { verification?: { otp: string } };
    if (j.verification?.otp !== code) throw new Error(`${kind}: expected ${code}, got ${JSON.stringify(j).slice(0, 200)}`);
    results[kind]!.push(done - endOfData);
  }
  smtp.close();
  const figures: Record<string, unknown> = { kind: srv.kind, rounds };
  const lines: string[] = [];
  for (const [k, v] of Object.entries(results)) {
    v.sort((a, b) => a - b);
    figures[k] = { p50ms: f(percentile(v, 50)), p99ms: f(percentile(v, 99)), maxMs: f(v.at(-1)!) };
    lines.push(
      `verify-roundtrip (${srv.kind}) ${k}: end-of-DATA → response with the code: p50 ${f(percentile(v, 50))} ms, p99 ${f(percentile(v, 99))} ms over ${v.length} rounds`,
    );
  }
  report('verify-roundtrip', figures, lines);
} finally {
  await srv.stop();
}
