/** How long synchronous work runs before it lets the event loop answer others (ms). */
export const YIELD_SLICE_MS = 8;

/** A macrotask: timers, I/O and other requests run before the caller goes on (a resolved promise would not let them). */
export const nextMacrotask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * A function to call between steps of a long loop: it returns at once while the current slice of
 * work is under `sliceMs`, and otherwise waits for the next macrotask, so one process's HTTP server,
 * queue and background work keep sharing its event loop. Works on Node and Workers alike.
 */
export function yielder(sliceMs = YIELD_SLICE_MS): () => Promise<void> {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await nextMacrotask();
    sliceStart = performance.now();
  };
}
