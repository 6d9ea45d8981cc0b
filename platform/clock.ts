/** Time as a port, so retries, windows and expiries can be tested without real sleeping. */
export interface Clock {
  now(): Date;
  /** Resolve after `ms` of this clock's time; rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A clock that only moves when told to; sleepers wake when `advance` passes their deadline. */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start: Date | string = '2026-01-15T12:00:00.000Z') {
    this.#now = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const sleeper = { until: this.#now + ms, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener(
        'abort',
        () => {
          this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Move time forward and wake every sleeper whose deadline has passed, in deadline order. */
  async advance(ms: number): Promise<void> {
    this.#now += ms;
    const due = this.#sleepers.filter((s) => s.until <= this.#now).sort((a, b) => a.until - b.until);
    this.#sleepers = this.#sleepers.filter((s) => s.until > this.#now);
    for (const s of due) s.resolve();
    await Promise.resolve();
  }

  set(to: Date | string): void {
    this.#now = new Date(to).getTime();
  }
}
