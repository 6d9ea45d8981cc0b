import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { defineOperation, type Operation, type OperationContext } from '../registry.js';
import { optionalQueryInt } from '../schemas.js';
import { findEval } from './catalog.js';
import { EVAL_RUN_KIND } from './run-state.js';

/**
 * Adoption of an eval's recommendations (spec: adoption rollup). Every count says what it counts
 * and over what; the rate abstains rather than publish a number the data cannot carry:
 * `no_eligible_runs` (no graded run in the window), `thin_window` (fewer than MIN_ELIGIBLE),
 * `no_signal` (enough runs, no counted feedback). `inferred` feedback is reported, never counted.
 */
export const MIN_ELIGIBLE = 5;
const common = {
  tags: ['Evals'],
  stability: 'beta' as const,
  visibility: 'public' as const,
  scopes: ['evals:read'] as const,
  minRole: 'viewer' as const,
};

const Count = z.object({ value: z.number(), denominator: z.string() });
const AdoptionSchema = z
  .object({
    eval_slug: z.string(),
    window: z.object({ from: z.string(), to: z.string(), days: z.number().int() }),
    eligible_runs: Count,
    runs_with_feedback: Count,
    adopted_runs: Count,
    verified_runs: Count,
    not_adopted_runs: Count,
    inferred_signals: Count,
    adoption_rate: z.number().nullable(),
    adoption_rate_denominator: z.string(),
    abstain_reason: z.enum(['thin_window', 'no_signal', 'no_eligible_runs']).nullable(),
  })
  .openapi('EvalAdoption');

const params = z
  .object({
    slug: z
      .string()
      .min(1)
      .max(200)
      .openapi({ param: { name: 'slug', in: 'path' } }),
  })
  .strict();
const query = z
  .object({
    window_days: optionalQueryInt({ min: 1, max: 365 }).openapi({
      description: 'Days back from now (default 30, max 365).',
    }),
  })
  .strict();

interface Counts extends Record<string, unknown> {
  eligible: number;
  with_feedback: number;
  adopted: number;
  verified: number;
  not_adopted: number;
  inferred: number;
  graded: number;
  passed: number;
  mean_score: number | null;
  mean_lift: number | null;
}

async function countsFor(ctx: OperationContext, slug: string, from: Date, to: Date): Promise<Counts> {
  const ws = ctx.caller.workspaceId;
  const [row] = await queryRows<Counts>(
    ctx.services.db,
    sql`with eligible as (
          select r.id, (r.state->'verdict'->>'overall_score')::float8 as score, r.state->'verdict'->>'verdict' as verdict,
                 (select avg((g->'improvement'->>'lift')::float8) from jsonb_array_elements(r.state->'verdict'->'cases') c, jsonb_array_elements(c->'graders') g where g->'improvement'->>'lift' is not null) as lift
          from runs r
          where r.workspace_id = ${ws} and r.kind = ${EVAL_RUN_KIND} and r.status = 'complete'
            and r.input->'eval'->>'slug' = ${slug} and r.created_at >= ${from.toISOString()}::timestamptz and r.created_at < ${to.toISOString()}::timestamptz
            and coalesce(r.state->'verdict'->>'verdict', '') <> 'abstain'
        ),
        fb as (
          select f.run_id,
                 bool_or(f.evidence_kind in ('did_it_myself', 'reported_to_me')) as counted,
                 bool_or(f.evidence_kind in ('did_it_myself', 'reported_to_me') and f.adopted) as adopted,
                 bool_or(f.evidence_kind in ('did_it_myself', 'reported_to_me') and f.adopted and f.verified is true) as verified,
                 bool_or(f.evidence_kind in ('did_it_myself', 'reported_to_me') and not f.adopted) as not_adopted,
                 bool_or(f.evidence_kind = 'inferred') as inferred
          from eval_feedback f join eligible e on e.id = f.run_id
          where f.workspace_id = ${ws}
          group by f.run_id
        )
        select (select count(*) from eligible)::int as eligible,
               (select count(*) from fb where counted)::int as with_feedback,
               (select count(*) from fb where adopted)::int as adopted,
               (select count(*) from fb where verified)::int as verified,
               (select count(*) from fb where not_adopted and not adopted)::int as not_adopted,
               (select count(*) from fb where inferred)::int as inferred,
               (select count(*) from eligible where score is not null)::int as graded,
               (select count(*) from eligible where verdict = 'pass')::int as passed,
               (select avg(score) from eligible where score is not null)::float8 as mean_score,
               (select avg(lift) from eligible where lift is not null)::float8 as mean_lift`,
  );
  return row as Counts;
}

async function adoptionOf(ctx: OperationContext, slugOrId: string, windowDays: number | undefined) {
  const def = await findEval(ctx.services.db, ctx.caller.workspaceId, slugOrId);
  if (!def) throw new ApiError('not_found', `No eval ${slugOrId}.`, { eval: slugOrId });
  const days = windowDays ?? 30;
  const to = ctx.services.clock.now();
  const from = new Date(to.getTime() - days * 86_400_000);
  const c = await countsFor(ctx, def.slug, from, to);
  const eligible = 'complete, graded (not abstained) runs of this eval created in the window';
  const counted = 'eligible runs with counted feedback (did_it_myself or reported_to_me)';
  const abstain =
    c.eligible === 0
      ? ('no_eligible_runs' as const)
      : c.eligible < MIN_ELIGIBLE
        ? ('thin_window' as const)
        : c.with_feedback === 0
          ? ('no_signal' as const)
          : null;
  return {
    def,
    counts: c,
    body: {
      eval_slug: def.slug,
      window: { from: from.toISOString(), to: to.toISOString(), days },
      eligible_runs: { value: c.eligible, denominator: eligible },
      runs_with_feedback: { value: c.with_feedback, denominator: `of ${c.eligible} ${eligible}` },
      adopted_runs: { value: c.adopted, denominator: `of ${c.eligible} eligible runs (${counted}, adopted)` },
      verified_runs: {
        value: c.verified,
        denominator: `of ${c.adopted} adopted runs whose target the server checked and found to hold the recommendation`,
      },
      not_adopted_runs: { value: c.not_adopted, denominator: `of ${c.with_feedback} runs with counted feedback` },
      inferred_signals: {
        value: c.inferred,
        denominator: `eligible runs with inferred feedback (stored, never counted in the rate)`,
      },
      adoption_rate: abstain ? null : Math.round((c.adopted / c.eligible) * 1000) / 1000,
      adoption_rate_denominator: `adopted_runs / eligible_runs (needs at least ${MIN_ELIGIBLE} eligible runs and one counted feedback)`,
      abstain_reason: abstain,
    },
  };
}

export const adoptionOperation = defineOperation({
  ...common,
  id: 'evals.adoption',
  method: 'get',
  path: '/evals/{slug}/adoption',
  summary: "How often an eval's recommendations were adopted, with every denominator",
  mcp: { tool: 'evals', action: 'adoption' },
  params,
  query,
  output: AdoptionSchema,
  async handler(ctx, input) {
    return (await adoptionOf(ctx, input.slug, input.window_days)).body;
  },
});

export const kpiOperation = defineOperation({
  ...common,
  id: 'evals.kpi',
  method: 'get',
  path: '/evals/{slug}/kpi',
  summary: "An eval's key figures in a window: adoption, pass rate, mean score and lift",
  params,
  query,
  output: AdoptionSchema.extend({
    pass_rate: z.number().nullable(),
    pass_rate_denominator: z.string(),
    mean_overall_score: Count.extend({ value: z.number().nullable() }),
    mean_lift: Count.extend({ value: z.number().nullable() }),
  }),
  async handler(ctx, input) {
    const { body, counts } = await adoptionOf(ctx, input.slug, input.window_days);
    const r = (n: number | null) => (n === null ? null : Math.round(n * 1000) / 1000);
    return {
      ...body,
      pass_rate: counts.graded === 0 ? null : r(counts.passed / counts.graded),
      pass_rate_denominator: `runs with verdict pass / ${counts.graded} graded runs in the window`,
      mean_overall_score: {
        value: r(counts.mean_score),
        denominator: `mean over ${counts.graded} graded runs in the window`,
      },
      mean_lift: {
        value: r(counts.mean_lift),
        denominator: 'mean over graded runs with a rewrite, of after-side minus before-side score',
      },
    };
  },
});

export const adoptionOperations: Operation[] = [adoptionOperation, kpiOperation];
