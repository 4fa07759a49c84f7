// Embeddings for semantic search (CONTRACT §12 `--embeddings`, same form as `--models`): an OpenAI-compatible
// `POST {base}/embeddings` (vLLM, llama.cpp, LM Studio, TEI, Ollama's /v1) or Ollama's `POST {base}/api/embed`.
// Vectors are L2-normalised and stored as int8 (a quarter of float32; cosine error well under the ranking noise).
import { type ModelLink, parseModels } from '../ai/models.ts';

export class EmbeddingError extends Error {
  readonly kind: 'timeout' | 'http' | 'invalid' | 'network' | 'dimension';
  constructor(kind: EmbeddingError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

/** Parses `--embeddings`: one `provider:model@baseUrl` link (openai or ollama). Throws with a message naming the flag. */
export function parseEmbeddings(spec: string): ModelLink {
  let links: ModelLink[];
  try {
    links = parseModels(spec);
  } catch (e) {
    throw new Error((e as Error).message.replace(/^--models: /, '--embeddings: '));
  }
  if (links.length !== 1)
    throw new Error('--embeddings: give exactly one provider:model@baseUrl (vectors of different models cannot be compared)');
  const link = links[0]!;
  if (link.provider === 'anthropic')
    throw new Error('--embeddings: anthropic has no embeddings API; use openai (any compatible server) or ollama');
  return link;
}

export interface EmbeddingsConfig {
  link: ModelLink;
  timeoutMs: number;
  apiKey?: string | undefined;
  /** Largest answer read, in bytes. */
  maxResponseBytes?: number;
}

const MAX_DIM = 8192;

/** Embeds texts with the configured model; every vector has the same, plausible size or the call fails. */
export async function embed(cfg: EmbeddingsConfig, texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const { link } = cfg;
  const ollama = link.provider === 'ollama';
  const url = ollama ? `${link.baseUrl}/api/embed` : `${link.baseUrl}/embeddings`;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (!ollama && cfg.apiKey) headers.authorization = `Bearer ${cfg.apiKey}`;
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  let body: unknown;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: link.model, input: texts }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      redirect: 'error',
    });
    const text = await res.text();
    if (text.length > (cfg.maxResponseBytes ?? 64 * 1024 * 1024)) throw new EmbeddingError('invalid', 'the answer is too large');
    if (!res.ok) throw new EmbeddingError('http', `HTTP ${res.status} from ${link.id}`);
    body = JSON.parse(text);
  } catch (e) {
    if (e instanceof EmbeddingError) throw e;
    if (timeout.aborted) throw new EmbeddingError('timeout', `no answer from ${link.id} within ${cfg.timeoutMs} ms`);
    if (e instanceof SyntaxError) throw new EmbeddingError('invalid', `the answer of ${link.id} is not JSON`);
    throw new EmbeddingError('network', `cannot reach ${link.id}: ${(e as Error).message}`);
  }
  const raw = ollama
    ? (body as { embeddings?: unknown }).embeddings
    : ((body as { data?: Array<{ embedding?: unknown; index?: number }> }).data ?? [])
        .slice()
        .sort((a, b) => (a.index ?? 0) - (b.index ?? 0))
        .map((d) => d.embedding);
  if (!Array.isArray(raw) || raw.length !== texts.length)
    throw new EmbeddingError('invalid', `${link.id} answered ${Array.isArray(raw) ? raw.length : 'no'} vectors for ${texts.length} texts`);
  const out: Float32Array[] = [];
  for (const v of raw) {
    if (!Array.isArray(v) || v.length === 0 || v.length > MAX_DIM || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw new EmbeddingError('invalid', `${link.id} answered something that is not a vector of numbers`);
    if (out.length > 0 && v.length !== out[0]!.length)
      throw new EmbeddingError('dimension', `${link.id} answered vectors of different sizes (${out[0]!.length} and ${v.length})`);
    out.push(Float32Array.from(v as number[]));
  }
  return out;
}

/** L2-normalised and scaled to int8; a zero vector stays zero (it matches nothing). */
export function quantize(v: Float32Array): Int8Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const s = n > 0 ? 127 / Math.sqrt(n) : 0;
  const out = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i]! * s);
  return out;
}

/** Cosine similarity of a normalised float query and a stored int8 vector. */
export function similarity(q: Float32Array, v: Int8Array): number {
  let dot = 0;
  for (let i = 0; i < q.length; i++) dot += q[i]! * v[i]!;
  return dot / 127;
}

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  const s = n > 0 ? 1 / Math.sqrt(n) : 0;
  return v.map((x) => x * s);
}
