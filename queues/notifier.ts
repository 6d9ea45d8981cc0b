/**
 * Wakes long-polls and event streams in this process the moment a run commits, so they need not
 * poll the database in a loop. Across processes (Workers isolates) waiters fall back to a slow
 * poll; the notifier only makes the common case instant.
 */
export class RunNotifier {
  readonly #waiters = new Map<string, Set<() => void>>();

  notify(runId: string): void {
    const waiters = this.#waiters.get(runId);
    if (!waiters) return;
    this.#waiters.delete(runId);
    for (const wake of waiters) wake();
  }

  /** Resolve true when the run is notified, false after `ms` or when the signal aborts. */
  wait(runId: string, ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve(false);
      let set = this.#waiters.get(runId);
      if (!set) {
        set = new Set();
        this.#waiters.set(runId, set);
      }
      const done = (value: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        set.delete(wake);
        if (set.size === 0 && this.#waiters.get(runId) === set) this.#waiters.delete(runId);
        resolve(value);
      };
      const wake = () => done(true);
      const onAbort = () => done(false);
      const timer = setTimeout(() => done(false), Math.max(0, ms));
      set.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
