// Real SMTP clients for tests: nodemailer for ordinary mail, and a raw socket dialogue for protocol edge cases.
import net from 'node:net';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';

export function transport(port: number) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    pool: false,
    tls: { rejectUnauthorized: false },
  });
}

export async function sendMail(
  port: number,
  mail: Mail.Options,
): Promise<{ response: string; messageId: string; accepted: unknown[]; rejected: unknown[] }> {
  const t = transport(port);
  try {
    return (await t.sendMail({ from: 'Sender <sender@example.com>', ...mail })) as never;
  } finally {
    t.close();
  }
}

/** Sends exactly these bytes as the message (dot-stuffing done here), for malformed-input tests. */
export async function sendRaw(
  port: number,
  raw: Buffer | string,
  to: string | string[],
  from = 'sender@example.com',
): Promise<{ response: string }> {
  return sendMail(port, { envelope: { from, to }, raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw) } as Mail.Options);
}

/**
 * A scripted SMTP dialogue: sends each line, returns every reply line read. Each step waits for a complete reply
 * (a line whose 4th character is a space).
 */
export async function smtpDialogue(port: number, lines: Array<string | Buffer>, opts: { timeoutMs?: number } = {}): Promise<string[]> {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  const replies: string[] = [];
  let buf = '';
  let waiter: (() => void) | null = null;
  socket.on('data', (d) => {
    buf += d.toString('latin1');
    let i: number;
    while ((i = buf.indexOf('\r\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 2);
      replies.push(line);
      if (line[3] === ' ' && waiter) {
        const w = waiter;
        waiter = null;
        w();
      }
    }
  });
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  const nextReply = () =>
    new Promise<void>((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`no SMTP reply within ${opts.timeoutMs ?? 5000} ms; got ${JSON.stringify(replies)}`)),
        opts.timeoutMs ?? 5000,
      );
      waiter = () => {
        clearTimeout(t);
        resolve();
      };
    });
  try {
    await nextReply(); // greeting
    for (const l of lines) {
      const p = nextReply();
      socket.write(typeof l === 'string' ? l + '\r\n' : l);
      await p;
    }
  } finally {
    socket.end();
    socket.destroy();
    await closed;
  }
  return replies;
}
