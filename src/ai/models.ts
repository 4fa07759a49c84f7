// The model chain (CONTRACT §12): `provider:model@baseUrl` links tried in order, each through its own wire
// protocol with plain fetch — OpenAI-compatible chat completions (response_format json_schema), Anthropic
// messages (forced tool use), Ollama /api/chat (format). One timeout per call, a cap on the answer's size, and
// the answer's JSON handed back untrusted: the caller validates it against the schema.

export type Provider = 'openai' | 'anthropic' | 'ollama';
export const PROVIDERS: readonly Provider[] = ['openai', 'anthropic', 'ollama'];

export interface ModelLink {
  provider: Provider;
  model: string;
  baseUrl: string;
  /** provider:model, as configured (never a secret). */
  id: string;
}

export interface ModelCall {
  system: string;
  user: string;
  schema: Record<string, unknown>;
  name: string;
}

export interface ChainConfig {
  links: ModelLink[];
  timeoutMs: number;
  maxResponseBytes: number;
  keys: { openai?: string; anthropic?: string };
}

const DEFAULT_BASE: Record<Provider, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  ollama: 'http://127.0.0.1:11434',
};

/** Parses `--models`: comma-separated `provider:model@baseUrl` (the @baseUrl part is optional). */
export function parseModels(spec: string): ModelLink[] {
  const out: ModelLink[] = [];
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^([a-z]+):([^@\s]+)(?:@(\S+))?$/.exec(part);
    if (!m) throw new Error(`--models: '${part}' is not provider:model@baseUrl (e.g. ollama:llama3.2@http://127.0.0.1:11434)`);
    const provider = m[1] as Provider;
    if (!PROVIDERS.includes(provider))
      throw new Error(`--models: unknown provider '${m[1]}' in '${part}'; use one of ${PROVIDERS.join(', ')}`);
    const baseUrl = (m[3] ?? DEFAULT_BASE[provider]).replace(/\/+$/, '');
    try {
      const u = new URL(baseUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      if (u.username || u.password) throw new Error('credentials');
    } catch {
      throw new Error(
        `--models: '${baseUrl}' in '${part}' is not an http(s) URL without credentials (keys go in INBOXD_OPENAI_API_KEY / INBOXD_ANTHROPIC_API_KEY)`,
      );
    }
    out.push({ provider, model: m[2]!, baseUrl, id: `${provider}:${m[2]}` });
  }
  return out;
}

export class ModelError extends Error {
  readonly kind: 'timeout' | 'http' | 'invalid_json' | 'too_large' | 'network' | 'no_credentials';
  constructor(kind: ModelError['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

async function readBounded(res: Response, max: number): Promise<string> {
  const len = Number(res.headers.get('content-length') ?? '0');
  if (len > max) throw new ModelError('too_large', `answer of ${len} bytes is over the ${max}-byte limit`);
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let n = 0;
  for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
    n += c.byteLength;
    if (n > max) throw new ModelError('too_large', `answer is over the ${max}-byte limit`);
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(s: string, what: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    throw new ModelError('invalid_json', `${what} is not JSON`);
  }
}

/** The model's JSON text may come wrapped in a ```json fence; anything else that is not JSON is rejected. */
function answerJson(text: unknown): unknown {
  if (typeof text !== 'string') throw new ModelError('invalid_json', 'the answer has no text content');
  const t = text.trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  return parseJson(t, 'the model answer');
}

function request(link: ModelLink, call: ModelCall, cfg: ChainConfig): { url: string; headers: Record<string, string>; body: unknown } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (link.provider === 'openai') {
    if (cfg.keys.openai) headers.authorization = `Bearer ${cfg.keys.openai}`;
    return {
      url: `${link.baseUrl}/chat/completions`,
      headers,
      body: {
        model: link.model,
        temperature: 0,
        messages: [
          { role: 'system', content: call.system },
          { role: 'user', content: call.user },
        ],
        response_format: { type: 'json_schema', json_schema: { name: call.name, schema: call.schema, strict: false } },
      },
    };
  }
  if (link.provider === 'anthropic') {
    if (!cfg.keys.anthropic && /api\.anthropic\.com$/.test(new URL(link.baseUrl).hostname))
      throw new ModelError('no_credentials', 'INBOXD_ANTHROPIC_API_KEY is not set');
    if (cfg.keys.anthropic) headers['x-api-key'] = cfg.keys.anthropic;
    headers['anthropic-version'] = '2023-06-01';
    return {
      url: `${link.baseUrl}/v1/messages`,
      headers,
      body: {
        model: link.model,
        max_tokens: 4096,
        temperature: 0,
        system: call.system,
        messages: [{ role: 'user', content: call.user }],
        tools: [{ name: call.name, description: 'Record the extracted fields.', input_schema: call.schema }],
        tool_choice: { type: 'tool', name: call.name },
      },
    };
  }
  return {
    url: `${link.baseUrl}/api/chat`,
    headers,
    body: {
      model: link.model,
      stream: false,
      format: call.schema,
      options: { temperature: 0 },
      messages: [
        { role: 'system', content: call.system },
        { role: 'user', content: call.user },
      ],
    },
  };
}

function answerOf(link: ModelLink, body: unknown): unknown {
  const b = body as Record<string, unknown>;
  if (link.provider === 'openai') {
    const choice = (b.choices as Array<{ message?: { content?: unknown } }> | undefined)?.[0];
    return answerJson(choice?.message?.content);
  }
  if (link.provider === 'anthropic') {
    const blocks = (b.content as Array<{ type?: string; input?: unknown; text?: unknown }> | undefined) ?? [];
    const tool = blocks.find((c) => c.type === 'tool_use');
    if (tool) return tool.input;
    return answerJson(blocks.find((c) => c.type === 'text')?.text);
  }
  return answerJson((b.message as { content?: unknown } | undefined)?.content);
}

/** One call to one link; throws ModelError on timeout, HTTP error, oversize or non-JSON answers. */
export async function callModel(link: ModelLink, call: ModelCall, cfg: ChainConfig, signal?: AbortSignal): Promise<unknown> {
  const req = request(link, call, cfg);
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const sig = signal ? AbortSignal.any([signal, timeout]) : timeout;
  try {
    const res = await fetch(req.url, {
      method: 'POST',
      headers: req.headers,
      body: JSON.stringify(req.body),
      signal: sig,
      redirect: 'error',
    });
    const text = await readBounded(res, cfg.maxResponseBytes);
    if (!res.ok) throw new ModelError('http', `HTTP ${res.status} from ${link.id}`);
    return answerOf(link, parseJson(text, 'the response body'));
  } catch (e) {
    if (e instanceof ModelError) throw e;
    if (timeout.aborted) throw new ModelError('timeout', `no answer within ${cfg.timeoutMs} ms`);
    throw new ModelError('network', `cannot reach ${link.id}: ${(e as Error).message}`);
  }
}

/** A cheap live check: list models (OpenAI-compatible /models, Ollama /api/tags, Anthropic /v1/models). */
export async function probeModel(link: ModelLink, cfg: ChainConfig): Promise<{ ok: boolean; latencyMs: number; error: string | null }> {
  const t0 = performance.now();
  const headers: Record<string, string> = {};
  let url = `${link.baseUrl}/models`;
  if (link.provider === 'openai' && cfg.keys.openai) headers.authorization = `Bearer ${cfg.keys.openai}`;
  if (link.provider === 'anthropic') {
    url = `${link.baseUrl}/v1/models`;
    headers['anthropic-version'] = '2023-06-01';
    if (cfg.keys.anthropic) headers['x-api-key'] = cfg.keys.anthropic;
  }
  if (link.provider === 'ollama') url = `${link.baseUrl}/api/tags`;
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(cfg.timeoutMs), redirect: 'error' });
    await readBounded(res, cfg.maxResponseBytes);
    const latencyMs = Math.round(performance.now() - t0);
    return res.ok ? { ok: true, latencyMs, error: null } : { ok: false, latencyMs, error: `HTTP ${res.status}` };
  } catch (e) {
    return {
      ok: false,
      latencyMs: Math.round(performance.now() - t0),
      error: (e as Error).name === 'TimeoutError' ? 'timeout' : (e as Error).message,
    };
  }
}
