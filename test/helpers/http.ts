// Reading answers in tests: the status must be the expected one (the body is shown when it is not).
import assert from 'node:assert/strict';

export type Json = Record<string, any>;

export async function json(res: Response, status = 200): Promise<Json> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text) as Json;
}
