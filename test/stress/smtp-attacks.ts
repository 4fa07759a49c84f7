// Hostile SMTP clients, each one a function that runs against a port for a while and reports what the server said.
// Attackers connect from other loopback addresses (127.0.0.2 …) than the well-behaved probe (127.0.0.1), as they
// would from other hosts; the per-address connection limit is part of what is being tested.
import crypto from 'node:crypto';
import { RawSmtp, sleep } from './lib.ts';

export interface AttackResult {
  name: string;
  detail: string;
}

/** Resolves on drain, close or after `ms`, and removes its listeners either way. */
function drained(socket: RawSmtp['socket'], ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    socket.once('drain', done);
    socket.once('close', done);
  });
}

async function openMany(port: number, n: number, localAddress: string): Promise<RawSmtp[]> {
  const out: RawSmtp[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, () => new RawSmtp(port, { localAddress }));
    await Promise.all(batch.map((s) => s.reply(5000)));
    out.push(...batch);
  }
  return out;
}

/** `n` connections that say nothing after the greeting and are held for `holdMs`. */
export async function idleConnections(port: number, n: number, holdMs: number, addresses: string[]): Promise<AttackResult> {
  const per = Math.ceil(n / addresses.length);
  const all = (await Promise.all(addresses.map((a) => openMany(port, per, a)))).flat().slice(0, n);
  await sleep(holdMs);
  const refused = all.filter((s) => s.lines[0]?.startsWith('421')).length;
  const open = all.filter((s) => !s.closed).length;
  for (const s of all) s.destroy();
  return {
    name: 'idle connections',
    detail: `${all.length} opened from ${addresses.length} address(es): ${all.length - refused} greeted, ${refused} refused with 421, ${open} still open after ${holdMs} ms`,
  };
}

/** Slowloris: `n` connections that send a command one byte per `everyMs`. */
export async function slowloris(port: number, n: number, durationMs: number, localAddress: string, everyMs = 1000): Promise<AttackResult> {
  const conns = await openMany(port, n, localAddress);
  const text = 'EHLO slowloris.example.com.that.never.finishes.its.line.' + 'a'.repeat(10_000);
  const t0 = Date.now();
  let sent = 0;
  for (let i = 0; Date.now() - t0 < durationMs; i++) {
    for (const c of conns) if (c.write(text[i % text.length]!)) sent++;
    await sleep(everyMs);
  }
  const open = conns.filter((s) => !s.closed).length;
  for (const c of conns) c.destroy();
  return {
    name: 'slowloris',
    detail: `${n} connections at one byte per ${everyMs} ms for ${durationMs} ms (${sent} bytes); ${open} still open at the end`,
  };
}

/** One transaction with `n` RCPT commands pipelined in one write. */
export async function manyRecipients(port: number, n: number, address: (i: number) => string, localAddress: string): Promise<AttackResult> {
  const s = new RawSmtp(port, { localAddress });
  await s.reply();
  await s.cmd('EHLO rcpt.example');
  await s.cmd('MAIL FROM:<flood@example.com>');
  const before = s.lines.length;
  let out = '';
  for (let i = 0; i < n; i++) out += `RCPT TO:<${address(i)}>\r\n`;
  s.write(out);
  const t0 = Date.now();
  while (s.lines.length - before < n && !s.closed && Date.now() - t0 < 60_000) await sleep(20);
  const replies = s.lines.slice(before);
  const ok = replies.filter((l) => l.startsWith('250')).length;
  const tooMany = replies.filter((l) => l.startsWith('452')).length;
  s.destroy();
  return {
    name: `${n} RCPTs`,
    detail: `${replies.length} replies in ${Date.now() - t0} ms: ${ok} accepted, ${tooMany} refused 452 (too many recipients)${s.closed ? ', connection closed' : ''}`,
  };
}

/** Garbage commands pipelined in one write. */
export async function pipelinedGarbage(port: number, lines: number, localAddress: string): Promise<AttackResult> {
  const s = new RawSmtp(port, { localAddress });
  await s.reply();
  let out = '';
  for (let i = 0; i < lines; i++) out += `XGARBAGE ${crypto.randomBytes(16).toString('hex')}\r\n`;
  s.write(out);
  const t0 = Date.now();
  while (!s.closed && Date.now() - t0 < 10_000) await sleep(20);
  const last = s.lines.at(-1) ?? '';
  s.destroy();
  return {
    name: 'pipelined garbage',
    detail: `${lines} garbage lines: ${s.lines.length - 1} replies, last "${last.slice(0, 60)}", closed by the server: ${s.closed}`,
  };
}

/** A command line of `bytes` bytes (no line end until the very end). */
export async function hugeCommandLine(port: number, bytes: number, localAddress: string): Promise<AttackResult> {
  const s = new RawSmtp(port, { localAddress });
  await s.reply();
  const chunk = Buffer.alloc(64 * 1024, 'A');
  for (let sent = 0; sent < bytes && !s.closed; sent += chunk.length) {
    if (!s.write(chunk)) await drained(s.socket, 10_000);
  }
  s.write('\r\n');
  const t0 = Date.now();
  while (!s.closed && Date.now() - t0 < 10_000) await sleep(20);
  const replies = s.lines.slice(1).map((l) => l.slice(0, 50));
  s.destroy();
  return {
    name: '1 MB command line',
    detail: `${bytes} bytes on one line: replies ${JSON.stringify(replies.slice(0, 3))}, closed by the server: ${s.closed}`,
  };
}

/** Random bytes (CR and LF among them) instead of SMTP. */
export async function binaryJunk(port: number, bytes: number, localAddress: string): Promise<AttackResult> {
  const s = new RawSmtp(port, { localAddress });
  await s.reply();
  s.write(crypto.randomBytes(bytes));
  const t0 = Date.now();
  while (!s.closed && Date.now() - t0 < 10_000) await sleep(20);
  const n = s.lines.length - 1;
  s.destroy();
  return { name: 'binary junk', detail: `${bytes} random bytes: ${n} replies, closed by the server: ${s.closed}` };
}

/** `n` connections that start DATA and send `bytes` each without ever ending it, held for `holdMs`. */
export async function dataWithoutEnd(
  port: number,
  n: number,
  bytes: number,
  to: string,
  holdMs: number,
  localAddress: string,
  rss: () => number,
): Promise<AttackResult> {
  const conns = await openMany(port, n, localAddress);
  for (const s of conns) {
    await s.cmd('EHLO data.example');
    await s.cmd('MAIL FROM:<data@example.com>');
    await s.cmd(`RCPT TO:<${to}>`);
    await s.cmd('DATA');
  }
  const line = Buffer.from(`${'D'.repeat(998)}\r\n`);
  const block = Buffer.concat(Array.from({ length: 64 }, () => line));
  let written = 0;
  await Promise.all(
    conns.map(async (s) => {
      for (let sent = 0; sent < bytes && !s.closed; sent += block.length) {
        written += block.length;
        if (!s.write(block)) {
          // The server may pause us (memory budget): give up on this one after a while instead of waiting forever.
          await drained(s.socket, 5000);
        }
      }
    }),
  );
  let peak = rss();
  const t0 = Date.now();
  while (Date.now() - t0 < holdMs) {
    peak = Math.max(peak, rss());
    await sleep(100);
  }
  const open = conns.filter((s) => !s.closed).length;
  // A stream paused by the server's DATA memory budget makes no progress, so the idle timeout (60 s) closes it.
  const timedOut = conns.filter((s) => s.lines.some((l) => /^421 .*Timeout/i.test(l))).length;
  for (const s of conns) s.destroy();
  return {
    name: 'DATA without end',
    detail: `${n} connections × ${Math.round(bytes / 1048576)} MB of DATA never ended (${Math.round(written / 1048576)} MB written by the clients); server RSS peak ${peak} MB; after ${holdMs} ms ${open} still open, ${timedOut} closed by the server's idle timeout`,
  };
}

/** Connect-and-drop as fast as possible: `total` connections, `parallel` at a time. */
export async function connectionFlood(port: number, total: number, parallel: number, localAddress: string): Promise<AttackResult> {
  let done = 0;
  let refused = 0;
  const t0 = Date.now();
  while (done < total) {
    const batch = Array.from({ length: Math.min(parallel, total - done) }, () => new RawSmtp(port, { localAddress }));
    const greetings = await Promise.all(batch.map((s) => s.reply(5000)));
    refused += greetings.filter((g) => g.startsWith('421')).length;
    for (const s of batch) s.destroy();
    done += batch.length;
  }
  return {
    name: 'connection flood',
    detail: `${total} connect/drop in ${Date.now() - t0} ms (${parallel} at a time), ${refused} refused with 421`,
  };
}
