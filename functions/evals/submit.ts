import { and, desc, eq, gt, inArray, or, sql } from 'drizzle-orm';
import { runs } from '../../schema/index.js';
import { sha256Hex } from '../../platform/crypto.js';
import { ApiError, isApiError } from '../../platform/errors.js';
import type { Caller } from '../identity/caller.js';
import { runCallerOf } from '../identity/run-caller.js';
import { consumeQuota } from '../limits/quota.js';
import { compileFilterSearch } from '../search/index.js';
import { resolveSearch } from '../search/index.js';
import { SearchRequestSchema } from '../search/index.js';
import type { Services } from '../services.js';
import { canonicalJson } from '../../platform/canonical-json.js';
import { findEval } from './catalog.js';
import { BUILTIN_EVAL_SLUG, checkInputs, type InputError } from './definition.js';
import type { EvalScope } from './evidence.js';
import { EVAL_RUN_KIND, type EvalRunInput, type EvalRunState } from './run-state.js';

/** How long a complete run stays reusable for the same inputs (`reuse: cached`). */
export const REUSE_COMPLETE_FOR_MS = 24 * 3600_000;

export interface SubmitRequest {
  eval?: string | undefined;
  inputs?: Record<string, unknown> | undefined;
  reuse?: 'cached' | 'force' | undefined;
  evidence_from_run?: string | undefined;
  scope?: EvalScope | undefined;
}

export interface SubmitHandle {
  success: true;
  run_id: string;
  reused: boolean;
  status: 'queued' | 'running' | 'complete' | 'failed' | 'canceled';
  eval_slug: string;
  eval_version: string;
  resource: string;
}

/**
 * `POST /evals/run`: validate everything a run will need before accepting it (the eval, every
 * input, the scope's filters against the field vocabulary, the evidence run), then hand back an
 * active run for the same inputs (`reuse: cached`) or start one.
 */
export async function submitEvalRun(services: Services, caller: Caller, request: SubmitRequest): Promise<SubmitHandle> {
  const ref = request.eval ?? BUILTIN_EVAL_SLUG;
  const def = await findEval(services.db, caller.workspaceId, ref);
  if (!def) {
    throw new ApiError('invalid_argument', `Unknown eval "${ref}".`, {
      fields: [{ field: 'eval', problem: `no eval "${ref}" (see GET /evals)`, code: 'unknown_eval' }],
    });
  }
  const { value: inputs, errors } = checkInputs(def.inputSchema, request.inputs ?? {});
  errors.push(...(await scopeErrors(request.scope, caller.workspaceId, services)));
  if (errors.length > 0) {
    throw new ApiError(
      'invalid_argument',
      `Invalid eval inputs: ${errors[0]?.field}: ${errors[0]?.problem}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`,
      { input_errors: errors },
    );
  }
  if (request.evidence_from_run) await requireRetrievedRun(services, caller.workspaceId, request.evidence_from_run);

  const reuseKey = await sha256Hex(
    canonicalJson({
      eval: def.id,
      version: def.version,
      inputs,
      scope: request.scope ?? null,
      evidence_from_run: request.evidence_from_run ?? null,
    }),
  );
  const now = services.clock.now();
  if ((request.reuse ?? 'cached') === 'cached') {
    const [active] = await services.db
      .select({ id: runs.id, status: runs.status })
      .from(runs)
      .where(
        and(
          eq(runs.workspaceId, caller.workspaceId),
          eq(runs.kind, EVAL_RUN_KIND),
          sql`(${runs.input}->>'reuse_key') = ${reuseKey}`,
          or(
            inArray(runs.status, ['queued', 'running']),
            and(eq(runs.status, 'complete'), gt(runs.completedAt, new Date(now.getTime() - REUSE_COMPLETE_FOR_MS))),
          ),
        ),
      )
      .orderBy(desc(runs.createdAt))
      .limit(1);
    if (active) return handle(active.id, true, active.status as SubmitHandle['status'], def.slug, def.version);
  }

  await consumeQuota(services.db, caller.workspaceId, 'evals', now);
  const input: EvalRunInput = {
    eval: {
      id: def.id,
      slug: def.slug,
      name: def.name,
      version: def.version,
      builtin: def.builtin,
      input_schema: def.inputSchema,
      graders: def.graders,
    },
    inputs,
    scope: request.scope ?? null,
    evidence_from_run: request.evidence_from_run ?? null,
    reuse_key: reuseKey,
  };
  const { runId } = await services.engine.start({
    workspaceId: caller.workspaceId,
    kind: EVAL_RUN_KIND,
    input,
    createdBy: caller.userId,
    caller: runCallerOf(caller),
  });
  return handle(runId, false, 'queued', def.slug, def.version);
}

const handle = (
  runId: string,
  reused: boolean,
  status: SubmitHandle['status'],
  slug: string,
  version: string,
): SubmitHandle => ({
  success: true,
  run_id: runId,
  reused,
  status,
  eval_slug: slug,
  eval_version: version,
  resource: `eval-run://${runId}`,
});

/**
 * Each scope filter checked on its own against its surface's field vocabulary (what the run's
 * filter-lane reads will compile), so a bad one is named by its index before the run is accepted.
 */
async function scopeErrors(
  scope: EvalScope | undefined,
  workspaceId: string,
  services: Services,
): Promise<InputError[]> {
  const errors: InputError[] = [];
  for (const [i, { surface, ...filter }] of (scope?.filters ?? []).entries()) {
    try {
      const { search } = await resolveSearch(
        SearchRequestSchema.parse({ mode: 'filter', surface: surface ?? 'interactions', filters: [filter], limit: 1 }),
        services.model,
      );
      compileFilterSearch(search, workspaceId);
    } catch (e) {
      if (!isApiError(e)) throw e;
      const fields = (e.details?.fields as { problem?: string }[] | undefined) ?? [];
      errors.push({ field: `scope.filters.${i}`, problem: fields[0]?.problem ?? e.message, code: 'invalid_filter' });
    }
  }
  return errors;
}

/** The run whose quotes another run reuses: an eval run of this workspace that got past retrieval. */
async function requireRetrievedRun(services: Services, workspaceId: string, runId: string): Promise<void> {
  const [row] = await services.db
    .select({ state: runs.state })
    .from(runs)
    .where(and(eq(runs.id, runId), eq(runs.workspaceId, workspaceId), eq(runs.kind, EVAL_RUN_KIND)));
  const evidence = (row?.state as EvalRunState | undefined)?.evidence;
  if (!row || !evidence) {
    throw new ApiError(
      'invalid_argument',
      `evidence_from_run ${runId} is not an eval run of this workspace that has reached retrieval.`,
      {
        fields: [
          {
            field: 'evidence_from_run',
            problem: row ? 'the run has not retrieved its quotes yet' : 'no such eval run in this workspace',
            code: 'invalid_reference',
          },
        ],
      },
    );
  }
}
