// A real SMTP relay on loopback for outbound tests: smtp-server with STARTTLS offered (its built-in certificate),
// recording every message it acknowledged. It can refuse recipients, and hold its answers to DATA until told.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  secure: boolean;
}

export interface TestRelay {
  port: number;
  url: string;
  /** Messages acknowledged with 250, in order. */
  received: Received[];
  /** RCPT answers: return e.g. `550 5.1.1 no such user` (or `451 …`) to refuse an address, null to take it. */
  refuse: (rcpt: string) => string | null;
  /** While true, answers to DATA wait until release(). */
  hold: boolean;
  /** How many DATA answers are held right now. */
  held(): number;
  /** Answers every held DATA with 250 (they then count as received). */
  release(): void;
  /** Forgets every held DATA without acknowledging it (the sender died meanwhile): it never counts as received. */
  discard(): void;
  /** Resolves when `n` messages are held. */
  whenHeld(n: number): Promise<void>;
  /** Resolves when `n` messages were acknowledged. */
  whenReceived(n: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRelay(port = 0): Promise<TestRelay> {
  const waiting: Array<{ msg: Received; done: (e?: Error | null) => void }> = [];
  const watchers: Array<() => void> = [];
  const notify = () => {
    for (const w of [...watchers]) w();
  };
  const r: TestRelay = {
    port: 0,
    url: '',
    received: [],
    refuse: () => null,
    hold: false,
    held: () => waiting.length,
    release() {
      for (const w of waiting.splice(0)) {
        r.received.push(w.msg);
        w.done();
      }
      notify();
    },
    discard() {
      for (const w of waiting.splice(0)) w.done(Object.assign(new Error('discarded'), { responseCode: 451 }));
    },
    whenHeld: (n) => until(() => waiting.length >= n),
    whenReceived: (n) => until(() => r.received.length >= n),
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
  function until(cond: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      if (cond()) return resolve();
      const w = () => {
        if (!cond()) return;
        watchers.splice(watchers.indexOf(w), 1);
        resolve();
      };
      watchers.push(w);
    });
  }
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, cb) {
      const refusal = r.refuse(address.address);
      if (!refusal) return cb();
      const err = new Error(refusal.replace(/^\d{3}\s*/, '')) as Error & { responseCode: number };
      err.responseCode = Number(refusal.slice(0, 3));
      cb(err);
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const msg: Received = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((t) => t.address),
          raw: Buffer.concat(chunks),
          secure: session.secure,
        };
        if (r.hold) {
          waiting.push({ msg, done: cb });
          notify();
          return;
        }
        r.received.push(msg);
        cb();
        notify();
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((res) => server.listen(port, '127.0.0.1', () => res()));
  r.port = (server.server.address() as AddressInfo).port;
  r.url = `smtp://127.0.0.1:${r.port}`;
  return r;
}
