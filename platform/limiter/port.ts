/** One fixed-window-family rule: at most `limit` hits per `windowSeconds`. */
export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

/** The same shape @upstash/ratelimit returns, so both adapters are interchangeable. */
export interface RateLimitResult {
  success: boolean;
  limit: number;
  remaining: number;
  /** Unix milliseconds at which the current window ends. */
  reset: number;
}

export interface RateLimiter {
  limit(key: string, rule: RateLimitRule): Promise<RateLimitResult>;
}
