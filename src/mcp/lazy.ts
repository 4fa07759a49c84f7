// The /mcp endpoint, loaded with the first request to /mcp: the MCP SDK (its several hundred zod schemas) and the
// web-standard HTTP layer under its transport cost ~40 ms and several MB at start, and a server that only receives
// mail and answers REST never needs them. The wrapper has the endpoint's shape; --mcp-toolsets is still checked at
// start (src/mcp/toolsets.ts is small), so a wrong name fails the start, not the first agent.
import type { Middleware } from 'koa';
import type { Operation } from '../ops/op.ts';
import type { Services } from '../services.ts';
import type { McpCluster, McpEndpoint } from './endpoint.ts';
import { parseToolsets } from './toolsets.ts';

export function lazyMcpEndpoint(services: Services, operations: readonly Operation[], cluster?: McpCluster): McpEndpoint {
  parseToolsets(services.config.mcpToolsets, '--mcp-toolsets');
  let loading: Promise<McpEndpoint> | null = null;
  let loaded: McpEndpoint | null = null;
  const load = (): Promise<McpEndpoint> => {
    loading ??= import('./endpoint.ts').then((m) => {
      loaded = m.mcpEndpoint(services, operations, cluster);
      return loaded;
    });
    return loading;
  };
  const middleware: Middleware = async (ctx, next) => {
    if (ctx.path !== '/mcp') return next();
    return (loaded ?? (await load())).middleware(ctx, next);
  };
  return {
    middleware,
    pendingShared: () => loaded?.pendingShared() ?? 0,
    openSessions: async () => (await load()).openSessions(),
    // On a cluster another instance's sessions may be idle: the sweep loads the endpoint to look.
    sweepIdle: async () => (cluster || loaded ? (await load()).sweepIdle() : undefined),
  };
}
