import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env.js';

const WELL_FORMED = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const CORRELATION_HEADER = 'X-Correlation-Id';

/** Echo a well-formed inbound X-Correlation-Id, else mint one; every response carries it. */
export const correlationId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const inbound = c.req.header(CORRELATION_HEADER);
  const id = inbound && WELL_FORMED.test(inbound) ? inbound : crypto.randomUUID();
  c.set('correlationId', id);
  c.header(CORRELATION_HEADER, id);
  await next();
  // Responses built outside the context (a streamed body, a sub-app) still get the header.
  if (!c.res.headers.has(CORRELATION_HEADER)) c.res.headers.set(CORRELATION_HEADER, id);
};
