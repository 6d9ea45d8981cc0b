import { ApiError } from '../../platform/errors.js';
import {
  EVAL_RUN_KIND,
  EvalRunInputSchema,
  EvalRunStateSchema,
  type EvalRunInput,
  type EvalRunState,
} from './run-state.js';
import { EvidenceUnavailable, gatherEvidence, type Evidence } from './evidence.js';
import { gradeRun } from './verdict.js';
import type { EvalDefinition } from './definition.js';
import { invocationForRun } from '../runs/invocation.js';
import type { Services } from '../services.js';
import { NonRetryableError, definePipeline } from '../../queues/pipeline.js';
import { loadWorkspaceRun } from '../../queues/run-store.js';

/** What the quotes should be about: the audience and the graded text (the message before the prompt that writes it). */
function topicOf(input: EvalRunInput): string {
  const targets = [...new Set(input.eval.graders.map((g) => g.target))].sort((a, b) =>
    a === 'message' ? -1 : b === 'message' ? 1 : 0,
  );
  const graded = targets
    .map((t) => input.inputs[t])
    .find((v): v is string => typeof v === 'string' && v.trim().length > 0);
  return [input.inputs.audience, graded].filter((v): v is string => typeof v === 'string').join('\n');
}

/**
 * An eval run: `retrieve` finds the customer quotes to grade against (or takes them from an
 * earlier run), `grade` grades each case, rewrites and grades the rewrite, and completes with the
 * report card. A run only reads: it writes nothing but its own run row.
 */
export const evalRunPipeline = definePipeline<Services, EvalRunInput, EvalRunState>({
  kind: EVAL_RUN_KIND,
  input: EvalRunInputSchema,
  state: EvalRunStateSchema,
  stages: {
    async retrieve(ctx) {
      const { input } = ctx;
      let evidence: Evidence;
      if (input.evidence_from_run) {
        const source = await loadWorkspaceRun(ctx.services.db, ctx.run.workspaceId, input.evidence_from_run, [
          EVAL_RUN_KIND,
        ]).catch(() => null);
        const earlier = (source?.state as EvalRunState | undefined)?.evidence;
        if (!earlier)
          throw new NonRetryableError('invalid_argument', 'evidence_from_run no longer holds retrieved quotes.');
        evidence = {
          ...earlier,
          retrieval_status: 'from_run',
          abstain_reason: null,
          notes: [...earlier.notes, `Quotes taken from run ${input.evidence_from_run}.`],
        };
      } else {
        const invocation = await invocationForRun(ctx.services, ctx.run, ctx.signal);
        try {
          evidence = await gatherEvidence(ctx.services.db, ctx.run.workspaceId, invocation.invoke, {
            topic: topicOf(input),
            account: typeof input.inputs.account === 'string' ? input.inputs.account : null,
            referenceAccounts: Array.isArray(input.inputs.reference_accounts)
              ? (input.inputs.reference_accounts as string[])
              : [],
            scope: input.scope ?? undefined,
          });
        } catch (error) {
          if (error instanceof EvidenceUnavailable) {
            const retryable =
              error.code === 'dependency_unavailable' ||
              error.code === 'service_unavailable' ||
              error.code === 'internal' ||
              error.code === 'rate_limited';
            if (retryable) throw new ApiError('dependency_unavailable', `Retrieval failed: ${error.message}`);
            throw new NonRetryableError(error.code, `Retrieval failed: ${error.message}`);
          }
          throw error;
        }
      }
      await ctx.checkpoint();
      return {
        next: 'grade',
        state: { evidence },
        output: { retrieved_quotes: evidence.quotes.length, retrieval_status: evidence.retrieval_status },
      };
    },
    async grade(ctx) {
      const evidence = ctx.state.evidence;
      if (!evidence) throw new NonRetryableError('invalid_state', 'The grade stage ran before retrieval.');
      const def: EvalDefinition = {
        id: ctx.input.eval.id,
        slug: ctx.input.eval.slug,
        name: ctx.input.eval.name,
        description: '',
        version: ctx.input.eval.version,
        builtin: ctx.input.eval.builtin,
        inputSchema: ctx.input.eval.input_schema,
        graders: ctx.input.eval.graders,
        createdAt: null,
        updatedAt: null,
      };
      const verdict = await gradeRun(ctx.services.model, def, ctx.input.inputs, evidence, ctx.signal);
      return {
        complete: true,
        state: { verdict },
        output: { overall_score: verdict.overall_score, verdict: verdict.verdict },
      };
    },
  },
  deadlineMs: 120_000,
  retry: { maxAttempts: 4, baseDelayMs: 1_000, maxDelayMs: 15_000 },
});
