import { yieldToEventLoop } from '../platform/scheduler/yield.js';
import { purgeExpiredCredentials } from './identity/expired-credentials.js';
import { featureModules } from './modules.js';
import type { Services } from './services.js';

/**
 * The one scheduled tick (platform/scheduler/port.ts): the Workers cron trigger runs it every
 * minute, the embedded default's interval timer every 30 s. It re-publishes stage deliveries that
 * were lost (a crash between a commit and its publish, a delivery the queue gave up on), so every
 * unfinished run moves on, then runs each feature's step in the module list's order (connection
 * syncs that are due, routines that are due), then purges a batch of expired credentials. Safe to
 * run twice, concurrently or late: the sweep only re-publishes, each step claims what it starts (a
 * routine's scheduled time is claimed once), and the purge deletes only what nothing can use any more.
 *
 * The tick shares the process with the API on the embedded default: it lets the event loop turn
 * before every step (and the steps between their chunks), so a request arriving meanwhile waits
 * for one step's statements at most, not for the whole tick; a step with nothing due reads once
 * and writes nothing.
 */
export async function runScheduledTick(services: Services, at: Date): Promise<void> {
  await yieldToEventLoop();
  const republished = await services.engine.sweep();
  if (republished > 0)
    services.log.info('sweeper re-published overdue runs', { count: republished, at: at.toISOString() });
  for (const module of featureModules) {
    if (!module.scheduledTick) continue;
    await yieldToEventLoop();
    await module.scheduledTick(services, at);
  }
  // Credentials belong to no one feature (API keys and access tokens to identity, sessions and links to
  // the console, codes and refresh tokens to OAuth), and the access-token rule reads runs and routines:
  // the purge is the tick's own step, like the sweep.
  await yieldToEventLoop();
  const purged = await purgeExpiredCredentials(services.db, at);
  if (Object.values(purged).some((n) => n > 0))
    services.log.info('expired credentials purged', { ...purged, at: at.toISOString() });
}
