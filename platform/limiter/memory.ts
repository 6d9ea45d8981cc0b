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
    const windowMs = rule.windowSeconds * 1000;
    const current = Math.floor(now / windowMs);
    const currentKey = `${key}:${rule.windowSeconds}:${current}`;
    const previousKey = `${key}:${rule.windowSeconds}:${current - 1}`;
    const currentCount = this.#counts.get(currentKey) ?? 0;
    const previousCount = this.#counts.get(previousKey) ?? 0;
    const elapsed = (now % windowMs) / windowMs;
    const weightedPrevious = Math.floor(previousCount * (1 - elapsed));
    const reset = (current + 1) * windowMs;
    this.#sweep(now, windowMs);
    if (weightedPrevious + currentCount >= rule.limit) {
      return { success: false, limit: rule.limit, remaining: 0, reset };
    }
    this.#counts.set(currentKey, currentCount + 1);
    return {
      success: true,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - weightedPrevious - currentCount - 1),
      reset,
    };
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
