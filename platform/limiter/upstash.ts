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

  #limiterFor(rule: RateLimitRule): Ratelimit {
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
    return limiter;
  }

  async peek(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const { remaining, reset } = await this.#limiterFor(rule).getRemaining(key);
    return { success: remaining > 0, limit: rule.limit, remaining, reset };
  }

  async refund(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    // A negative rate is the library's refund: its script skips the limit check and decrements.
    const { limit, remaining, reset } = await this.#limiterFor(rule).limit(key, { rate: -1 });
    return { success: remaining > 0, limit, remaining: Math.max(0, Math.min(limit, remaining)), reset };
  }

  async limit(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const { success, limit, remaining, reset, reason } = await this.#limiterFor(rule).limit(key);
    if (reason === 'timeout') {
      // Failed open: the library answers limit 0, remaining 0, reset 0 (1970), which would reach
      // clients as rate-limit headers. Report the rule and the current window's end instead.
      const windowMs = rule.windowSeconds * 1000;
      return {
        success: true,
        limit: rule.limit,
        remaining: Math.max(0, rule.limit - 1),
        reset: (Math.floor(Date.now() / windowMs) + 1) * windowMs,
      };
    }
    return { success, limit, remaining, reset };
  }
}
