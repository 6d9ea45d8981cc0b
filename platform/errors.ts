import { z } from '@hono/zod-openapi';
import { isDatabaseUnavailable } from './db/unavailable.js';

/**
 * The one error vocabulary of the service. Every failure a client can see is an ApiError with one
 * of these codes; the HTTP status is decided only from this table, at the transport boundary.
 */
export const ERROR_STATUS = {
  invalid_input: 400,
  invalid_argument: 400,
  validation_error: 400,
  unauthenticated: 401,
  invalid_token: 401,
  expired_token: 401,
  forbidden: 403,
  scope_denied: 403,
  insufficient_role: 403,
  not_on_public_api: 403,
  feature_disabled: 403,
  not_found: 404,
  /** The MCP endpoint's GET and DELETE: the MCP transport spec requires 405 from a server without a server-to-client stream. */
  method_not_allowed: 405,
  conflict: 409,
  duplicate: 409,
  version_conflict: 409,
  invalid_state: 409,
  slug_conflict: 409,
  locked: 409,
  cannot_cancel: 409,
  /** A catalog source this deployment cannot connect (no OAuth client configured, or no sync for it yet). */
  connector_not_connectable: 409,
  file_too_large: 413,
  rate_limited: 429,
  quota_exceeded: 429,
  internal: 500,
  server_error: 500,
  query_failed: 500,
  service_unavailable: 503,
  dependency_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export type ErrorDetails = Record<string, unknown>;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  /** Whether repeating the same call may succeed (5xx, 429). Queue stages use it to decide retries. */
  readonly retry: boolean;
  /** Extra response headers that belong to this error (Retry-After on 429). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details?: ErrorDetails,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    // A monthly quota is terminal until the month rolls; every other 429 and every 5xx may pass on retry.
    this.retry = code !== 'quota_exceeded' && (ERROR_STATUS[code] === 429 || ERROR_STATUS[code] >= 500);
    this.headers = options.headers ?? {};
  }

  get status(): ErrorStatus {
    return ERROR_STATUS[this.code];
  }

  toEnvelope(): ErrorEnvelope {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: maskSecrets(this.details) }),
      },
    };
  }
}

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

/** The error envelope schema, shared by every route in the OpenAPI document. */
export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).openapi({ description: 'Stable code; branch on it.' }),
      message: z.string().openapi({ description: 'Human text; do not match on it.' }),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi('Error');

/** Turn anything thrown into an ApiError without leaking internals (no stack, no driver text). */
export function toApiError(e: unknown): ApiError {
  if (isApiError(e)) return e;
  if (isDatabaseUnavailable(e)) {
    return new ApiError(
      'dependency_unavailable',
      'The database is unavailable. Retry with backoff and quote the correlation id.',
      { dependency: 'database' },
    );
  }
  return new ApiError('internal', 'An unexpected error occurred. Retry with backoff and quote the correlation id.');
}

const SECRET_KEY =
  /(secret|password|passwd|token|api[_-]?key|authorization|credential|private[_-]?key|signing[_-]?key)/i;

/**
 * Replace secret-looking values in error details with "[MASKED]" and add `<field>_masked: true`,
 * recursively, so no error ever echoes a credential back (spec, Errors).
 */
export function maskSecrets(details: ErrorDetails): ErrorDetails {
  const out: ErrorDetails = {};
  for (const [key, value] of Object.entries(details)) {
    if (
      SECRET_KEY.test(key) &&
      value !== null &&
      value !== undefined &&
      typeof value !== 'boolean' &&
      !key.endsWith('_masked')
    ) {
      out[key] = '[MASKED]';
      out[`${key}_masked`] = true;
    } else if (Array.isArray(value)) {
      out[key] = value.map((v) => (isPlainObject(v) ? maskSecrets(v) : v));
    } else if (isPlainObject(value)) {
      out[key] = maskSecrets(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}
