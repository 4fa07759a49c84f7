// Log injection: request data with newlines or terminal controls must never start a new log line or forge a field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';

const HOSTILE = 'a@b.test\r\n2026-01-01T00:00:00.000Z ERROR forged line\u001b[31m\u2028x\u0085y\u202e';

function capture(format: 'json' | 'pretty'): string[] {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', format, write: (l) => lines.push(l) });
  log.info(`mail from ${HOSTILE}`, { from: HOSTILE, subject: 'hi status=ok', n: 3 });
  return lines;
}

const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202e]/;

describe('log output escapes request data', () => {
  it('pretty: one line, controls shown escaped, values with spaces quoted', () => {
    const lines = capture('pretty');
    assert.equal(lines.length, 1);
    const line = lines[0]!;
    assert.doesNotMatch(line, RAW_CONTROL);
    assert.equal(line.split('\n').length, 1);
    assert.match(line, /mail from a@b\.test\\r\\n2026/);
    assert.match(line, /\\u001b\[31m/);
    assert.match(line, /subject="hi status=ok"/);
    assert.match(line, / n=3$/);
  });

  it('json: one line that parses back to the original text', () => {
    const lines = capture('json');
    assert.equal(lines.length, 1);
    assert.doesNotMatch(lines[0]!, RAW_CONTROL);
    const o = JSON.parse(lines[0]!) as { msg: string; from: string };
    assert.equal(o.from, HOSTILE);
    assert.equal(o.msg, `mail from ${HOSTILE}`);
  });
});
