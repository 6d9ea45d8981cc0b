import { Ratelimit } from '@upstash/ratelimit';
import { Redis } from '@upstash/redis';
import type { RateLimiter, RateLimitResult, RateLimitRule } from './port.js';

/**
 * Production limiter on Upstash Redis. One Ratelimit instance per rule (the library fixes the
 * algorithm per instance). The library fails open when Redis does not answer within `timeout`;
 * we keep that (an unreachable limiter must not take the API down) but give it a generous budget.
 */
export class UpstashRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #byRule = new Map<string, Ratelimit>();

  constructor(options: { url: string; token: string }) {
    this.#redis = new Redis({ url: options.url, token: options.token });
  }

  async limit(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const id = `${rule.limit}/${rule.windowSeconds}`;
    let limiter = this.#byRule.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: this.#redis,
        limiter: Ratelimit.slidingWindow(rule.limit, `${rule.windowSeconds} s`),
        prefix: `cip:rl:${id}`,
        timeout: 2000,
        analytics: false,
      });
      this.#byRule.set(id, limiter);
    }
    const { success, limit, remaining, reset } = await limiter.limit(key);
    return { success, limit, remaining, reset };
  }
}
