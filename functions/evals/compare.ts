import { z } from '@hono/zod-openapi';
import { ApiError } from '../../platform/errors.js';
import { defineOperation, type OperationContext } from '../registry.js';
import { loadEvalRun, renderEvalRun, verdictOf } from './render.js';
import type { Verdict } from './verdict.js';

/**
 * Eval compare (spec, Versioning 3): two complete runs of the same eval side by side, per case, per
 * grader and per dimension. Scores across `eval_version`s are not poolable, so a pair that spans a
 * version boundary is refused with 409 naming both versions; so is a pair of different evals.
 * Deltas are `b - a` (b is the candidate, a the baseline), null when either side has no score.
 */
export const CompareBody = z
  .object({
    a: z.uuid().openapi({ description: 'Baseline run id.' }),
    b: z.uuid().openapi({ description: 'Candidate run id; every delta is b minus a.' }),
  })
  .strict();

const Pair = z.object({ a: z.number().nullable(), b: z.number().nullable(), delta: z.number().nullable() });
const RunSide = z.object({
  run_id: z.string(),
  created_at: z.string(),
  overall_score: z.number().nullable(),
  verdict: z.string(),
  passed_cases: z.number().int(),
  total_cases: z.number().int(),
});

export const EvalCompareSchema = z
  .object({
    eval_slug: z.string(),
    eval_version: z.string(),
    a: RunSide,
    b: RunSide,
    overall: Pair,
    cases: z.array(
      Pair.extend({
        case_id: z.string(),
        label: z.string(),
        present: z.enum(['both', 'a_only', 'b_only']),
        passed: z.object({ a: z.boolean().nullable(), b: z.boolean().nullable() }),
        graders: z.array(Pair.extend({ grader_id: z.string() })),
        dimensions: z.array(
          Pair.extend({ grader_id: z.string(), name: z.string() }).openapi({
            description: 'A 1-5 dimension score of one grader on this case.',
          }),
        ),
      }),
    ),
  })
  .openapi('EvalCompare');

type Case = Verdict['cases'][number];
type Grader = Case['graders'][number];

const delta = (a: number | null | undefined, b: number | null | undefined) =>
  a == null || b == null ? null : Math.round((b - a) * 1e6) / 1e6;
const pair = (a: number | null | undefined, b: number | null | undefined) => ({
  a: a ?? null,
  b: b ?? null,
  delta: delta(a, b),
});

/** Keys in first-seen order over both sides, so a case or dimension only one run has still shows. */
function unionKeys<T>(a: T[], b: T[], key: (t: T) => string): string[] {
  return [...new Set([...a.map(key), ...b.map(key)])];
}

function compareGraders(a: Grader[], b: Grader[]) {
  const graders = unionKeys(a, b, (g) => g.grader_id).map((id) => ({
    grader_id: id,
    ...pair(a.find((g) => g.grader_id === id)?.score, b.find((g) => g.grader_id === id)?.score),
  }));
  const dims = (gs: Grader[]) => gs.flatMap((g) => g.dimensions.map((d) => ({ grader_id: g.grader_id, ...d })));
  const da = dims(a);
  const db = dims(b);
  const dimensions = unionKeys(da, db, (d) => `${d.grader_id}\u0000${d.name}`).map((k) => {
    const [graderId = '', name = ''] = k.split('\u0000');
    const find = (ds: typeof da) => ds.find((d) => d.grader_id === graderId && d.name === name)?.score;
    return { grader_id: graderId, name, ...pair(find(da), find(db)) };
  });
  return { graders, dimensions };
}

function compareCases(a: Verdict, b: Verdict) {
  return unionKeys(a.cases, b.cases, (c) => c.case_id).map((id) => {
    const ca = a.cases.find((c) => c.case_id === id);
    const cb = b.cases.find((c) => c.case_id === id);
    return {
      case_id: id,
      label: (cb ?? ca)?.label ?? id,
      present: ca && cb ? ('both' as const) : ca ? ('a_only' as const) : ('b_only' as const),
      ...pair(ca?.applicable ? ca.score : null, cb?.applicable ? cb.score : null),
      passed: { a: ca?.passed ?? null, b: cb?.passed ?? null },
      ...compareGraders(ca?.graders ?? [], cb?.graders ?? []),
    };
  });
}

async function completeRun(ctx: OperationContext, id: string, side: 'a' | 'b') {
  const row = await loadEvalRun(ctx, id);
  if (!row) throw new ApiError('not_found', `No eval run ${id} in this workspace.`, { [side]: id });
  const verdict = verdictOf(row);
  if (!verdict)
    throw new ApiError('invalid_state', `Run ${id} is not complete; only complete runs compare.`, {
      [side]: id,
      current_status: renderEvalRun(row).status,
    });
  return { row, verdict };
}

const sideOf = (runId: string, createdAt: Date, v: Verdict) => ({
  run_id: runId,
  created_at: createdAt.toISOString(),
  overall_score: v.overall_score,
  verdict: v.verdict,
  passed_cases: v.summary.passed_cases,
  total_cases: v.summary.total_cases,
});

export const compareEvalRunsOperation = defineOperation({
  tags: ['Evals'],
  stability: 'beta',
  visibility: 'public',
  scopes: ['evals:read'],
  minRole: 'viewer',
  id: 'eval_runs.compare',
  example: { a: '0193a6b2-7c4d-7e8f-9a0b-1c2d3e4f5a6b', b: '0193a6b2-8d5e-7f90-8b1c-2d3e4f5a6b7c' },
  method: 'post',
  path: '/eval-runs/compare',
  summary: 'Two complete runs of one eval side by side: overall, per case, per grader and per dimension',
  description:
    'Body `{a, b}`: run ids; every `delta` is b minus a. Both runs must be complete runs of the same eval at the same `eval_version` ' +
    '(scores across versions are not poolable): a pair across a version boundary is 409 `conflict` with `details.a_version` and `details.b_version`; ' +
    "different evals are 409 `conflict` with both slugs; a run still going is 409 `invalid_state`; an unknown or another workspace's run is 404.",
  mcp: { tool: 'evals', action: 'compare' },
  readOnly: true,
  body: CompareBody,
  output: EvalCompareSchema,
  async handler(ctx, input) {
    const a = await completeRun(ctx, input.a, 'a');
    const b = await completeRun(ctx, input.b, 'b');
    if (a.verdict.eval_slug !== b.verdict.eval_slug)
      throw new ApiError('conflict', 'Runs of different evals do not compare.', {
        a: input.a,
        b: input.b,
        a_slug: a.verdict.eval_slug,
        b_slug: b.verdict.eval_slug,
      });
    if (a.verdict.eval_version !== b.verdict.eval_version)
      throw new ApiError(
        'conflict',
        `Run a is ${a.verdict.eval_slug} ${a.verdict.eval_version} and run b is ${b.verdict.eval_version}: scores across eval versions are not poolable.`,
        {
          eval_slug: a.verdict.eval_slug,
          a: input.a,
          b: input.b,
          a_version: a.verdict.eval_version,
          b_version: b.verdict.eval_version,
        },
      );
    return {
      eval_slug: a.verdict.eval_slug,
      eval_version: a.verdict.eval_version,
      a: sideOf(a.row.id, a.row.createdAt, a.verdict),
      b: sideOf(b.row.id, b.row.createdAt, b.verdict),
      overall: pair(a.verdict.overall_score, b.verdict.overall_score),
      cases: compareCases(a.verdict, b.verdict),
    };
  },
});
