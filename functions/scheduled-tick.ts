import type { Services } from './services.js';

/**
 * The one scheduled tick (platform/scheduler/port.ts): the Workers cron trigger runs it every
 * minute, the embedded default's interval timer every SWEEP_PERIOD_MS. Today it re-publishes stage
 * deliveries that were lost (a crash between a commit and its publish, a delivery the queue gave
 * up on), so every unfinished run moves on; routines' due fires will join it here. Safe to run
 * twice, concurrently or late: the sweep only re-publishes, and deliveries are idempotent.
 */
export async function runScheduledTick(services: Services, at: Date): Promise<void> {
  const republished = await services.engine.sweep();
  if (republished > 0) services.log.info('sweeper re-published overdue runs', { count: republished, at: at.toISOString() });
}
