// A SpamAssassin daemon client (SPAMC/1.5, the protocol spamc speaks): `REPORT` with the raw message, then the
// verdict header (`Spam: True ; 16.5 / 5.0`) and the report's rule table. Bounded: the reply is read up to 256 KiB,
// the whole exchange has a time limit, and an abort closes the socket.
import net from 'node:net';

export interface EngineRule {
  name: string;
  score: number;
  description: string;
}

export interface EngineVerdict {
  engine: 'spamd' | 'rspamd';
  isSpam: boolean;
  score: number;
  /** The engine's own threshold (spamd: required_score of the user's config; rspamd: see rspamd.ts). */
  threshold: number;
  action?: string;
  rules: EngineRule[];
}

export class EngineUnavailable extends Error {}

const MAX_REPLY = 256 * 1024;

export function parseHostPort(s: string, defaultPort: number): { host: string; port: number } | null {
  const m = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i.exec(s.trim()) ?? /^([^:\s]+)(?::(\d{1,5}))?$/.exec(s.trim());
  if (!m) return null;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  return port >= 1 && port <= 65535 ? { host: m[1]!, port } : null;
}

export async function spamdReport(
  raw: Buffer,
  opts: { host: string; port: number; timeoutMs: number; signal: AbortSignal },
): Promise<EngineVerdict> {
  const where = `spamd at ${opts.host}:${opts.port} (--spamd)`;
  const reply = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = net.connect({ host: opts.host, port: opts.port });
    const fail = (why: string) => {
      done();
      socket.destroy();
      reject(new EngineUnavailable(`${where} ${why}`));
    };
    const timer = setTimeout(() => fail(`did not answer within ${opts.timeoutMs} ms (--spam-timeout-ms)`), opts.timeoutMs);
    const onAbort = () => fail('was not asked: the check was cancelled');
    opts.signal.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
    };
    socket.on('connect', () => {
      socket.write(`REPORT SPAMC/1.5\r\nContent-length: ${raw.length}\r\n\r\n`);
      socket.end(raw);
    });
    socket.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REPLY) return fail(`answered more than ${MAX_REPLY} bytes`);
      chunks.push(c);
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      fail(`could not be reached (${e.code ?? e.message}); start spamd there or leave --spamd unset for the built-in lint`);
    });
    socket.on('end', () => {
      done();
      resolve(Buffer.concat(chunks));
    });
  });
  return parseSpamdReply(reply.toString('utf8'), where);
}

/** `SPAMD/1.1 0 EX_OK`, headers, blank line, the report. */
export function parseSpamdReply(text: string, where = 'spamd'): EngineVerdict {
  const headEnd = text.indexOf('\r\n\r\n');
  const head = headEnd >= 0 ? text.slice(0, headEnd) : text;
  const body = headEnd >= 0 ? text.slice(headEnd + 4) : '';
  const status = /^SPAMD\/[\d.]+\s+(\d+)\s*(.*)$/m.exec(head);
  if (!status) throw new EngineUnavailable(`${where} did not answer in the SPAMC protocol: ${JSON.stringify(head.slice(0, 80))}`);
  if (status[1] !== '0') throw new EngineUnavailable(`${where} refused the message: ${status[1]} ${status[2]}`);
  const verdict = /^Spam:\s*(True|False|Yes|No)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/im.exec(head);
  if (!verdict) throw new EngineUnavailable(`${where} answered without a Spam: header`);
  return {
    engine: 'spamd',
    isSpam: /^(true|yes)$/i.test(verdict[1]!),
    score: Number(verdict[2]),
    threshold: Number(verdict[3]),
    rules: parseReportTable(body),
  };
}

/** The rule table of a SpamAssassin report: ` 2.7 MISSING_DATE  Missing Date: header` (descriptions may wrap). */
export function parseReportTable(report: string): EngineRule[] {
  const lines = report.split(/\r?\n/);
  const start = lines.findIndex((l) => /^-+ -+ -+/.test(l.trim()));
  if (start < 0) return [];
  const rules: EngineRule[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s*(.*)$/.exec(line);
    if (m) rules.push({ score: Number(m[1]), name: m[2]!, description: m[3]!.trim() });
    else if (/^\s{10,}\S/.test(line) && rules.length > 0) {
      const last = rules[rules.length - 1]!;
      last.description = `${last.description} ${line.trim()}`.trim();
    } else if (line.trim() === '') break;
  }
  return rules;
}
