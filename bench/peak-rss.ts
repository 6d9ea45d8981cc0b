/**
 * Peak resident memory of one piece of work, above the process's resident memory when it starts.
 *
 * On Linux the peak is the kernel's own: /proc/self/status VmHWM (the most resident memory the
 * process has had), reset to the current RSS by writing 5 to /proc/self/clear_refs just before the
 * work, so no peak is missed, inside long synchronous work included (a timer sampling on the main
 * thread never runs while pdf.js parses a page). Elsewhere the RSS is sampled every 5 ms, which can
 * miss peaks. Before each measurement a full GC runs, so the garbage of earlier work is not counted
 * as the start level and then released into this work's figure.
 *
 * Allocator caveat: glibc keeps freed heap memory for reuse, so memory freed by earlier work can be
 * reused without the RSS growing. Run the measured process with MALLOC_MMAP_THRESHOLD_ set (1 MiB
 * here: large buffers are mapped on their own and unmapped when freed) and measure each size in a
 * fresh process, as bench/knowledge.ts does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const MB = 1024 * 1024;

/** V8's gc(), exposed at run time (no --expose-gc needed on the command line). */
const fullGc: () => void = (() => {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

function kernelPeakBytes(): number | null {
  try {
    const kb = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

function resetKernelPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

/** Whether the kernel's peak can be read and reset here (else RSS is sampled). */
const kernelPeak = kernelPeakBytes() !== null && resetKernelPeak();

export const peakRssMethod = kernelPeak
  ? 'peak RSS = kernel VmHWM, reset before each step (clear_refs), minus RSS at the step start after a full GC'
  : 'peak RSS sampled every 5 ms (may miss peaks), minus RSS at the step start after a full GC';

export interface Measured<T> {
  value: T;
  ms: number;
  peakGrowthMb: number;
}

/** Run `work`, timing it and measuring its peak RSS above the level at its start. */
export async function measurePeakRss<T>(work: () => Promise<T>): Promise<Measured<T>> {
  // Freed ArrayBuffers are released by a background thread after a GC: let it finish, then collect again.
  fullGc();
  await new Promise((resolve) => setTimeout(resolve, 100));
  fullGc();
  const before = process.memoryUsage.rss();
  let sampledPeak = before;
  const sampler = kernelPeak
    ? null
    : setInterval(() => {
        sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
      }, 5);
  if (kernelPeak) resetKernelPeak();
  const started = performance.now();
  try {
    const value = await work();
    const ms = performance.now() - started;
    const peak = kernelPeak ? (kernelPeakBytes() ?? before) : Math.max(sampledPeak, process.memoryUsage.rss());
    return { value, ms, peakGrowthMb: Math.max(0, peak - before) / MB };
  } finally {
    if (sampler) clearInterval(sampler);
  }
}
