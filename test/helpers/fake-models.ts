// A local HTTP server speaking the three model wire protocols inboxd uses — OpenAI chat completions
// (`…/chat/completions`, `…/models`), Anthropic messages (`…/v1/messages`, `…/v1/models`) and Ollama chat
// (`…/api/chat`, `…/api/tags`) — with one scripted behaviour per path prefix: `http://host:port/<name>`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | { kind: 'ok'; data: unknown }
  | { kind: 'hang' }
  | { kind: 'status'; status: number }
  | { kind: 'prose' }
  | { kind: 'huge'; bytes: number }
  /** Answers `data` unless the prompt contains `trigger`, then `hijacked` (a model that obeys the mail). */
  | { kind: 'obeys'; trigger: string; data: unknown; hijacked: unknown };

export interface FakeRequest {
  prefix: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
}

export interface FakeModels {
  url: string;
  /** Base URL of one scripted endpoint. */
  base(prefix: string): string;
  script: Map<string, Behaviour>;
  requests: FakeRequest[];
  stop(): Promise<void>;
}

function wrap(path: string, data: unknown, text?: string): unknown {
  const content = text ?? JSON.stringify(data);
  if (path.endsWith('/chat/completions'))
    return { id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] };
  if (path.endsWith('/v1/messages')) {
    return text !== undefined
      ? { id: 'm1', type: 'message', role: 'assistant', content: [{ type: 'text', text }] }
      : { id: 'm1', type: 'message', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: data }] };
  }
  return { model: 'x', message: { role: 'assistant', content }, done: true };
}

export async function startFakeModels(): Promise<FakeModels> {
  const script = new Map<string, Behaviour>();
  const requests: FakeRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const [, prefix = '', ...rest] = url.pathname.split('/');
      const path = `/${rest.join('/')}`;
      let body: Record<string, unknown> | null = null;
      try {
        body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : null;
      } catch {
        body = null;
      }
      requests.push({ prefix, path, headers: req.headers, body });
      const b = script.get(prefix) ?? { kind: 'status', status: 404 };
      const send = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.method === 'GET') {
        if (b.kind === 'hang') return void hanging.add(res);
        if (b.kind === 'status') return send(b.status, { error: 'scripted' });
        return send(200, { data: [{ id: 'x' }], models: [{ name: 'x' }] });
      }
      switch (b.kind) {
        case 'hang':
          hanging.add(res);
          return;
        case 'status':
          return send(b.status, { error: { message: 'scripted failure' } });
        case 'prose':
          return send(200, wrap(path, null, 'Sure! The invoice number is NW-2026-0318 and the total is $3,450.30.'));
        case 'huge':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`{"pad":"${'x'.repeat(b.bytes)}"}`);
          return;
        case 'obeys': {
          const prompt = JSON.stringify(body);
          return send(200, wrap(path, prompt.includes(b.trigger) ? b.hijacked : b.data));
        }
        default:
          return send(200, wrap(path, b.data));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    base: (p) => `${url}/${p}`,
    script,
    requests,
    async stop() {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
