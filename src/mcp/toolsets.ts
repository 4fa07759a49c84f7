// The toolsets of an MCP connection (the sets themselves: src/ops/toolsets.ts). A connection chooses its sets
// (`/mcp?toolsets=verify,search`, else the server default `--mcp-toolsets`, else every tool) and a key sees only
// tools its scope can call. Pure functions: the endpoint decides a session's sets at initialize (`Session.toolsets`)
// and asks `allows` on each list and call.
import { isFullAdmin, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors.ts';
import { ALL, TOOLSET_BY_NAME, toolsetOf } from '../ops/toolsets.ts';

/** The sets that hold a tool, finest first (the data is src/ops/toolsets.ts, which discovery also reads). */
export { toolsetOf };

/** Parses a toolset list (`a,b`): null for `all` or nothing; a clear error naming the known sets otherwise. */
export function parseToolsets(raw: string | readonly string[] | null | undefined, source: string): string[] | null {
  const names = (typeof raw === 'string' ? raw.split(',') : (raw ?? [])).map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (names.length === 0 || names.includes(ALL)) return null;
  const unknown = names.filter((n) => !TOOLSET_BY_NAME.has(n));
  if (unknown.length > 0)
    throw new AppError(
      'validation_failed',
      `${source}: unknown toolset ${unknown.join(', ')}; known: ${[ALL, ...TOOLSET_BY_NAME.keys()].join(', ')} (GET /mcp/auth lists their tools)`,
    );
  return [...new Set(names)];
}

/**
 * The toolsets of a connection: the `toolsets` query parameter when given, else the server default
 * (`--mcp-toolsets`), else null (every tool). A key's scope narrows the tools further (`visibleTo`), not the sets.
 */
export function resolveToolsets(
  query: string | null | undefined,
  configDefault: readonly string[],
  _principal: Principal,
): string[] | null {
  if (query !== null && query !== undefined) return parseToolsets(query, 'the toolsets query parameter of /mcp');
  return parseToolsets(configDefault, '--mcp-toolsets');
}

/** Whether a connection with these toolsets may list and call `toolName`. */
export function allows(toolsets: readonly string[] | null, toolName: string): boolean {
  if (toolsets === null) return true;
  return toolsets.some((n) => TOOLSET_BY_NAME.get(n)?.tools.includes(toolName));
}

/** The answer to a call of a tool outside the connection's toolsets: which set has it, and how to get it. */
export function outsideToolsets(toolsets: readonly string[], toolName: string): string {
  const sets = toolsetOf(toolName);
  return `${toolName} is in the toolset ${sets[0]}${sets.length > 1 ? ` (also in ${sets.slice(1).join(', ')})` : ''}, which this connection did not choose (it has ${toolsets.join(', ')}). Reconnect with /mcp?toolsets=${[...toolsets, sets[0]].join(',')} to use it.`;
}

/** The access a tool needs, as the operation declares it. */
export interface ToolAccess {
  access: 'public' | 'read' | 'write' | 'admin';
  mutation: boolean;
}

/**
 * Whether a key's scope can ever call a tool: a read-only key no mutation, only an unscoped admin key an admin tool.
 * Tools it cannot call are not listed to it (a call still answers the pipeline's forbidden error).
 */
export function visibleTo(principal: Principal, t: ToolAccess): boolean {
  if (t.access === 'admin' && !isFullAdmin(principal)) return false;
  return !(t.mutation && principal.scope.readOnly);
}
