import type { EnginePorts } from './ports.js';
import { isTerminal, loadWorkspaceRun, type RunRow } from './run-store.js';

/** Longest server-side hold of a read (spec, Limits: wait_ms up to 30,000 ms). */
export const MAX_WAIT_MS = 30_000;
/** Re-read at least this often, for commits made by other processes the notifier cannot see. */
const POLL_MS = 1_000;

/**
 * Long-poll a run: return at once if it is terminal or waiting for the client's input, otherwise
 * hold until it changes past `afterSeq` (default: its state when the call arrived) or `waitMs`
 * passes. Waits on the in-process notifier, re-reading at most once a second: never a busy loop.
 */
export async function waitForRunChange(
  services: Pick<EnginePorts, 'db' | 'runNotifier'>,
  workspaceId: string,
  runId: string,
  options: { waitMs: number; afterSeq?: number | undefined; kinds?: readonly string[]; signal?: AbortSignal },
): Promise<RunRow> {
  const deadline = Date.now() + Math.min(Math.max(0, options.waitMs), MAX_WAIT_MS);
  let row = await loadWorkspaceRun(services.db, workspaceId, runId, options.kinds);
  const baseline = options.afterSeq ?? row.lastSeq;
  while (true) {
    if (isTerminal(row.status) || row.status === 'awaiting_input' || row.lastSeq > baseline) return row;
    const remaining = deadline - Date.now();
    if (remaining <= 0 || options.signal?.aborted) return row;
    await services.runNotifier.wait(runId, Math.min(remaining, POLL_MS), options.signal);
    row = await loadWorkspaceRun(services.db, workspaceId, runId, options.kinds);
  }
}
