import type { MiddlewareHandler } from 'hono';
import { rateLimitedError } from '../invoke.js';
import type { AppEnv } from './env.js';
import { renderError } from './errors.js';
import { setRateLimitHeaders } from './rate-limit-headers.js';

const WINDOW_SECONDS = 60;

/** The global per-IP limit shared by every route under the prefix (spec, Limits). */
export const globalRateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const services = c.get('services');
  const rule = { limit: services.config.globalRateLimitPerMinute, windowSeconds: WINDOW_SECONDS };
  const result = await services.limiter.limit(`ip:${c.get('clientIp')}`, rule);
  setRateLimitHeaders(c, result);
  c.set('rateLimit', result);
  if (!result.success) {
    return renderError(
      c,
      rateLimitedError(result, rule, services.clock.now(), `${rule.limit} requests per minute per client address.`),
    );
  }
  await next();
};
