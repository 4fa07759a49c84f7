// An operation is defined once — name, schemas, access, handler, and how it is exposed — and the HTTP router,
// the OpenAPI document, discovery and the MCP tool list are all generated from the one list (src/ops/registry.ts).
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import { type Encoded, encodingOf } from '../inboxes/encoded.ts';
import type { Logger } from '../log.ts';
import type { Services } from '../services.ts';

/** public: no key needed · read: any valid key · write: not read-only · admin: unscoped admin key. */
export type Access = 'public' | 'read' | 'write' | 'admin';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpBinding {
  method: HttpMethod;
  /** Koa-style path with `:param` segments, e.g. `/v1/inboxes/:id`. */
  path: string;
  /** Success status; default 200. */
  status?: number;
  /** The operation may answer with bytes instead of JSON; these are the content types it can produce. */
  raw?: string[];
  /**
   * How the request body becomes input: `json` (default) a JSON object; `form` a JSON object or an
   * application/x-www-form-urlencoded body (OAuth token requests); `raw` the bytes, handed over as `ctx.body`.
   */
  body?: 'json' | 'form' | 'raw';
  /** Largest accepted body in bytes (default 1 MiB). */
  bodyLimit?: (services: Services) => number;
  /** `oauth`: errors are RFC 6749 §5.2 JSON (`error`, `error_description`) instead of problem+json. */
  errors?: 'problem' | 'oauth';
  /** Extra headers on every answer (e.g. `Cache-Control: no-store` for credentials). */
  headers?: Record<string, string>;
}

export interface ToolBinding {
  name: string;
  /** Written for a model: what it does, when to use it, what comes back. */
  description: string;
  /** Tool argument name → operation input name, where the tool's name is clearer (e.g. inboxId → id). */
  args?: Record<string, string>;
  /** The Accept value the operation sees when called as a tool (default application/json). */
  accept?: string;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

/** A non-JSON answer (raw .eml, attachment bytes). */
export interface RawResult {
  kind: 'raw';
  contentType: string;
  body: Buffer | Readable;
  size?: number;
  headers?: Record<string, string>;
  /** The same answer as a value, for edges that need an object (MCP structuredContent): JSON bytes built once. */
  json?: unknown;
  /** HTTP status instead of the operation's usual one (e.g. /health's 503 with its own JSON body). */
  status?: number;
  /** MCP: an image content a model can look at (a rendering), not a resource blob (an attachment that is a picture). */
  image?: boolean;
}

export interface RequestInfo {
  ip: string | null;
  /** The Accept header, for operations that answer differently to JSON and raw clients. */
  accept: string;
  userAgent: string | null;
  /** Any request header (lower-case name); for operations with their own authentication (OAuth, webhooks). */
  header(name: string): string | undefined;
}

/** The request body of an operation with `http.body: 'raw'`. */
export interface RawBody {
  bytes: Buffer;
  contentType: string;
}

export interface OpContext {
  /** Null only for `public` operations called without a key. */
  principal: Principal | null;
  services: Services;
  /** Every operation (src/ops/registry.ts), for the generated surfaces: discovery, OpenAPI, the tool list. */
  operations: readonly Operation[];
  log: Logger;
  request: RequestInfo;
  /** Aborted when the client goes away (HTTP close, MCP cancel): waits must stop. */
  signal: AbortSignal;
  /** Only for operations with `http.body: 'raw'`. */
  body?: RawBody;
  /**
   * Set when the caller asked for a stream (HTTP `Accept: text/event-stream`, MCP progress token) and the
   * operation has `streams: true`: named events with JSON data, sent as they happen.
   */
  emit?: (event: string, data: unknown) => void;
}

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  name: string;
  summary: string;
  description?: string;
  access: Access;
  input: I;
  output: O;
  http?: HttpBinding;
  tool?: ToolBinding;
  /** The handler reports progress through `ctx.emit` when the caller asked for a stream. */
  streams?: boolean;
  /** Mutations are audited by the pipeline; `false` opts a high-volume mutation out. */
  audit?: false | { action: string; target?: (input: z.output<I>, output: z.output<O>) => string | null };
  handler: (ctx: OpContext, input: z.output<I>) => Promise<z.output<O> | RawResult> | z.output<O> | RawResult;
}

// Keeps each definition's handler typed against its own schemas, then erases to the common shape for the list.
export function op<I extends z.ZodType, O extends z.ZodType>(def: Operation<I, O>): Operation {
  return def as unknown as Operation;
}

export function isRawResult(v: unknown): v is RawResult {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'raw';
}

/** An answer encoded once for many callers as a raw JSON result: every edge writes `body` and sees `json`. */
export function rawJson(e: Encoded): RawResult & { body: Buffer } {
  return { kind: 'raw', contentType: 'application/json; charset=utf-8', body: e.json, json: e.view };
}

/** `value` as its one shared encoding when it has one (a woken wait's answer), else as it is. */
export function asShared<T>(value: T): T | RawResult {
  const e = encodingOf(value);
  return e ? rawJson(e) : value;
}

/** A raw result carrying one shared JSON encoding (as opposed to a file or a stream). */
export function isSharedJson(r: RawResult): r is RawResult & { body: Buffer } {
  return r.json !== undefined && Buffer.isBuffer(r.body);
}

export function isMutation(o: Operation): boolean {
  return o.access === 'write' || o.access === 'admin' || (o.http !== undefined && o.http.method !== 'GET');
}
