// Issue #25, caller schemas at full size against a real server (default flags): the reported ReDoS pattern on a
// subject of 40 a's and a '!' sent by many requests at once, 30 nested $ref/anyOf levels, a wide $ref fan-out,
// self- and mutual references, and the largest union the checks accept. /health is polled throughout and must
// answer every time within 500 ms; every refusal comes within 500 ms, every budgeted answer within its budget plus
// the queue; the server's RSS stays under 1 GB. Prints one JSON line of figures (docs/benchmarks.md).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createInbox, deliver, killAll, listAll, sleep, startChild } from './lib.ts';

after(killAll);

function chain(levels: number, width: number): Record<string, unknown> {
  const defs: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) defs[`l${i}`] = { anyOf: Array.from({ length: width }, () => ({ $ref: `#/$defs/l${i + 1}` })) };
  defs[`l${levels}`] = { type: 'integer' };
  return { $ref: '#/$defs/l0', $defs: defs };
}

test('hostile extraction schemas at full size: /health within 500 ms throughout, RSS under 1 GB', { timeout: 180_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inboxd-schemas-stress-'));
  const srv = await startChild(dir);
  let polling = true;
  try {
    const inbox = await createInbox(srv);
    const subject = `${'a'.repeat(40)}!`;
    const sent = await deliver(
      srv.smtp,
      inbox.address,
      `From: Shop <shop@example.com>\nSubject: ${subject}\n\nYour order\nTotal 12.00 EUR\n`,
    );
    assert.match(sent.reply, /^250/);
    let messageId = '';
    for (let i = 0; i < 100 && !messageId; i++) {
      messageId = (await listAll(srv, inbox.inboxId))[0]?.messageId ?? '';
      if (!messageId) await sleep(50);
    }
    assert.ok(messageId, 'the message arrived');
    const extract = async (schema: unknown) => {
      const t0 = performance.now();
      const r = await srv
        .api(`/v1/inboxes/${inbox.inboxId}/messages/${messageId}/extract`, {
          method: 'POST',
          json: { schema, engine: 'builtin' },
        })
        .catch((e: Error) => {
          throw new Error(
            `extract ${JSON.stringify(schema).slice(0, 80)} after ${Math.round(performance.now() - t0)} ms: ${e.message} ${String(e.cause)}`,
          );
        });
      const body = (await r.json()) as { code?: string; detail?: string; errors?: Array<{ path: string }> };
      return { status: r.status, body, ms: performance.now() - t0 };
    };

    const health: number[] = [];
    const healthFailures: string[] = [];
    let rssMax = 0;
    const poller = (async () => {
      while (polling) {
        const t0 = performance.now();
        try {
          const r = await srv.api('/health');
          await r.arrayBuffer();
          if (r.status !== 200) healthFailures.push(`HTTP ${r.status}`);
        } catch (e) {
          if (polling) healthFailures.push((e as Error).message);
        }
        health.push(performance.now() - t0);
        rssMax = Math.max(rssMax, srv.rssMb());
        await sleep(50);
      }
    })();

    // 1. The reported ReDoS, 16 requests at once (a quarter of the default queue, one team's share).
    const redos = { type: 'object', properties: { subject: { type: ['string', 'null'], pattern: '^(a+)+$' } } };
    const t0 = performance.now();
    const redosAnswers = await Promise.all(Array.from({ length: 16 }, () => extract(redos)));
    const redosWall = performance.now() - t0;
    for (const a of redosAnswers) {
      assert.ok(a.status === 422 || a.status === 503, JSON.stringify(a));
      if (a.status === 422) assert.match(a.body.detail!, /schema\/properties\/subject\/pattern/);
    }
    assert.ok(
      redosAnswers.some((a) => a.status === 422),
      'at least one ran and was stopped',
    );

    // 2. Refused at submission, each within 500 ms.
    const refusals: Array<[string, unknown, RegExp]> = [
      ['30 nested $ref/anyOf levels', chain(30, 2), /nested deeper than 8 levels/],
      ['6 levels of 10 $refs each', chain(6, 10), /expands to more than 2000 subschemas/],
      ['self-reference', { $ref: '#' }, /\$ref cycle/],
      [
        'mutual reference',
        { $defs: { a: { $ref: '#/$defs/b' }, b: { anyOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' },
        /\$ref cycle/,
      ],
    ];
    const refusalMs: Record<string, number> = {};
    for (const [name, schema, detail] of refusals) {
      const a = await extract(schema);
      assert.equal(a.status, 400, `${name}: ${JSON.stringify(a.body)}`);
      assert.match(a.body.detail!, detail, name);
      assert.match(a.body.errors![0]!.path, /^schema\//, name);
      assert.ok(a.ms < 500, `${name} answered after ${Math.round(a.ms)} ms`);
      refusalMs[name] = Math.round(a.ms);
    }

    // 3. About the largest union the checks accept (9^3 = 729 alternatives, 1,640 subschemas expanded) answers quickly.
    const widest = await extract(chain(3, 9));
    assert.ok(widest.status === 200 || widest.status === 422, JSON.stringify(widest.body));
    assert.ok(widest.ms < 2000, `the widest accepted union answered after ${Math.round(widest.ms)} ms`);

    polling = false;
    await poller;
    const worst = Math.max(...health);
    console.log(
      JSON.stringify({
        redos: {
          requests: redosAnswers.length,
          answered422: redosAnswers.filter((a) => a.status === 422).length,
          answered503: redosAnswers.filter((a) => a.status === 503).length,
          slowestMs: Math.round(Math.max(...redosAnswers.map((a) => a.ms))),
          wallMs: Math.round(redosWall),
        },
        refusalMs,
        widestUnion: { status: widest.status, ms: Math.round(widest.ms) },
        health: { polls: health.length, maxMs: Math.round(worst) },
        rssMaxMb: rssMax,
      }),
    );
    assert.deepEqual(healthFailures, []);
    assert.ok(health.length >= 20, `/health polled ${health.length} times`);
    assert.ok(worst <= 500, `slowest /health ${Math.round(worst)} ms`);
    assert.ok(rssMax < 1024, `RSS ${rssMax} MB`);
  } catch (e) {
    console.log(e, srv.logs.join('').slice(-2000));
    throw e;
  } finally {
    polling = false;
    await srv.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
