// The MCP tool server at /mcp (streamable HTTP): the official SDK's transport and low-level Server inside Koa.
// Sessions (initialize → Mcp-Session-Id) and stateless calls both work; a session is bound to the key that opened it.
// On SQLite the sessions live in this process (src/mcp/sessions.ts); on PostgreSQL in the database, so any instance
// of a cluster serves any request of a session (src/mcp/cluster-sessions.ts).
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  type InitializeRequest,
  isInitializeRequest,
  type JSONRPCNotification,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { Context, Middleware } from 'koa';
import { authenticateHeader, authFailureDetail } from '../auth/authenticate.ts';
import type { McpSessionRepo, McpSessionRow } from '../auth/mcp-session-repo.ts';
import type { Principal } from '../auth/principal.ts';
import { type AppError, isAppError } from '../errors.ts';
import { readJsonBody } from '../http/body.ts';
import type { Operation } from '../ops/op.ts';
import type { Services } from '../services.ts';
import { NAME, VERSION } from '../version.ts';
import { ClusterSessions, type Signals } from './cluster-sessions.ts';
import { glossaryText } from './schema.ts';
import { type Session, SessionTable, type Slot } from './sessions.ts';
import { SharedResults } from './shared.ts';
import { callTool, listTools, type ToolSurface } from './tools.ts';
import { resolveToolsets } from './toolsets.ts';

const SESSION_IDLE_MS = 30 * 60_000;
const BODY_LIMIT = 4 * 1024 * 1024;

const INSTRUCTIONS = `inboxd gives you disposable e-mail inboxes and reads verification mail for you.
Typical flow: svc_verify_signup with a service (e.g. "github") → type the returned address into the signup form → call svc_verify_signup again with the inboxId (or svc_wait_and_extract) → use agent.primaryAction (type the otp, or open the link). svc_simulate_message delivers test mail without any real sender.
${glossaryText()}`;

type Note = Omit<JSONRPCNotification, 'jsonrpc'>;

/** Where a session's GET stream is reached: the session's answer mode, and a send to its GET stream. */
type StreamOf = (sessionId: string) => { jsonOnly: boolean; notify(note: Note): void } | undefined;

interface RequestFacts {
  ip: string | null;
  userAgent: string | null;
}

function newServer(tools: ToolSurface, principal: Principal, request: RequestFacts, streamOf: StreamOf, toolsets: string[] | null): Server {
  const server = new Server(
    { name: NAME, version: VERSION },
    { capabilities: { tools: { listChanged: false }, logging: {} }, instructions: INSTRUCTIONS },
  );
  // inboxd sends no log notifications of its own; the level is accepted so standard clients can set it.
  server.setRequestHandler(SetLevelRequestSchema, async () => ({}));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(tools.operations, { toolsets, principal }) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    const sessionId = extra.sessionId;
    let finished = false;
    const relays = new Set<NodeJS.Timeout>();
    const note = (progress: number, total: number) => ({
      method: 'notifications/progress' as const,
      params: { progressToken: token!, progress, total, message: `waited ${progress} of ${total} s` },
    });
    try {
      return await callTool(tools, {
        name: req.params.name,
        args: (req.params.arguments ?? {}) as Record<string, unknown>,
        principal,
        toolsets,
        signal: extra.signal,
        ip: request.ip,
        userAgent: request.userAgent,
        ...(token !== undefined
          ? {
              progress: (elapsed, total) => {
                if (finished) return;
                const s = sessionId ? streamOf(sessionId) : undefined;
                // A JSON answer has no stream of its own: in such a session the GET /mcp stream carries progress.
                if (s?.jsonOnly) return s.notify(note(elapsed, total));
                void extra.sendNotification(note(elapsed, total)).catch(() => undefined);
                if (!s) return;
                // Also relayed on the session's GET stream when one is open (spec, Events 3; the SDK drops it when
                // none is). Both streams reach the same client, which needs ever-increasing values across them
                // (MCP: progress MUST increase), so the relay is its own reading half a second later, not a copy.
                const t = setTimeout(() => {
                  relays.delete(t);
                  if (!finished) s.notify(note(elapsed + 0.5, total));
                }, 500);
                t.unref();
                relays.add(t);
              },
            }
          : {}),
      });
    } finally {
      finished = true;
      for (const t of relays) clearTimeout(t);
    }
  });
  return server;
}

export interface McpEndpoint {
  middleware: Middleware;
  /** Shared tool results not written out yet (tests, diagnostics). */
  pendingShared(): number;
  /** Open MCP sessions: this process's, or the cluster's on PostgreSQL (tests, diagnostics). */
  openSessions(): Promise<number>;
  /** Runs the idle sweep now (it runs every minute; tests). */
  sweepIdle(): Promise<void>;
}

/** What a cluster (PostgreSQL) gives the endpoint: the sessions' table and the bus's side channel. */
export interface McpCluster {
  repo: McpSessionRepo;
  signals: Signals;
}

/**
 * The /mcp endpoint serving the `operations` that have a tool binding (the registry, passed in by the server). It
 * owns its sessions and its shared results (src/mcp/shared.ts). With `cluster` the sessions live in the database.
 */
export function mcpEndpoint(services: Services, operations: readonly Operation[], cluster?: McpCluster): McpEndpoint {
  const now = () => services.clock.now();
  const sessions = new SessionTable(services.config);
  const shared = new SharedResults();
  const tools: ToolSurface = { services, operations, shared };
  const origins = allowedOrigins(services);
  const everywhere = cluster
    ? new ClusterSessions({ repo: cluster.repo, signals: cluster.signals, caps: services.config, now, log: services.log })
    : null;
  const streamOf: StreamOf = everywhere
    ? (id) => {
        const s = everywhere.get(id);
        return s && { jsonOnly: s.jsonOnly, notify: (n) => everywhere.notify(id, n) };
      }
    : (id) => {
        const s = sessions.get(id);
        return s && { jsonOnly: s.jsonOnly, notify: (n) => void s.server.notification(n as never).catch(() => undefined) };
      };
  /** Ends the sessions unused for SESSION_IDLE_MS (on a cluster: of every instance). */
  const sweepIdle = async (): Promise<void> => {
    if (everywhere) return everywhere.sweep(SESSION_IDLE_MS);
    const t = Date.now();
    for (const s of sessions.values()) if (t - s.lastSeen > SESSION_IDLE_MS) void s.transport.close();
  };
  const sweep = setInterval(() => void sweepIdle(), 60_000);
  sweep.unref();
  services.shutdown.addEventListener('abort', () => {
    clearInterval(sweep);
    for (const s of sessions.values()) void s.transport.close();
    everywhere?.closeAll();
  });

  /** A session's transport and server, new (initialize) or rebuilt from its row on another instance's turn. */
  const build = (
    id: string,
    jsonOnly: boolean,
    toolsets: string[] | null,
    principal: Principal,
    request: RequestFacts,
    onClosed: (id: string) => void,
  ) => {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      enableJsonResponse: jsonOnly,
      onsessionclosed: onClosed,
    });
    const server = newServer(tools, principal, request, streamOf, toolsets);
    return { transport, server };
  };

  /** Rebuilds here the transport of a session opened on another instance (or dropped from this one's cache). */
  const adopt = async (c: ClusterSessions, row: McpSessionRow, principal: Principal, request: RequestFacts): Promise<Session> => {
    const jsonOnly = row.json_only === 1;
    const toolsets = row.toolsets_json ? (JSON.parse(row.toolsets_json) as string[]) : null;
    const { transport, server } = build(row.id, jsonOnly, toolsets, principal, request, (id) => c.end(id));
    restoreSession(transport, server, row);
    let s: Session | undefined;
    transport.onclose = () => {
      if (s) c.forget(row.id, s);
    };
    await server.connect(transport);
    s = c.keep({
      id: row.id,
      keyId: row.key_id,
      teamId: row.team_id,
      jsonOnly,
      toolsets,
      transport,
      server,
    });
    return s;
  };
  /** Requests of one session arriving together share one rebuilt transport (and so its GET stream's progress). */
  const adopting = new Map<string, Promise<Session>>();
  const adoptOnce = (c: ClusterSessions, row: McpSessionRow, principal: Principal, request: RequestFacts): Promise<Session> => {
    let p = adopting.get(row.id);
    if (!p) {
      p = adopt(c, row, principal, request).finally(() => adopting.delete(row.id));
      adopting.set(row.id, p);
    }
    return p;
  };

  const middleware: Middleware = async (ctx: Context, next) => {
    if (ctx.path !== '/mcp') return next();
    if (!['GET', 'POST', 'DELETE'].includes(ctx.method)) {
      ctx.set('Allow', 'GET, POST, DELETE');
      return rpcError(
        ctx,
        405,
        -32000,
        `${ctx.method} is not allowed on /mcp; use POST (JSON-RPC), GET (session stream) or DELETE (end session)`,
      );
    }
    const origin = ctx.get('origin');
    if (origin && !origins().has(originOf(origin))) {
      return rpcError(
        ctx,
        403,
        -32000,
        `Origin ${origin} is not allowed to call this MCP server: only the --base-url origin, loopback origins and --mcp-allowed-origins are`,
      );
    }
    const auth = await authenticateHeader(services, ctx.get('authorization') || undefined);
    if (!auth.ok) {
      const meta = `${services.baseUrl()}/.well-known/oauth-protected-resource/mcp`;
      ctx.set(
        'WWW-Authenticate',
        auth.reason === 'missing'
          ? `Bearer resource_metadata="${meta}"`
          : `Bearer error="invalid_token", error_description="${authFailureDetail(auth.reason).replace(/"/g, "'")}", resource_metadata="${meta}"`,
      );
      return rpcError(ctx, 401, -32001, authFailureDetail(auth.reason));
    }
    const principal = auth.principal;
    try {
      await services.rateLimiter.hit(principal.keyId);
    } catch (e) {
      ctx.set('Retry-After', (e as { headers: Record<string, string> }).headers['Retry-After'] ?? '60');
      return rpcError(ctx, 429, -32000, (e as Error).message);
    }
    const sessionId = ctx.get('mcp-session-id');
    let body: unknown;
    if (ctx.method === 'POST') {
      try {
        body = await readJsonBody(ctx.req, BODY_LIMIT);
      } catch (e) {
        const status = (e as { status?: number }).status ?? 400;
        return rpcError(ctx, status === 415 ? 415 : status, -32700, (e as Error).message);
      }
    }
    const request = { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null };
    let toolsets: string[] | null;
    try {
      const q = ctx.query.toolsets;
      toolsets = resolveToolsets(Array.isArray(q) ? q.join(',') : q, services.config.mcpToolsets, principal);
    } catch (e) {
      return rpcError(ctx, 400, -32602, (e as AppError).detail);
    }
    ctx.respond = false;
    shared.attach(ctx.res);
    const req: IncomingMessage = ctx.req;
    normaliseAccept(req, ctx.method);

    if (sessionId) {
      // A call in flight keeps its session from being reclaimed when the table is full; a GET stream does not.
      const call = ctx.method === 'POST';
      // On a cluster only tool calls are counted in flight (a ping or a notification needs no second statement).
      const toolCall = call && isToolCall(body);
      let s: Session | undefined;
      if (everywhere) {
        let row: McpSessionRow | undefined;
        try {
          row = await everywhere.touch(sessionId, principal, toolCall);
          if (row) s = everywhere.get(sessionId) ?? (await adoptOnce(everywhere, row, principal, request));
        } catch (e) {
          if (row && toolCall) everywhere.done(sessionId);
          services.log.warn('could not read an MCP session from the database', { err: e as Error });
          return rawError(ctx, 503, -32000, 'the MCP session store (the database) did not answer; retry in a few seconds', {
            'Retry-After': '5',
          });
        }
      } else {
        s = sessions.get(sessionId);
        if (s && s.keyId !== principal.keyId) s = undefined;
      }
      if (!s) return rawError(ctx, 404, -32001, `unknown MCP session ${sessionId}; initialize a new one`);
      const session = s;
      session.lastSeen = Date.now();
      if (call) session.busy++;
      if (ctx.method === 'GET') {
        session.streams++;
        ctx.res.once('close', () => session.streams--);
      }
      try {
        await session.transport.handleRequest(req, ctx.res, body);
      } finally {
        if (call) session.busy--;
        if (toolCall) everywhere?.done(sessionId);
        session.lastSeen = Date.now();
      }
      return;
    }
    if (ctx.method === 'POST' && isInitializeRequest(body)) {
      const jsonOnly = !acceptsStream(ctx);
      // The tool sets the session sees are decided at initialize (?toolsets=, --mcp-toolsets, the key's scope; null is
      // every tool) and kept with the session, on a cluster in its row, so every instance serves the same set.
      if (everywhere) return initializeShared(everywhere, body, jsonOnly, toolsets);
      let slot: Slot;
      try {
        slot = sessions.reserve({ keyId: principal.keyId, teamId: principal.teamId });
      } catch (e) {
        const err = e as AppError;
        return rawError(ctx, err.status, -32000, err.detail, err.headers);
      }
      let server: Server;
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        enableJsonResponse: jsonOnly,
        onsessioninitialized: (id) => {
          slot.open({ id, keyId: principal.keyId, teamId: principal.teamId, jsonOnly, toolsets, transport, server });
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
        else slot.release();
      };
      server = newServer(tools, principal, request, streamOf, toolsets);
      try {
        await server.connect(transport);
        await transport.handleRequest(req, ctx.res, body);
      } finally {
        // An initialize that did not open a session gives its room back.
        if (!transport.sessionId || !sessions.get(transport.sessionId)) slot.release();
      }
      return;
    }
    if (ctx.method !== 'POST')
      return rawError(ctx, 400, -32000, `${ctx.method} /mcp needs an Mcp-Session-Id header (from the initialize response)`);
    // Stateless: a fresh server and transport for this one request.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !acceptsStream(ctx) });
    const server = newServer(tools, principal, request, streamOf, toolsets);
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, ctx.res, body);

    /** initialize on a cluster: the session's row is filed (caps counted over every instance) before the answer. */
    async function initializeShared(
      c: ClusterSessions,
      init: InitializeRequest,
      jsonOnly: boolean,
      toolsets: string[] | null,
    ): Promise<void> {
      const id = crypto.randomUUID();
      const t = now();
      const asked = init.params.protocolVersion;
      const row: McpSessionRow = {
        id,
        key_id: principal.keyId,
        team_id: principal.teamId,
        protocol_version: SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION,
        client_json: JSON.stringify(init.params.clientInfo ?? {}),
        capabilities_json: JSON.stringify(init.params.capabilities ?? {}),
        subscriptions_json: '[]',
        toolsets_json: toolsets === null ? null : JSON.stringify(toolsets),
        json_only: jsonOnly ? 1 : 0,
        busy: 0,
        created_at: t,
        last_seen: t,
      };
      try {
        await c.open(row);
      } catch (e) {
        if (isAppError(e)) return rawError(ctx, e.status, -32000, e.detail, e.headers);
        services.log.warn('could not open an MCP session in the database', { err: e as Error });
        return rawError(ctx, 503, -32000, 'the MCP session store (the database) did not answer; retry in a few seconds', {
          'Retry-After': '5',
        });
      }
      const { transport, server } = build(id, jsonOnly, toolsets, principal, request, (sid) => c.end(sid));
      const s = c.keep({ id, keyId: principal.keyId, teamId: principal.teamId, jsonOnly, toolsets, transport, server });
      transport.onclose = () => c.forget(id, s);
      try {
        await server.connect(transport);
        await transport.handleRequest(req, ctx.res, init);
      } finally {
        // An initialize that did not open a session gives its row back.
        if (!transport.sessionId) {
          c.forget(id, s);
          await c.end(id).catch(() => undefined);
        }
      }
    }
  };
  return {
    middleware,
    pendingShared: () => shared.size(),
    openSessions: async () => (everywhere ? everywhere.count() : sessions.size),
    sweepIdle,
  };
}

/**
 * Puts a transport and server built for a session that initialized elsewhere into the state initialize leaves: the
 * transport knows its session id, the server the client's info and capabilities. The SDK has no public way to do
 * this (its transports are per process), so its fields are set; a test fails if the SDK renames them.
 */
export function restoreSession(transport: StreamableHTTPServerTransport, server: Server, row: McpSessionRow): void {
  const inner = (transport as unknown as { _webStandardTransport?: { sessionId?: string; _initialized?: boolean } })._webStandardTransport;
  const srv = server as unknown as { _clientCapabilities?: unknown; _clientVersion?: unknown };
  if (!inner || !('_initialized' in inner) || !('_clientVersion' in srv || server.getClientVersion() === undefined))
    throw new Error('the MCP SDK changed its transport: sessions cannot be restored on another instance');
  inner.sessionId = row.id;
  inner._initialized = true;
  srv._clientCapabilities = JSON.parse(row.capabilities_json);
  srv._clientVersion = JSON.parse(row.client_json);
}

function isToolCall(body: unknown): boolean {
  return Array.isArray(body) ? body.some(isToolCall) : (body as { method?: unknown } | null)?.method === 'tools/call';
}

function acceptsStream(ctx: Context): boolean {
  return /text\/event-stream/i.test(ctx.get('x-inboxd-original-accept') || ctx.get('accept'));
}

/**
 * The SDK insists that a POST accepts both JSON and SSE. A stateless caller that accepts only one of them is
 * still served: JSON-only callers get a JSON response (enableJsonResponse), SSE-only callers a stream.
 */
function normaliseAccept(req: IncomingMessage, method: string): void {
  const accept = req.headers.accept ?? '';
  req.headers['x-inboxd-original-accept'] = accept;
  if (method === 'POST') {
    const parts = [accept];
    if (!/application\/json/i.test(accept)) parts.push('application/json');
    if (!/text\/event-stream/i.test(accept)) parts.push('text/event-stream');
    req.headers.accept = parts.filter(Boolean).join(', ');
  }
}

/**
 * Browser origins allowed to call /mcp: the --base-url origin, loopback origins (any port: a local tool or
 * inspector) and --mcp-allowed-origins. Not the request's own Host: a DNS-rebinding page is served from a name
 * that resolves to this server, so its Origin always equals the Host it sends.
 */
function allowedOrigins(services: Services): () => Set<string> {
  let base = '';
  let set = new Set<string>();
  return () => {
    const now = services.baseUrl();
    if (now !== base) {
      base = now;
      set = new Set([LOOPBACK_ORIGIN, originOf(now), ...services.config.mcpAllowedOrigins.map(originOf)]);
    }
    return set;
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const LOOPBACK_ORIGIN = 'loopback';

/** An origin in canonical form; loopback origins (any port) map to one marker. */
function originOf(origin: string): string {
  try {
    const u = new URL(origin);
    if (u.origin === 'null') return 'null';
    return LOOPBACK.has(u.hostname) ? LOOPBACK_ORIGIN : u.origin;
  } catch {
    return 'invalid';
  }
}

function rpcError(ctx: Context, status: number, code: number, message: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

function rawError(ctx: Context, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  ctx.res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  ctx.res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
