import type { SeededWorkspace } from '../support/harness.js';

const made = new WeakMap<SeededWorkspace, Map<string, Promise<unknown>>>();

/**
 * One resource per workspace and purpose, made on first use and shared by every probe after it. For
 * the resources that operations only read (a finished chat, a finished research job, a pair of
 * complete eval runs): a probe of a read changes nothing, so each probe making its own would only
 * repeat an agent run. Resources an operation changes (a run to cancel, a paused job to answer) stay
 * one per probe.
 */
export function readOnce<T>(ws: SeededWorkspace, purpose: string, make: () => Promise<T>): Promise<T> {
  const byPurpose = made.get(ws) ?? new Map<string, Promise<unknown>>();
  made.set(ws, byPurpose);
  const existing = byPurpose.get(purpose) as Promise<T> | undefined;
  if (existing) return existing;
  const resource = make();
  byPurpose.set(purpose, resource);
  return resource;
}
