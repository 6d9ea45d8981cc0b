/**
 * Let the event loop turn before going on: requests that arrived meanwhile are read and answered
 * first. Background work (the scheduled tick, its batches) awaits this between its steps and
 * chunks, because a PGlite statement runs synchronously and a chain of them settles through
 * microtasks only: without it a whole tick holds the loop from its first statement to its last.
 * setImmediate runs after the loop has polled for I/O; a runtime without it (Workers) waits a timer.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise<void>((resolve) => {
    if (typeof setImmediate === 'function') setImmediate(resolve);
    else setTimeout(resolve, 0);
  });
}

/** Items a background step handles between two yields (one transaction each). */
export const BACKGROUND_CHUNK = 100;
