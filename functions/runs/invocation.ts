import { NonRetryableError, type RunView } from '../../queues/pipeline.js';
import type { Caller } from '../identity/caller.js';
import { resolveRunCaller } from '../identity/run-caller.js';
import { invokeAsValue, type InvocationResult, type InvocationScope } from '../invoke.js';
import type { Services } from '../services.js';

/** A stage's way into the operations, as the run's caller (what an agent's tools go through). */
export interface RunInvocation {
  caller: Caller;
  scope: InvocationScope;
  /** Call an operation; a failure the caller could see comes back as a value, not a throw. */
  invoke(operationId: string, args: Record<string, unknown>): Promise<InvocationResult>;
}

/**
 * Build the invocation scope of one stage of a run from the caller stored with it, re-checked now
 * (membership, revocation, scopes narrowed: functions/identity/run-caller.ts). A removed member or a
 * revoked credential fails the run with `forbidden` (not retried). Calls go through the same path as
 * REST and MCP (scopes, role, validation, quotas) with origin `run`: the interactive per-user rate
 * limits do not apply to them (docs/guides/api-basics.md, "Limits").
 */
export async function invocationForRun(services: Services, run: RunView, signal: AbortSignal): Promise<RunInvocation> {
  if (!run.caller) throw new NonRetryableError('forbidden', 'This run was started without a caller to act as.');
  const caller = await resolveRunCaller(services.db, run.workspaceId, run.caller);
  const scope: InvocationScope = {
    registry: services.registry,
    services,
    caller,
    correlationId: `run:${run.id}`,
    signal,
    origin: 'run',
    run: { id: run.id, kind: run.kind, input: run.input },
  };
  return { caller, scope, invoke: (operationId, args) => invokeAsValue(scope, operationId, args) };
}
