import { startDueSyncs } from './connections/sync.js';
import { purgeExpiredCredentials } from './identity/expired-credentials.js';
import { fireDueRoutines } from './routines/scheduler.js';
import type { Services } from './services.js';

/**
 * The one scheduled tick (platform/scheduler/port.ts): the Workers cron trigger runs it every
 * minute, the embedded default's interval timer every 30 s. It re-publishes stage deliveries that
 * were lost (a crash between a commit and its publish, a delivery the queue gave up on), so every
 * unfinished run moves on, fires the routines that are due, starts the connection syncs that are due, and purges a batch of
 * expired credentials. Safe to run twice, concurrently or late: the sweep only re-publishes, each routine's scheduled time is
 * claimed once, and a purge deletes only what nothing can use any more.
 */
export async function runScheduledTick(services: Services, at: Date): Promise<void> {
  const republished = await services.engine.sweep();
  if (republished > 0)
    services.log.info('sweeper re-published overdue runs', { count: republished, at: at.toISOString() });
  const fired = await fireDueRoutines(services, at);
  if (fired.due > 0)
    services.log.info('routines fired', { due: fired.due, claimed: fired.claimed, at: at.toISOString() });
  const syncs = await startDueSyncs(services, at);
  if (syncs > 0) services.log.info('connection syncs started', { count: syncs, at: at.toISOString() });
  const purged = await purgeExpiredCredentials(services.db, at);
  if (Object.values(purged).some((n) => n > 0))
    services.log.info('expired credentials purged', { ...purged, at: at.toISOString() });
}
