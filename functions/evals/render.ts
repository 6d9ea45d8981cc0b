import { isUuid } from '../../platform/ids.js';
import { isApiError } from '../../platform/errors.js';
import { MAX_WAIT_MS, waitForRunChange } from '../../queues/run-reads.js';
import { loadWorkspaceRun, type RunRow } from '../../queues/run-store.js';
import type { OperationContext } from '../registry.js';
import type { EvalMode } from './definition.js';
import { EVAL_RUN_KIND, type EvalRunInput, type EvalRunState } from './run-state.js';
import type { Verdict } from './verdict.js';

/**
 * Reading eval runs. The spec answers an unknown or another workspace's id with `data: null`
 * (not 404), so a malformed id reads as unknown too; `wait_ms` holds until the run changes or ends.
 */
export async function loadEvalRun(ctx: OperationContext, id: string, waitMs?: number): Promise<RunRow | null> {
  if (!isUuid(id)) return null;
  try {
    return waitMs
      ? await waitForRunChange(ctx.services, ctx.caller.workspaceId, id, {
          waitMs: Math.min(waitMs, MAX_WAIT_MS),
          kinds: [EVAL_RUN_KIND],
          signal: ctx.signal,
        })
      : await loadWorkspaceRun(ctx.services.db, ctx.caller.workspaceId, id, [EVAL_RUN_KIND]);
  } catch (e) {
    if (isApiError(e) && e.code === 'not_found') return null;
    throw e;
  }
}

type PublicStatus = 'queued' | 'running' | 'complete' | 'failed' | 'canceled';
const publicStatus = (status: string): PublicStatus =>
  status === 'awaiting_input' ? 'running' : (status as PublicStatus);

export const verdictOf = (row: RunRow): Verdict | null =>
  row.status === 'complete' ? ((row.state as EvalRunState).verdict ?? null) : null;

export function renderEvalRun(row: RunRow) {
  const input = row.input as EvalRunInput;
  const status = publicStatus(row.status);
  const error = row.error ? { code: row.error.code, message: row.error.message } : null;
  return {
    status,
    run: {
      id: row.id,
      status,
      eval_slug: input.eval.slug,
      eval_version: input.eval.version,
      mode: ((input.inputs.mode as EvalMode | undefined) ?? 'rewrite') as EvalMode,
      inputs: input.inputs,
      created_at: row.createdAt.toISOString(),
      started_at: row.startedAt?.toISOString() ?? null,
      completed_at: row.completedAt?.toISOString() ?? null,
      error,
      verdict: verdictOf(row),
    },
  };
}
