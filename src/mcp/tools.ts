// MCP tools generated from the operation registry: every operation with a `tool` binding is listed with the JSON
// Schema of its zod input, an output schema, annotations and its description; a call runs the same pipeline as
// REST (auth, scopes, validation, audit). Failures come back as isError results a model can act on.

import type { Readable } from 'node:stream';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.ts';
import { AppError, isAppError } from '../errors.ts';
import type { OpContext, Operation, RawResult } from '../ops/op.ts';
import { isMutation, isRawResult, isSharedJson } from '../ops/op.ts';
import { invokeOperation, prepareOperation } from '../ops/pipeline.ts';
import type { Services } from '../services.ts';
import { type JsonSchema, OUTPUT_IDS, toolSchema, undescribeCommon } from './schema.ts';
import type { SharedResults } from './shared.ts';
import { allows, outsideToolsets, visibleTo } from './toolsets.ts';

/** The largest raw message or attachment a tool returns inline; bigger ones point at the HTTP URL. */
const INLINE_LIMIT = 5 * 1024 * 1024;

/** Tool argument names differ from operation input names where a model needs clarity (`inboxId`, not `id`). */
function renamed(schema: JsonSchema, args: Record<string, string>): JsonSchema {
  const toTool = Object.fromEntries(Object.entries(args).map(([tool, input]) => [input, tool]));
  const props = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [toTool[k] ?? k, v]));
  return { ...schema, properties: props, ...(schema.required ? { required: schema.required.map((k) => toTool[k] ?? k) } : {}) };
}

export function toolOps(operations: readonly Operation[]): Operation[] {
  return operations.filter((o) => o.tool);
}

/** Who lists: the connection's toolsets (null = every tool) and its key (tools its scope can never call are left out). */
export interface ToolView {
  toolsets: readonly string[] | null;
  principal: Principal | null;
}

export function listTools(operations: readonly Operation[], view?: ToolView): Tool[] {
  const ops = toolOps(operations).filter(
    (o) =>
      !view ||
      (allows(view.toolsets, o.tool!.name) &&
        (!view.principal || visibleTo(view.principal, { access: o.access, mutation: isMutation(o) }))),
  );
  return ops.map((o) => {
    const t = o.tool!;
    const input = undescribeCommon(renamed(toolSchema(o.input, 'input'), t.args ?? {}));
    const output = undescribeCommon(toolSchema(o.output, 'output'), OUTPUT_IDS);
    const readOnly = !isMutation(o);
    return {
      name: t.name,
      title: o.summary,
      description: t.description,
      inputSchema: { ...input, type: 'object' } as Tool['inputSchema'],
      ...(output.type === 'object' && !o.http?.raw ? { outputSchema: output as Tool['outputSchema'] } : {}),
      annotations: {
        title: o.summary,
        readOnlyHint: readOnly,
        destructiveHint: !readOnly && (o.http?.method === 'DELETE' || /delete|cleanup/.test(o.name)),
        idempotentHint: readOnly || o.http?.method === 'DELETE' || o.http?.method === 'PUT',
        openWorldHint: false,
        ...t.annotations,
      },
    };
  });
}

export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
  principal: Principal | null;
  signal: AbortSignal;
  /** Set when the client sent a progress token. */
  progress?: (elapsedSeconds: number, totalSeconds: number) => void;
  ip: string | null;
  userAgent: string | null;
  /** The connection's toolsets; a tool outside them answers which set has it. Absent or null: every tool. */
  toolsets?: readonly string[] | null;
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** What a model should do next after each kind of failure. */
const NEXT_STEP: Partial<Record<AppError['code'], string>> = {
  validation_failed: 'Fix the arguments listed above and call the tool again.',
  not_found: 'Check the id (svc_list_inboxes lists your inboxes); the inbox may have expired or been deleted.',
  forbidden: 'This key may not do that; use a key with the needed scope or role.',
  unauthorized: 'Authenticate with a valid API key or access token.',
  wait_timeout: 'Nothing arrived in time: make sure the form was submitted with this address, then wait again.',
  conflict: 'Choose another address or reuse the existing inbox.',
  rate_limited: 'Wait for the time given, then retry.',
  not_configured: 'The operator has not set this up on this inboxd.',
};

/** What a tool call runs against: the server's services, its operations, and its endpoint's shared results. */
export interface ToolSurface {
  services: Services;
  operations: readonly Operation[];
  shared: SharedResults;
}

export async function callTool({ services, operations, shared }: ToolSurface, call: ToolCall): Promise<CallToolResult> {
  const o = toolOps(operations).find((x) => x.tool!.name === call.name);
  if (!o) return errorResult(`Unknown tool ${call.name}. Call tools/list for the available tools.`);
  if (call.toolsets && !allows(call.toolsets, o.tool!.name)) return errorResult(outsideToolsets(call.toolsets, o.tool!.name));
  const args = Object.fromEntries(Object.entries(call.args ?? {}).map(([k, v]) => [o.tool!.args?.[k] ?? k, v]));
  const ctx: OpContext = {
    principal: call.principal,
    services,
    operations,
    log: services.log,
    request: { ip: call.ip, accept: o.tool!.accept ?? 'application/json', userAgent: call.userAgent, header: () => undefined },
    signal: AbortSignal.any([call.signal, services.shutdown]),
    ...(call.progress && o.streams
      ? {
          emit: (event: string, data: unknown) => {
            const d = data as { elapsedSeconds?: number; timeoutSeconds?: number };
            if (event === 'progress' && typeof d.elapsedSeconds === 'number' && typeof d.timeoutSeconds === 'number')
              call.progress!(d.elapsedSeconds, d.timeoutSeconds);
          },
        }
      : {}),
  };
  try {
    const input = await prepareOperation(o, ctx, args, 'arguments');
    const result = await invokeOperation(o, ctx, input);
    if (isRawResult(result)) {
      // JSON encoded once for many callers (a woken wait): its bytes are the text, its value the structured content,
      // and neither is serialised again per call.
      if (isSharedJson(result)) return shared.toolResult(result.body);
      if (result.json === undefined) return rawToContent(result);
      return { content: [{ type: 'text', text: JSON.stringify(result.json) }], structuredContent: result.json as Record<string, unknown> };
    }
    return {
      content: [{ type: 'text', text: JSON.stringify(result, null, 2) }],
      ...(typeof result === 'object' && result !== null && !Array.isArray(result)
        ? { structuredContent: result as Record<string, unknown> }
        : {}),
    };
  } catch (e) {
    const err = isAppError(e) ? e : new AppError('internal', 'unexpected error; the server log has the details');
    const fields = err.errors
      ?.map((f) => `- ${o.tool!.args ? (Object.entries(o.tool!.args).find(([, v]) => v === f.path)?.[0] ?? f.path) : f.path}: ${f.message}`)
      .join('\n');
    return errorResult(`${err.title} (${err.code}): ${err.detail}${fields ? `\n${fields}` : ''}\n${NEXT_STEP[err.code] ?? ''}`.trim());
  }
}

async function rawToContent(r: RawResult): Promise<CallToolResult> {
  const buf = Buffer.isBuffer(r.body) ? r.body : await readAll(r.body, INLINE_LIMIT);
  if (buf === null) return errorResult(`The content is larger than ${INLINE_LIMIT} bytes; download it over HTTP instead.`);
  if (/^(message\/rfc822|text\/)/i.test(r.contentType)) return { content: [{ type: 'text', text: buf.toString('utf8') }] };
  // A rendering (svc_render_message) is an image a model can look at; an attachment stays a resource, whatever its type.
  if (r.image) return { content: [{ type: 'image', data: buf.toString('base64'), mimeType: r.contentType }] };
  return {
    content: [{ type: 'resource', resource: { uri: `data:${r.contentType}`, mimeType: r.contentType, blob: buf.toString('base64') } }],
  };
}

async function readAll(body: Readable, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > limit) {
      body.destroy();
      return null;
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}
