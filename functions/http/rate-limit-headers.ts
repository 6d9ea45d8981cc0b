import type { Context } from 'hono';
import type { RateLimitResult } from '../../platform/limiter/port.js';

/** Rate-limit headers (spec, Limits): the reset is unix seconds. */
export function setRateLimitHeaders(c: Context, result: RateLimitResult): void {
  c.header('X-RateLimit-Limit', String(result.limit));
  c.header('X-RateLimit-Remaining', String(result.remaining));
  c.header('X-RateLimit-Reset', String(Math.ceil(result.reset / 1000)));
}
