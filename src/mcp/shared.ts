// Tool results shared by many calls (a woken wait). The SDK serialises every JSON-RPC message itself
// (JSON.stringify, then TextEncoder), once per call: a thousand waiters on one large message would each hold a copy
// of it, escaped twice over (the JSON text inside a JSON string). So a shared result leaves the tool as two short
// placeholders, the SDK serialises that small message, and the bytes on their way to this request's socket get the
// placeholders replaced by the answer's one encoding (and the one quoted copy of it for the text block): every
// call writes the same Buffers. The placeholders waiting for their response belong to the server's MCP endpoint
// (one SharedResults each, made in src/mcp/endpoint.ts), never to the module.
import crypto from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A placeholder nobody wrote out (the client went away) is forgotten after this. */
const FORGET_MS = 60_000;

interface Pending {
  bytes: Buffer;
  /** The placeholder as serialised, which `bytes` replaces whole. */
  serialised: Buffer;
  timer: NodeJS.Timeout;
}

type Write = (chunk: unknown, ...rest: unknown[]) => boolean;
type End = (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
type WriteHead = (status: number, ...rest: unknown[]) => ServerResponse;

/** The placeholders of one MCP endpoint (one per server, made by mcpEndpoint), waiting for their response. */
export class SharedResults {
  /** Unguessable, so no text a caller controls (a message body) can stand for a placeholder. */
  private readonly tag = `@@inboxd-shared-${crypto.randomBytes(12).toString('hex')}-`;
  private readonly open = Buffer.from(`"${this.tag}`);
  private readonly pending = new Map<string, Pending>();
  private seq = 0;
  /** The quoted copy of an encoding, made once however many calls share it; dropped with the encoding. */
  private readonly quotedOf = new WeakMap<Buffer, Buffer>();

  /**
   * The tool result for JSON encoded once (`json`, the bytes of `JSON.stringify(value)`): the text block is that
   * JSON and structuredContent the value, as for any other tool, but neither is serialised again here.
   */
  toolResult(json: Buffer): CallToolResult {
    let quoted = this.quotedOf.get(json);
    if (!quoted) this.quotedOf.set(json, (quoted = Buffer.from(JSON.stringify(json.toString('utf8')))));
    const text = this.placeholder(quoted, (t) => JSON.stringify(t));
    const key = this.placeholder(json, (t) => `{${JSON.stringify(t)}:0}`);
    return { content: [{ type: 'text', text }], structuredContent: { [key]: 0 } };
  }

  /** Placeholders waiting to be written (tests, diagnostics). */
  size(): number {
    return this.pending.size;
  }

  /**
   * Lets this response carry shared tool results: placeholders in what the transport writes become the shared bytes.
   * While any placeholder waits, a response's Content-Length (counted on the small message) is dropped: it goes out
   * chunked instead.
   */
  attach(res: ServerResponse): void {
    const write = res.write.bind(res) as Write;
    const end = res.end.bind(res) as End;
    const writeHead = res.writeHead.bind(res) as WriteHead;
    const parts = (chunk: unknown, encoding: unknown): Buffer[] | null => {
      if (this.pending.size === 0 || chunk === undefined || chunk === null) return null;
      const b = asBuffer(chunk, typeof encoding === 'string' ? encoding : undefined, this.tag);
      return b ? this.expand(b) : null;
    };
    (res as unknown as { writeHead: WriteHead }).writeHead = (status, ...rest) => {
      if (this.pending.size > 0) {
        res.removeHeader('content-length');
        const headers = rest[rest.length - 1];
        if (headers && typeof headers === 'object' && !Array.isArray(headers))
          for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-length') delete (headers as Record<string, unknown>)[k];
      }
      return writeHead(status, ...rest);
    };
    (res as unknown as { write: Write }).write = (chunk, ...rest) => {
      const p = parts(chunk, rest[0]);
      if (!p) return write(chunk, ...rest);
      const cb = rest.find((r) => typeof r === 'function');
      let ok = true;
      p.forEach((b, i) => {
        ok = (i === p.length - 1 && cb ? write(b, cb) : write(b)) && ok;
      });
      return ok;
    };
    (res as unknown as { end: End }).end = (chunk, ...rest) => {
      const p = parts(chunk, rest[0]);
      if (!p) return end(chunk, ...rest);
      for (const b of p) write(b);
      const cb = rest.find((r) => typeof r === 'function');
      return cb ? end(cb) : end();
    };
  }

  private placeholder(bytes: Buffer, serialise: (token: string) => string): string {
    const token = `${this.tag}${++this.seq}@@`;
    const timer = setTimeout(() => this.pending.delete(token), FORGET_MS);
    timer.unref();
    this.pending.set(token, { bytes, serialised: Buffer.from(serialise(token)), timer });
    return token;
  }

  /** Splits `chunk` around the placeholders it carries; null when it carries none. */
  private expand(chunk: Buffer): Buffer[] | null {
    const OPEN = this.open;
    let at = chunk.indexOf(OPEN);
    if (at < 0) return null;
    const parts: Buffer[] = [];
    let from = 0;
    while (at >= 0) {
      const end = chunk.indexOf('@@"', at + OPEN.length);
      const token = end < 0 ? '' : chunk.toString('utf8', at + 1, end + 2);
      const p = this.pending.get(token);
      // A structured placeholder is serialised as {"token":0}: it starts one byte before the quote.
      const start = p && p.serialised[0] === 0x7b ? at - 1 : at;
      if (p && start >= from && chunk.subarray(start, start + p.serialised.length).equals(p.serialised)) {
        parts.push(chunk.subarray(from, start), p.bytes);
        from = start + p.serialised.length;
        this.pending.delete(token);
        clearTimeout(p.timer);
      }
      at = chunk.indexOf(OPEN, Math.max(from, at + 1));
    }
    parts.push(chunk.subarray(from));
    return parts;
  }
}

function asBuffer(chunk: unknown, encoding: unknown, tag: string): Buffer | null {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (typeof chunk === 'string' && chunk.includes(tag)) return Buffer.from(chunk, (encoding as BufferEncoding) ?? 'utf8');
  return null;
}
