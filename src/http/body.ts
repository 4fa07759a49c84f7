// Reads a request body with a hard size limit, before anything is parsed or stored.
import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';
import { describeJsonShapeProblem, jsonShapeProblem } from '../lib/json.ts';

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(limit: number): AppError {
  return new AppError('payload_too_large', `request body is larger than the ${limit}-byte limit`);
}

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const buf = await readBody(req, limit);
  if (buf.length === 0) return {};
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw new AppError(
      'unsupported_media_type',
      `send the body as JSON with "Content-Type: application/json" (got ${type || 'no Content-Type'})`,
    );
  }
  const text = buf.toString('utf8');
  const shape = jsonShapeProblem(text);
  if (shape)
    throw new AppError('validation_failed', `the JSON body is ${describeJsonShapeProblem(shape)}; no inboxd request needs that`, {
      errors: [{ path: '(body)', message: describeJsonShapeProblem(shape) }],
    });
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new AppError('validation_failed', `the body is not valid JSON: ${(e as Error).message}`, {
      errors: [{ path: '(body)', message: 'invalid JSON' }],
    });
  }
}

/** An object from a JSON or an application/x-www-form-urlencoded body (repeated form keys are an error). */
export async function readFormOrJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return readJsonBody(req, limit);
  const buf = await readBody(req, limit);
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(buf.toString('utf8'))) {
    if (k in out)
      throw new AppError('validation_failed', `form field ${k} is given more than once`, { errors: [{ path: k, message: 'repeated' }] });
    out[k] = v;
  }
  return out;
}
