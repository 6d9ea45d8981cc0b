import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError, toApiError } from '../../platform/errors.js';
import type { AppEnv } from './env.js';

/** Render any failure as the error envelope with the status from the one code table. */
export function renderError(c: Context<AppEnv>, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(error.toEnvelope(), error.status as ContentfulStatusCode);
}

/** Hono's own exceptions (malformed JSON, unsupported media type, body too large) in our vocabulary. */
function fromHttpException(e: HTTPException): ApiError {
  if (e.status === 413)
    return new ApiError('invalid_argument', 'The request body is too large.', { body: 'too_large' });
  if (e.status === 415)
    return new ApiError('invalid_argument', 'Content-Type must be application/json.', { content_type: 'unsupported' });
  if (e.status === 400) return new ApiError('invalid_argument', e.message || 'Malformed request.');
  if (e.status === 401) return new ApiError('unauthenticated', 'Authentication required.');
  if (e.status === 404) return new ApiError('not_found', 'Not found.');
  return new ApiError('internal', 'An unexpected error occurred. Retry with backoff and quote the correlation id.');
}

export const onError: ErrorHandler<AppEnv> = (err, c) => {
  const apiError = err instanceof HTTPException ? fromHttpException(err) : toApiError(err);
  if (apiError.status >= 500) {
    const services = c.get('services');
    const log = services?.log;
    const fields = { correlation_id: c.get('correlationId'), path: c.req.path, error: err };
    if (log) log.error('request failed', fields);
    else
      console.error(
        JSON.stringify({ level: 'error', message: 'request failed', path: c.req.path, error: String(err) }),
      );
  }
  return renderError(c, apiError);
};

export const notFound: NotFoundHandler<AppEnv> = (c) =>
  renderError(
    c,
    new ApiError('not_found', `No route for ${c.req.method} ${c.req.path}.`, {
      method: c.req.method,
      path: c.req.path,
    }),
  );
