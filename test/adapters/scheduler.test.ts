import { describe, expect, it } from 'vitest';
import { createLogger } from '../../platform/log.js';
import { IntervalScheduler } from '../../platform/scheduler/interval.js';

/** The embedded default's scheduler: ticks at once and on its period, never overlapping, surviving failures. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('IntervalScheduler', () => {
  it('ticks at start and then on its period, and stops', async () => {
    const ticks: Date[] = [];
    const scheduler = new IntervalScheduler(20, createLogger('silent'));
    scheduler.start(async (at) => {
      ticks.push(at);
    });
    expect(ticks).toHaveLength(1);
    await sleep(75);
    await scheduler.stop();
    const count = ticks.length;
    expect(count).toBeGreaterThanOrEqual(3);
    await sleep(50);
    expect(ticks).toHaveLength(count);
  });

  it('never runs two ticks at once, and stop waits for the one in progress', async () => {
    let running = 0;
    let most = 0;
    let finished = 0;
    const scheduler = new IntervalScheduler(5, createLogger('silent'));
    scheduler.start(async () => {
      running++;
      most = Math.max(most, running);
      await sleep(30);
      running--;
      finished++;
    });
    await sleep(70);
    await scheduler.stop();
    expect(most).toBe(1);
    expect(running).toBe(0);
    expect(finished).toBeGreaterThanOrEqual(2);
  });

  it('keeps ticking after a tick fails', async () => {
    let calls = 0;
    const scheduler = new IntervalScheduler(10, createLogger('silent'));
    scheduler.start(async () => {
      calls++;
      throw new Error('tick broke');
    });
    await sleep(45);
    await scheduler.stop();
    expect(calls).toBeGreaterThanOrEqual(3);
  });
});
