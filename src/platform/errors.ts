import type { ErrorExtra, ErrorExtraOf } from './error-fields.js';

/**
 * The one closed set of error codes. Every failure a caller can see carries one of these, mapped
 * once to an HTTP status here and once to an MCP tool error in src/mcp. Add a code here, never
 * invent one at a call site.
 */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  INVALID_ID: 400,
  INVALID_CURSOR: 400,
  INVALID_SCHEDULE_TIME: 400,
  COUNTRY_NOT_SUPPORTED: 400,
  SMS_COUNTRY_NOT_SUPPORTED: 400,
  INSUFFICIENT_CREDITS: 400,
  SENDER_NOT_APPROVED: 400,
  SENDER_NOT_ALLOWED: 400,
  CONTACT_DISABLED: 400,
  CONTACT_OPTED_OUT: 400,
  /** Marketing to the number is paused: a reply that may be a request to stop waits for a person (issue #42). */
  CONSENT_UNDER_REVIEW: 400,
  NO_VALID_CONTACTS: 400,
  FIELD_IN_USE: 400,
  PREVIEW_MISMATCH: 400,
  PREVIEW_NOT_APPROVED: 400,
  PREVIEW_REJECTED: 400,
  PREVIEW_EXPIRED: 400,
  CSRF_INVALID: 403,
  APPROVAL_REQUIRED: 403,
  /**
   * A send or preview over a limit of its credential (issue #29): credits per UTC day or recipients per send.
   * The body names the limit, what is left and when it resets (`limit`, `creditsLeftToday`, `resetsAt`, …) and a
   * `nextStep`: send less or later, or ask a person of the account to raise the limit in the console.
   */
  BUDGET_EXCEEDED: 403,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PREVIEW_STALE: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  IDEMPOTENCY_RESPONSE_LOST: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  IDEMPOTENCY_MISMATCH: 422,
  /** Login attempts slowed after failures; Retry-After says when to try again (the page says so too). */
  LOGIN_THROTTLED: 429,
  RATE_LIMITED: 429,
  SANDBOX_RATE_LIMITED: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  /** JSON path of the offending value, e.g. `content.suggestions[3].reply.text`. */
  path: string;
  code: string;
  message: string;
}

export interface AppErrorOptions<C extends ErrorCode = ErrorCode> {
  details?: ErrorDetail[];
  /**
   * Extra machine-readable fields placed beside code/message in the error body: only those
   * src/platform/error-fields.ts lists for the code, so /openapi.json documents every one.
   */
  extra?: ErrorExtraOf<C>;
  /** Response headers the error needs (e.g. Retry-After). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly details: ErrorDetail[] | undefined;
  readonly extra: ErrorExtra | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: C, message: string, options: AppErrorOptions<C> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export interface ErrorBody {
  success: false;
  error: ErrorExtra & {
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
  };
}

/** The one JSON shape of every REST error (DESIGN §4). */
export function errorBody(err: AppError): ErrorBody {
  return {
    success: false,
    error: {
      ...(err.extra ?? {}),
      code: err.code,
      message: err.message,
      ...(err.details && err.details.length > 0 ? { details: err.details } : {}),
    },
  };
}

export const notFound = (what: string): AppError => new AppError('NOT_FOUND', `${what} not found`);
