/**
 * The scheduler port: something calls the service's one tick function on a cadence (the run
 * sweeper today; routines' due fires join it). In production the Cloudflare cron trigger is the
 * scheduler: it calls the worker's `scheduled` handler every minute, which runs the tick once. On
 * Node (`npm start`) an interval timer does the same (platform/scheduler/interval.ts). Either way
 * the tick is written once (functions/scheduled-tick.ts) and must be safe to run twice or late.
 */
export type Tick = (at: Date) => Promise<void>;

export interface Scheduler {
  /** Run `tick` now and then on the adapter's cadence. */
  start(tick: Tick): void;
  /** Stop ticking; resolves once a tick in progress has finished. */
  stop(): Promise<void>;
}
