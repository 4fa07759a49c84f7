// One error type for the whole service. The HTTP edge renders it as RFC 9457 problem+json, the MCP edge as an
// isError tool result; handlers only ever throw it (CONTRACT §3 fixes codes and statuses).

export const ERROR_STATUS = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  wait_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  budget_exceeded: 422,
  rate_limited: 429,
  internal: 500,
  not_configured: 501,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const TITLES: Record<ErrorCode, string> = {
  validation_failed: 'Validation failed',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  not_acceptable: 'Not acceptable',
  wait_timeout: 'Wait timed out',
  conflict: 'Conflict',
  gone: 'Gone',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  budget_exceeded: 'Over budget',
  rate_limited: 'Too many requests',
  internal: 'Internal error',
  not_configured: 'Not configured',
  unavailable: 'Service unavailable',
};

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  /** Extra response headers (Retry-After, WWW-Authenticate, Allow …). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, detail: string, opts: { errors?: FieldError[]; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(detail, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.title = TITLES[code];
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
  }

  get detail(): string {
    return this.message;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldError[];
}

export function toProblem(e: AppError): Problem {
  const p: Problem = {
    type: `urn:inboxd:problem:${e.code.replaceAll('_', '-')}`,
    title: e.title,
    status: e.status,
    detail: e.detail,
    code: e.code,
  };
  if (e.errors) p.errors = e.errors;
  return p;
}
