import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../platform/log.js';
import { IntervalScheduler } from '../../platform/scheduler/interval.js';

/**
 * The embedded default's scheduler: ticks at once and on its period, never overlapping, surviving failures.
 * Timers are vitest's fake ones: the counts below are exact whatever the machine's load (real sleeps
 * made them flaky on a busy machine).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('IntervalScheduler', () => {
  it('ticks at start and then on its period, and stops', async () => {
    const ticks: Date[] = [];
    const scheduler = new IntervalScheduler(20, createLogger('silent'));
    scheduler.start(async (at) => {
      ticks.push(at);
    });
    expect(ticks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(75);
    expect(ticks).toHaveLength(4); // at 0, 20, 40, 60
    await scheduler.stop();
    await vi.advanceTimersByTimeAsync(100);
    expect(ticks).toHaveLength(4);
  });

  it('never runs two ticks at once, and stop waits for the one in progress', async () => {
    let running = 0;
    let most = 0;
    let started = 0;
    let finished = 0;
    const scheduler = new IntervalScheduler(5, createLogger('silent'));
    scheduler.start(async () => {
      started++;
      running++;
      most = Math.max(most, running);
      await sleep(30);
      running--;
      finished++;
    });
    await vi.advanceTimersByTimeAsync(70);
    expect(running).toBe(1); // the third tick is in progress
    const stopped = scheduler.stop();
    await vi.advanceTimersByTimeAsync(30);
    await stopped;
    expect(most).toBe(1);
    expect(running).toBe(0);
    expect(finished).toBe(started);
    expect(finished).toBeGreaterThanOrEqual(3);
  });

  it('keeps ticking after a tick fails', async () => {
    let calls = 0;
    const scheduler = new IntervalScheduler(10, createLogger('silent'));
    scheduler.start(async () => {
      calls++;
      throw new Error('tick broke');
    });
    await vi.advanceTimersByTimeAsync(45);
    await scheduler.stop();
    expect(calls).toBe(5); // at 0, 10, 20, 30, 40
  });
});
