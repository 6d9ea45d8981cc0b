import type { Clock } from '../clock.js';
import type { RateLimiter, RateLimitResult, RateLimitRule } from './port.js';

/**
 * In-memory sliding-window limiter with the algorithm of @upstash/ratelimit's `slidingWindow`:
 * the previous window's count is weighted by how much of it still overlaps the sliding window.
 * Used by the embedded default and the tests; one process, so memory is the whole truth.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #counts = new Map<string, number>();
  readonly #clock: Clock;
  #lastSweep = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  async limit(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const now = this.#clock.now().getTime();
    const window = this.#window(key, rule, now);
    this.#sweep(now, window.windowMs);
    if (window.used >= rule.limit) {
      return { success: false, limit: rule.limit, remaining: 0, reset: window.reset };
    }
    this.#counts.set(window.currentKey, window.currentCount + 1);
    return {
      success: true,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - window.used - 1),
      reset: window.reset,
    };
  }

  async peek(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const window = this.#window(key, rule, this.#clock.now().getTime());
    const remaining = Math.max(0, rule.limit - window.used);
    return { success: remaining > 0, limit: rule.limit, remaining, reset: window.reset };
  }

  async refund(key: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const now = this.#clock.now().getTime();
    const window = this.#window(key, rule, now);
    // The hit is in the current window unless the window turned since; then it is the previous one's.
    const previousKey = `${key}:${rule.windowSeconds}:${Math.floor(now / window.windowMs) - 1}`;
    const from = window.currentCount > 0 ? window.currentKey : previousKey;
    const count = this.#counts.get(from) ?? 0;
    if (count > 0) this.#counts.set(from, count - 1);
    return this.peek(key, rule);
  }

  /** The sliding window at `now`: hits in the current window plus the previous one's still-overlapping share. */
  #window(key: string, rule: RateLimitRule, now: number) {
    const windowMs = rule.windowSeconds * 1000;
    const current = Math.floor(now / windowMs);
    const currentKey = `${key}:${rule.windowSeconds}:${current}`;
    const currentCount = this.#counts.get(currentKey) ?? 0;
    const previousCount = this.#counts.get(`${key}:${rule.windowSeconds}:${current - 1}`) ?? 0;
    const elapsed = (now % windowMs) / windowMs;
    const used = Math.floor(previousCount * (1 - elapsed)) + currentCount;
    return { windowMs, currentKey, currentCount, used, reset: (current + 1) * windowMs };
  }

  /** Drop windows that can no longer count, at most once a window, so memory stays bounded. */
  #sweep(now: number, windowMs: number): void {
    if (now - this.#lastSweep < windowMs) return;
    this.#lastSweep = now;
    for (const k of this.#counts.keys()) {
      const parts = k.split(':');
      const seconds = Number(parts.at(-2));
      const index = Number(parts.at(-1));
      if ((index + 2) * seconds * 1000 <= now) this.#counts.delete(k);
    }
  }
}
