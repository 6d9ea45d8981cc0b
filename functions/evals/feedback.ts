import { z } from '@hono/zod-openapi';
import { and, asc, desc, eq } from 'drizzle-orm';
import { agents, artifacts, artifactVersions, evalFeedback, routines } from '../../schema/index.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { defineOperation, type Operation } from '../registry.js';
import { loadEvalRun, verdictOf } from './render.js';
import type { EvalRunInput } from './run-state.js';
import { FeedbackBody, FeedbackSchema } from './schemas.js';
import { sentencesOf } from './text.js';
import type { Verdict } from './verdict.js';

/**
 * What happened after a run (spec: feedback). Evidence kinds `did_it_myself` and `reported_to_me`
 * count in published rates; `inferred` is stored and never counted. With `applied_to`, the server
 * reads the target (a routine's or agent's prompt, a document's current text) and checks that it
 * holds the recommendation: `verified` true or false with the reason; null when nothing was checked.
 */
const common = { tags: ['Evals'], stability: 'beta' as const, visibility: 'public' as const };
const runRef = z
  .object({
    id: z
      .string()
      .min(1)
      .max(200)
      .openapi({ param: { name: 'id', in: 'path' } }),
  })
  .strict();

export const COUNTED_EVIDENCE = ['did_it_myself', 'reported_to_me'] as const;
/** Share of the recommendation's new lines the target must hold to count as applied. */
const VERIFY_SHARE = 0.8;

const normalize = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** The lines a run recommended adding: what its rewrites say that the submitted text did not. */
export function recommendedLines(verdict: Verdict): string[] {
  const lines: string[] = [];
  for (const c of verdict.cases) {
    const improvement = c.graders.find((g) => g.improvement)?.improvement;
    const before = improvement?.before.prompt ?? improvement?.before.message ?? '';
    const after = improvement?.after?.prompt ?? improvement?.after?.message ?? null;
    if (!after) continue;
    const had = new Set(unitsOf(before).map(normalize));
    for (const unit of unitsOf(after)) if (!had.has(normalize(unit))) lines.push(unit);
  }
  return lines;
}

const unitsOf = (text: string): string[] =>
  text
    .split(/\n+/)
    .flatMap((line) => sentencesOf(line))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

async function targetText(
  db: Queryable,
  workspaceId: string,
  target: { kind: 'routine' | 'agent' | 'artifact'; id: string },
): Promise<string | null> {
  switch (target.kind) {
    case 'routine': {
      const [row] = await db
        .select({ text: routines.prompt })
        .from(routines)
        .where(and(eq(routines.id, target.id), eq(routines.workspaceId, workspaceId)));
      return row?.text ?? null;
    }
    case 'agent': {
      const [row] = await db
        .select({ text: agents.prompt })
        .from(agents)
        .where(and(eq(agents.id, target.id), eq(agents.workspaceId, workspaceId)));
      return row?.text ?? null;
    }
    case 'artifact': {
      const [row] = await db
        .select({ text: artifactVersions.markdown })
        .from(artifactVersions)
        .innerJoin(artifacts, eq(artifacts.id, artifactVersions.artifactId))
        .where(
          and(
            eq(artifactVersions.artifactId, target.id),
            eq(artifactVersions.workspaceId, workspaceId),
            eq(artifacts.workspaceId, workspaceId),
          ),
        )
        .orderBy(desc(artifactVersions.version))
        .limit(1);
      return row?.text ?? null;
    }
  }
}

export function verify(recommended: readonly string[], text: string): { verified: boolean; reason: string } {
  const held = normalize(text);
  const found = recommended.filter((line) => held.includes(normalize(line)));
  const share = found.length / recommended.length;
  return share >= VERIFY_SHARE
    ? {
        verified: true,
        reason: `The target holds ${found.length} of the ${recommended.length} recommended line${recommended.length === 1 ? '' : 's'}.`,
      }
    : {
        verified: false,
        reason: `The target holds ${found.length} of the ${recommended.length} recommended line${recommended.length === 1 ? '' : 's'} (${Math.ceil(VERIFY_SHARE * 100)}% needed)${recommended[0] && !held.includes(normalize(recommended[0])) ? `; missing e.g. "${recommended[0]}"` : ''}.`,
      };
}

type Row = typeof evalFeedback.$inferSelect;
const toApi = (r: Row) => ({
  id: r.id,
  run_id: r.runId,
  evidence_kind: r.evidenceKind as z.infer<typeof FeedbackSchema>['evidence_kind'],
  counted: (COUNTED_EVIDENCE as readonly string[]).includes(r.evidenceKind),
  adopted: r.adopted,
  note: r.note,
  applied_to: r.appliedToKind && r.appliedToId ? { kind: r.appliedToKind, id: r.appliedToId } : null,
  verified: r.verified,
  verification_reason: r.verificationReason,
  created_at: r.createdAt.toISOString(),
});

export const postFeedback = defineOperation({
  ...common,
  id: 'eval_runs.feedback',
  example: { evidence: { kind: 'did_it_myself', note: 'Sent the rewritten opener to ten prospects.' }, adopted: true },
  method: 'post',
  path: '/eval-runs/{id}/feedback',
  summary: 'Record what happened after an eval run (adopted or not, and where)',
  description:
    '`evidence.kind`: `did_it_myself`, `reported_to_me` (both counted in adoption rates) or `inferred` (stored, never counted). `adopted` (default true) says whether the recommendation was used. ' +
    "With `applied_to {kind: routine|agent|artifact, id}` the server checks the target holds the recommendation (80% of the lines the run's rewrites added): `verified` true or false with `verification_reason`; null when nothing was checked. " +
    'An unknown run or target in this workspace is 404.',
  scopes: ['evals:execute'],
  minRole: 'viewer',
  mcp: { tool: 'evals', action: 'feedback' },
  params: runRef,
  body: FeedbackBody,
  output: FeedbackSchema,
  successStatus: 201,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const row = await loadEvalRun(ctx, input.id);
    if (!row) throw new ApiError('not_found', `No eval run ${input.id} in this workspace.`, { run_id: input.id });
    let verified: boolean | null = null;
    let reason: string | null = null;
    if (input.applied_to) {
      const text = await targetText(services.db, caller.workspaceId, input.applied_to);
      if (text === null)
        throw new ApiError('not_found', `No ${input.applied_to.kind} ${input.applied_to.id} in this workspace.`, {
          applied_to: input.applied_to,
        });
      const verdict = verdictOf(row);
      const lines = verdict ? recommendedLines(verdict) : [];
      if (!verdict) reason = 'Nothing checked: the run has no report card (it is not complete).';
      else if (lines.length === 0) reason = 'Nothing checked: the run recommended no new text.';
      else ({ verified, reason } = verify(lines, text));
    }
    const [saved] = await services.db
      .insert(evalFeedback)
      .values({
        id: newId(),
        workspaceId: caller.workspaceId,
        runId: row.id,
        evalSlug: (row.input as EvalRunInput).eval.slug,
        userId: caller.userId,
        evidenceKind: input.evidence.kind,
        adopted: input.adopted ?? true,
        note: input.evidence.note ?? null,
        appliedToKind: input.applied_to?.kind ?? null,
        appliedToId: input.applied_to?.id ?? null,
        verified,
        verificationReason: reason,
        createdAt: services.clock.now(),
      })
      .returning();
    return toApi(saved as Row);
  },
});

export const listFeedback = defineOperation({
  ...common,
  id: 'eval_runs.feedback_status',
  method: 'get',
  path: '/eval-runs/{id}/feedback',
  summary: 'Read the feedback recorded for an eval run',
  scopes: ['evals:read'],
  minRole: 'viewer',
  mcp: { tool: 'evals', action: 'feedback_status' },
  params: runRef,
  output: z.object({ run_id: z.string(), feedback: z.array(FeedbackSchema), total: z.number().int() }),
  async handler(ctx, input) {
    const row = await loadEvalRun(ctx, input.id);
    if (!row) throw new ApiError('not_found', `No eval run ${input.id} in this workspace.`, { run_id: input.id });
    const rows = await ctx.services.db
      .select()
      .from(evalFeedback)
      .where(and(eq(evalFeedback.workspaceId, ctx.caller.workspaceId), eq(evalFeedback.runId, row.id)))
      .orderBy(asc(evalFeedback.createdAt), asc(evalFeedback.id));
    return { run_id: row.id, feedback: rows.map(toApi), total: rows.length };
  },
});

export const feedbackOperations: Operation[] = [postFeedback, listFeedback];
