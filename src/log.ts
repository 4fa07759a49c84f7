// Structured logs: one JSON object per line on stdout (or a readable line with --log-format pretty).
// Fields whose names look like secrets are masked, so a careless call site cannot leak a key or token.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_FIELD = /(secret|password|token|authorization|api_?key|^key$)/i;
const SECRET_VALUE = /\b(ibx|ibt|whsec)_[A-Za-z0-9+/=_-]{8,}/g;

const LOG_STACKS = process.env.INBOXD_LOG_STACKS === '1';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level: LogLevel;
  format: 'json' | 'pretty';
  write?: (line: string) => void;
}

function scrub(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (SECRET_FIELD.test(k) && typeof v === 'string') out[k] = '[redacted]';
    else if (typeof v === 'string') out[k] = v.replace(SECRET_VALUE, '$1_[redacted]');
    else if (v instanceof Error)
      out[k] = { name: v.name, message: v.message.replace(SECRET_VALUE, '$1_[redacted]'), ...(LOG_STACKS ? { stack: v.stack } : {}) };
    else out[k] = v;
  }
  return out;
}

/**
 * Characters that could forge or hide a log line in a terminal or a line-based collector: C0/C1 controls (CR, LF,
 * ESC…), DEL, the Unicode line and paragraph separators and the bidi overrides. Request data reaches log fields
 * (addresses, subjects, paths), so the pretty format shows these escaped; JSON.stringify already escapes C0 only.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function escapeControls(s: string): string {
  return s.replace(UNSAFE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** logfmt-like: a plain word as is, anything with spaces, quotes or `=` in double quotes, so fields cannot be forged. */
function prettyValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]*$/.test(v) ? escapeControls(v) : escapeControls(JSON.stringify(v));
  return escapeControls(JSON.stringify(v) ?? String(v));
}

export function createLogger(opts: LoggerOptions, base: LogFields = {}): Logger {
  const min = RANK[opts.level];
  const write = opts.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const emit = (level: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => {
    if (RANK[level] < min) return;
    const all = scrub({ ...base, ...fields });
    const time = new Date().toISOString();
    if (opts.format === 'pretty') {
      const rest = Object.entries(all)
        .map(([k, v]) => `${escapeControls(k)}=${prettyValue(v)}`)
        .join(' ');
      write(`${time} ${level.toUpperCase().padEnd(5)} ${escapeControls(msg)}${rest ? '  ' + rest : ''}`);
    } else {
      // JSON.stringify leaves U+2028/2029, C1 and bidi controls raw; escaped, a line stays one line everywhere.
      write(JSON.stringify({ time, level, msg, ...all }).replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    }
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(opts, { ...base, ...fields }),
  };
}

export const silentLogger: Logger = createLogger({ level: 'silent', format: 'json' });
