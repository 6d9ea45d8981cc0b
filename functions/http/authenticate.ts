import type { MiddlewareHandler } from 'hono';
import { authenticate } from '../identity/authenticate.js';
import type { AppEnv } from './env.js';

/** Resolve the credential to a Caller before any operation runs; failures render as 401/403. */
export const requireCaller: MiddlewareHandler<AppEnv> = async (c, next) => {
  const services = c.get('services');
  const caller = await authenticate(
    services.db,
    services.credentials,
    { apiKeyHeader: c.req.header('x-api-key'), authorizationHeader: c.req.header('authorization') },
    services.clock.now(),
  );
  c.set('caller', caller);
  await next();
};
