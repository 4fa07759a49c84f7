// A local HTTP server speaking the OpenAI embeddings API (`POST /v1/embeddings`), with deterministic vectors: each
// of a few concepts owns one dimension and its words (invoice, bill, unpaid … → dimension 0), so texts that share
// a meaning but no word are close. `mode` scripts failures: HTTP 500, a hang (for timeouts), vectors of another size.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const CONCEPTS: string[][] = [
  ['invoice', 'bill', 'billing', 'payment', 'pay', 'unpaid', 'balance', 'overdue', 'owe', 'outstanding'],
  ['password', 'reset', 'credential', 'credentials', 'login', 'locked'],
  ['phone', 'number', 'mobile', 'call', 'telephone', 'contact'],
  ['meeting', 'calendar', 'invitation', 'lunch', 'schedule'],
  ['shipping', 'delivery', 'parcel', 'package', 'tracking'],
];
export const DIM = 8;

export function vectorOf(text: string, dim = DIM): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const c = CONCEPTS.findIndex((words) => words.includes(w));
    if (c >= 0 && c < dim) v[c]! += 1;
    else {
      let h = 0;
      for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      v[Math.min(dim - 1, 5 + (h % 3))]! += 0.05;
    }
  }
  return v;
}

export type EmbeddingsMode = 'ok' | 'fail' | 'hang' | 'wrong-size';

export interface FakeEmbeddings {
  /** Base URL for --embeddings openai:test-embed@<base>. */
  base: string;
  mode: EmbeddingsMode;
  calls: number;
  /** Every text embedded successfully, in order (documents and queries). */
  inputs: string[];
  /** Milliseconds before each answer (a slow model, so that passes of two instances overlap). */
  delayMs: number;
  stop(): Promise<void>;
}

export async function startFakeEmbeddings(): Promise<FakeEmbeddings> {
  const hanging = new Set<ServerResponse>();
  const state: FakeEmbeddings = { base: '', mode: 'ok', calls: 0, inputs: [], delayMs: 0, stop: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.calls++;
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end();
        return;
      }
      if (state.mode === 'hang') return void hanging.add(res);
      if (state.mode === 'fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"scripted failure"}}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string[]; model: string };
      const dim = state.mode === 'wrong-size' ? 5 : DIM;
      const data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: vectorOf(t, dim) }));
      state.inputs.push(...body.input);
      const answer = () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
      if (state.delayMs > 0) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  state.stop = async () => {
    for (const r of hanging) r.destroy();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return state;
}
