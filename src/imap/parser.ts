// IMAP4rev1 command input (RFC 3501 §9), bounded: a line may be at most `maxLineBytes`, a literal `{n}` at most
// `maxLiteralBytes`, a whole command (lines and literals) at most `maxCommandBytes`. The reader turns bytes into
// commands; a synchronising literal within the limits asks the session to send `+` (and only then is it read); past a
// limit it reports what was too big so the session can answer and close. Pure: no sockets here.

export interface ReaderLimits {
  maxLineBytes: number;
  maxLiteralBytes: number;
  maxCommandBytes: number;
}

export const DEFAULT_LIMITS: ReaderLimits = { maxLineBytes: 64 * 1024, maxLiteralBytes: 64 * 1024, maxCommandBytes: 256 * 1024 };

/** A command as read: text segments with the literals between them (`parts[1]`, `parts[3]`, … are literals). */
export interface RawCommand {
  parts: Array<string | Buffer>;
  /** Set for a command refused while it was read (its tag is parts[0]): answer NO with this. */
  refusal?: string;
}

export type ReadEvent =
  | { kind: 'command'; command: RawCommand }
  /** A synchronising literal within the limits: send a continuation request, then its bytes follow. */
  | { kind: 'continue' }
  /** A limit was passed: answer with `message` (BAD with the tag when known) and close the connection. */
  | { kind: 'overflow'; tag: string | null; message: string }
  /**
   * A synchronising literal the session refuses before it is sent (`refuseLiteral`, e.g. APPEND): answer `message`
   * with the tag; no continuation was asked for, so the client sends no literal and the next line is a new command.
   */
  | { kind: 'refused'; tag: string; message: string };

const CRLF = 0x0a;

export class CommandReader {
  private buf: Buffer = Buffer.alloc(0);
  private parts: Array<string | Buffer> = [];
  private commandBytes = 0;
  /** Bytes of a literal still to read, or -1 when reading a line. */
  private literal = -1;
  private failed = false;
  private readonly limits: ReaderLimits;
  private readonly refuseLiteral: ((firstLine: string) => string | null) | undefined;

  /** `refuseLiteral`: a reason to refuse a synchronising literal of the command whose first line is given, or null. */
  constructor(limits: Partial<ReaderLimits> = {}, refuseLiteral?: (firstLine: string) => string | null) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.refuseLiteral = refuseLiteral;
  }

  /** Drops whatever was buffered (after STARTTLS: nothing sent in plain text may be read as if it came over TLS). */
  reset(): void {
    this.buf = Buffer.alloc(0);
    this.parts = [];
    this.commandBytes = 0;
    this.literal = -1;
  }

  push(chunk: Buffer): ReadEvent[] {
    if (this.failed) return [];
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: ReadEvent[] = [];
    for (;;) {
      if (this.literal >= 0) {
        if (this.buf.length < this.literal) break;
        this.parts.push(Buffer.from(this.buf.subarray(0, this.literal)));
        this.buf = this.buf.subarray(this.literal);
        this.literal = -1;
        continue;
      }
      const nl = this.buf.indexOf(CRLF);
      if (nl < 0) {
        if (this.buf.length > this.limits.maxLineBytes) return this.fail(out, `line longer than ${this.limits.maxLineBytes} bytes`);
        break;
      }
      if (nl > this.limits.maxLineBytes) return this.fail(out, `line longer than ${this.limits.maxLineBytes} bytes`);
      const end = nl > 0 && this.buf[nl - 1] === 0x0d ? nl - 1 : nl;
      let line = this.buf.toString('utf8', 0, end);
      this.buf = this.buf.subarray(nl + 1);
      this.commandBytes += nl + 1;
      if (this.commandBytes > this.limits.maxCommandBytes)
        return this.fail(out, `command longer than ${this.limits.maxCommandBytes} bytes`);
      const lit = /\{(\d{1,20})(\+?)\}$/.exec(line);
      if (!lit) {
        this.parts.push(line);
        out.push({ kind: 'command', command: { parts: this.parts } });
        this.parts = [];
        this.commandBytes = 0;
        continue;
      }
      const size = Number(lit[1]);
      line = line.slice(0, lit.index);
      this.parts.push(line);
      const refusal = lit[2] !== '+' && typeof this.parts[0] === 'string' ? this.refuseLiteral?.(this.parts[0]) : null;
      const tag = typeof this.parts[0] === 'string' ? /^([\x21-\x7e]{1,64}) /.exec(this.parts[0])?.[1] : undefined;
      if (refusal && tag) {
        out.push({ kind: 'refused', tag, message: refusal });
        this.parts = [];
        this.commandBytes = 0;
        continue;
      }
      if (size > this.limits.maxLiteralBytes || this.commandBytes + size > this.limits.maxCommandBytes) {
        return this.fail(out, `literal of ${lit[1]} bytes; at most ${this.limits.maxLiteralBytes} are accepted`);
      }
      this.commandBytes += size;
      this.literal = size;
      if (lit[2] !== '+') out.push({ kind: 'continue' });
    }
    return out;
  }

  private fail(out: ReadEvent[], message: string): ReadEvent[] {
    const first = this.parts.length > 0 ? this.parts[0] : this.buf.toString('latin1', 0, Math.min(this.buf.length, 64));
    const tag = typeof first === 'string' ? (/^([A-Za-z0-9._-]{1,64}) /.exec(first)?.[1] ?? null) : null;
    this.failed = true;
    this.buf = Buffer.alloc(0);
    this.parts = [];
    out.push({ kind: 'overflow', tag, message });
    return out;
  }
}

// ── Tokens ──────────────────────────────────────────────────────────────────────────────────────────────────────
export type Token = { t: 'atom'; v: string } | { t: 'string'; v: string; bytes: Buffer } | { t: 'list'; v: Token[] };

export class ParseError extends Error {}

const MAX_NESTING = 16;
const MAX_TOKENS = 10_000;

/** The tokens of a command: atoms (sections like `BODY.PEEK[HEADER.FIELDS (FROM)]<0.10>` stay one atom), strings, lists. */
export function tokenize(cmd: RawCommand): Token[] {
  const root: Token[] = [];
  const stack: Token[][] = [root];
  let count = 0;
  const add = (tok: Token) => {
    if (++count > MAX_TOKENS) throw new ParseError('too many arguments');
    stack[stack.length - 1]!.push(tok);
  };
  cmd.parts.forEach((part, idx) => {
    if (typeof part !== 'string') {
      add({ t: 'string', v: part.toString('utf8'), bytes: part });
      return;
    }
    const s = part;
    let i = 0;
    while (i < s.length) {
      const c = s[i]!;
      if (c === ' ') {
        i++;
        continue;
      }
      if (c === '(') {
        if (stack.length > MAX_NESTING) throw new ParseError('lists nested too deeply');
        const list: Token = { t: 'list', v: [] };
        add(list);
        stack.push(list.v);
        i++;
        continue;
      }
      if (c === ')') {
        if (stack.length === 1) throw new ParseError('unexpected )');
        stack.pop();
        i++;
        continue;
      }
      if (c === '"') {
        let v = '';
        i++;
        for (;;) {
          if (i >= s.length) throw new ParseError('unterminated quoted string');
          const d = s[i]!;
          if (d === '\\') {
            if (i + 1 >= s.length) throw new ParseError('unterminated quoted string');
            v += s[i + 1];
            i += 2;
            continue;
          }
          if (d === '"') break;
          v += d;
          i++;
        }
        i++;
        add({ t: 'string', v, bytes: Buffer.from(v, 'utf8') });
        continue;
      }
      // An atom, with any bracketed section inside it kept whole.
      let v = '';
      while (i < s.length) {
        const d = s[i]!;
        if (d === '[') {
          let depth = 0;
          do {
            const e = s[i];
            if (e === undefined) throw new ParseError('unterminated [');
            if (e === '[') depth++;
            else if (e === ']') depth--;
            v += e;
            i++;
          } while (depth > 0);
          continue;
        }
        if (d === ' ' || d === '(' || d === ')' || d === '"' || d < ' ') break;
        v += d;
        i++;
      }
      if (v === '') throw new ParseError(`unexpected character ${JSON.stringify(c)}`);
      add({ t: 'atom', v });
    }
    // A literal follows this segment (unless it is the last one).
    void idx;
  });
  if (stack.length !== 1) throw new ParseError('unterminated (');
  return root;
}

/** A token as a string argument (atom, quoted or literal), or null. */
export function asString(tok: Token | undefined): string | null {
  if (!tok || tok.t === 'list') return null;
  return tok.v;
}

// ── Sequence sets ───────────────────────────────────────────────────────────────────────────────────────────────
/** `1:3,7,9:*` → a membership test; `*` is `max` (the highest number in use). Null when malformed. */
export function parseSequenceSet(s: string, max: number): ((n: number) => boolean) | null {
  if (!/^[0-9*:,]+$/.test(s) || s.length > 65536) return null;
  const ranges: Array<[number, number]> = [];
  for (const item of s.split(',')) {
    const ends = item.split(':');
    if (ends.length > 2 || ends.some((e) => e === '' || (e !== '*' && !/^[1-9][0-9]{0,9}$/.test(e)))) return null;
    const nums = ends.map((e) => (e === '*' ? max : Number(e)));
    const a = nums[0]!;
    const b = nums[1] ?? a;
    ranges.push(a <= b ? [a, b] : [b, a]);
  }
  return (n) => ranges.some(([a, b]) => n >= a && n <= b);
}
