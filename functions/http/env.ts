import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RateLimitResult } from '../../platform/limiter/port.js';
import type { Caller } from '../identity/caller.js';
import type { Services } from '../services.js';

/** The typed Hono environment: what middleware puts on the context for handlers to read. */
export interface AppEnv {
  Variables: {
    correlationId: string;
    services: Services;
    caller: Caller;
    clientIp: string;
    /** The global limiter's verdict for this request, whose headers a tighter limit may replace. */
    rateLimit: RateLimitResult;
  };
}

/** The service's Hono app (functions/app.ts builds it). */
export type App = OpenAPIHono<AppEnv>;

export { API_PREFIX } from '../api-prefix.js';
