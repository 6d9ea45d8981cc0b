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
  /**
   * The budget `key` has left under `rule`, without spending any: what the rate-limit headers show
   * on a call refused before it was counted (invalid input).
   */
  peek(key: string, rule: RateLimitRule): Promise<RateLimitResult>;
  /** Give back one hit counted by `limit` (a call refused as invalid after it was counted); the budget after. */
  refund(key: string, rule: RateLimitRule): Promise<RateLimitResult>;
}
