import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/env.js';

const FORM_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)\s*(;|$)/i;

/**
 * The browser pages' POSTs are HTML forms. Anything else is refused before a handler reads the
 * form: another Content-Type (JSON, plain text, none) is 415, a form body that does not parse (a
 * multipart body with a broken boundary) is 400, each as the route's own page (`render`), never a
 * 500 from a failed read. The parsed form is kept by the request, so the handler reads it again for free.
 * Mount it after any guard that reads the raw body (storable-text-guard.ts clones it; the form read
 * here consumes it).
 */
export function requireFormBody(
  render: (c: Context<AppEnv>, status: 400 | 415, text: string) => Response | Promise<Response>,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const type = c.req.header('content-type')?.split(';')[0]?.trim();
    if (!type || !FORM_TYPE.test(c.req.header('content-type') ?? ''))
      return render(
        c,
        415,
        `This page takes a form (application/x-www-form-urlencoded or multipart/form-data), not ${type ? type.slice(0, 100) : 'a body without a Content-Type'}.`,
      );
    try {
      await c.req.formData();
    } catch {
      return render(c, 400, 'The form could not be read: its body is malformed.');
    }
    return next();
  };
}
