import type { Logger } from '../log.js';
import type { Scheduler, Tick } from './port.js';

/**
 * The embedded default's scheduler: the tick at start and then every `periodMs`. Ticks never
 * overlap (a tick still running when the next is due makes that one skip), a failing tick is logged
 * and the next one runs anyway, and the timer does not keep the process alive.
 */
export class IntervalScheduler implements Scheduler {
  #timer: ReturnType<typeof setInterval> | null = null;
  #running: Promise<void> | null = null;

  constructor(
    private readonly periodMs: number,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  start(tick: Tick): void {
    if (this.#timer) return;
    const run = () => {
      if (this.#running) return;
      this.#running = tick(this.now())
        .catch((error: unknown) => this.log.error('scheduled tick failed', { error }))
        .finally(() => {
          this.#running = null;
        });
    };
    run();
    this.#timer = setInterval(run, this.periodMs);
    this.#timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }
}
