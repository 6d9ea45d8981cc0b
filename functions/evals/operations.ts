import { z } from '@hono/zod-openapi';
import { defineOperation, type Operation } from '../registry.js';
import { listLimitQuery, optionalQueryInt } from '../schemas.js';
import { MAX_WAIT_MS } from '../../queues/run-reads.js';
import { afterQuery, runStreamTarget } from '../runs/run-operations.js';
import { ApiError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { EVAL_RUN_KIND } from './run-state.js';
import { createEval, deleteEval, findEval, listEvals, updateEval, validateDraft } from './catalog.js';
import { checkInputs, type EvalDefinition } from './definition.js';
import { adoptionOperations } from './adoption.js';
import { compareEvalRunsOperation } from './compare.js';
import { exportOperations } from './export.js';
import { feedbackOperations } from './feedback.js';
import { loadEvalRun, renderEvalRun, verdictOf } from './render.js';
import {
  EvalDraftBody,
  EvalPatchBody,
  EvalRunSchema,
  EvalSchema,
  GateSchema,
  RunEvalBody,
  SubmitHandleSchema,
  ValidateBody,
  ValidationSchema,
  type VerdictSchema,
} from './schemas.js';
import { submitEvalRun } from './submit.js';

/**
 * The evals surface (spec: Evals endpoints): the catalog and its authoring, running, the report
 * card and its sub-views. Feedback, adoption and exports are in their own files.
 */
const common = { tags: ['Evals'], stability: 'beta' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['evals:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['evals:write'] as const, minRole: 'editor' as const };

const toApi = (def: EvalDefinition) => ({
  id: def.id,
  slug: def.slug,
  name: def.name,
  description: def.description,
  version: def.version,
  builtin: def.builtin,
  input_schema: def.inputSchema,
  graders: def.graders,
  created_at: def.createdAt,
  updated_at: def.updatedAt,
});

const evalRef = z
  .object({
    slug: z
      .string()
      .min(1)
      .max(200)
      .openapi({ param: { name: 'slug', in: 'path' }, description: 'Slug or id.' }),
  })
  .strict();
const runRef = z
  .object({
    id: z
      .string()
      .min(1)
      .max(200)
      .openapi({ param: { name: 'id', in: 'path' } }),
  })
  .strict();
const waitQuery = z
  .object({
    wait_ms: optionalQueryInt({ min: 0, max: MAX_WAIT_MS }).openapi({
      description: `Hold up to this many ms (max ${MAX_WAIT_MS}) until the run changes or ends.`,
    }),
  })
  .strict();

export const listEvalsOperation = defineOperation({
  ...read,
  id: 'evals.list',
  method: 'get',
  path: '/evals',
  summary: "Browse evals: the built-in ones and this workspace's",
  mcp: { tool: 'evals', action: 'list', resource: 'eval://list' },
  query: z.object(listLimitQuery).strict(),
  output: z.object({ evals: z.array(EvalSchema), total: z.number().int() }),
  async handler({ services, caller }, input) {
    const evals = (await listEvals(services.db, caller.workspaceId)).map(toApi);
    return { evals: evals.slice(0, input.limit ?? evals.length), total: evals.length };
  },
});

export const getEvalOperation = defineOperation({
  ...read,
  id: 'evals.get',
  method: 'get',
  path: '/evals/{slug}',
  summary: 'Read one eval: its version, input schema and graders',
  mcp: { tool: 'evals', action: 'get', resource: 'eval://{slug}' },
  params: evalRef,
  output: EvalSchema,
  async handler({ services, caller }, input) {
    const def = await findEval(services.db, caller.workspaceId, input.slug);
    if (!def) throw new ApiError('not_found', `No eval ${input.slug}.`, { eval: input.slug });
    return toApi(def);
  },
});

export const createEvalOperation = defineOperation({
  ...write,
  id: 'evals.create',
  example: {
    slug: 'compare-openers',
    name: 'Compare openers',
    input_schema: { fields: [{ name: 'opener', type: 'text', required: true, max_length: 2000 }] },
    graders: [{ id: 'rules', kind: 'rule', target: 'opener', checks: ['no_hype', 'has_call_to_action'] }],
  },
  method: 'post',
  path: '/evals',
  summary: 'Author a workspace eval (input schema and graders from the kinds this service implements)',
  description:
    'Grader kinds: `rule` (rubric checks by id) and `improvement_loop` (1-5 dimensions by id, with a rewrite graded the same way). Each grader names the input field it grades (`target`, a text or string field). ' +
    'The eval starts at version 1.0.0; every change to its grading moves it (1.1.0, ...). A slug taken in the workspace or by a built-in eval is 409 `slug_conflict`.',
  body: EvalDraftBody,
  output: EvalSchema,
  successStatus: 201,
  async handler({ services, caller }, input) {
    return toApi(await createEval(services.db, caller.workspaceId, caller.userId, input, services.clock.now()));
  },
});

export const updateEvalOperation = defineOperation({
  ...write,
  id: 'evals.update',
  example: { graders: [{ id: 'rules', kind: 'rule', target: 'opener', checks: ['no_hype'] }] },
  method: 'patch',
  path: '/evals/{slug}',
  summary: 'Change a workspace eval; changing its grading bumps its version',
  params: evalRef,
  body: EvalPatchBody,
  output: EvalSchema,
  async handler({ services, caller }, input) {
    const { slug, ...patch } = input;
    return toApi(await updateEval(services.db, caller.workspaceId, slug, patch, services.clock.now()));
  },
});

export const deleteEvalOperation = defineOperation({
  ...write,
  id: 'evals.delete',
  method: 'delete',
  path: '/evals/{slug}',
  summary: 'Delete a workspace eval (its runs stay readable)',
  params: evalRef,
  output: z.object({ id: z.string(), slug: z.string(), deleted: z.literal(true) }),
  async handler({ services, caller }, input) {
    return { ...(await deleteEval(services.db, caller.workspaceId, input.slug)), deleted: true as const };
  },
});

export const validateEvalOperation = defineOperation({
  ...read,
  id: 'evals.validate',
  example: {
    input_schema: { fields: [{ name: 'opener', type: 'text', required: true, max_length: 2000 }] },
    graders: [{ id: 'rules', kind: 'rule', target: 'opener', checks: ['no_hype', 'has_call_to_action'] }],
    inputs: { opener: 'Saw your post on onboarding pain. Worth a 10-minute chat next week?' },
  },
  method: 'post',
  path: '/evals/validate',
  summary: 'Check an eval definition (and optionally sample inputs) without storing anything',
  mcp: { tool: 'evals', action: 'validate' },
  readOnly: true,
  body: ValidateBody,
  output: ValidationSchema,
  async handler(_ctx, input) {
    const checked = validateDraft(input);
    const issues = [...checked.issues];
    if (input.inputs && checked.inputSchema)
      issues.push(
        ...checkInputs(checked.inputSchema, input.inputs).errors.map((e) => ({ ...e, field: `inputs.${e.field}` })),
      );
    return { valid: issues.length === 0, issues };
  },
});

export const runEvalOperation = defineOperation({
  ...common,
  id: 'evals.run',
  example: {
    eval: 'compare-openers',
    inputs: { opener: 'Saw your post on onboarding pain. Worth a 10-minute chat next week?' },
    reuse: 'cached',
  },
  method: 'post',
  path: '/evals/run',
  summary: 'Grade a prompt and/or a message against what customers said, and improve it',
  description:
    'Answers at once with a submit handle; read the report card with `GET /eval-runs/{id}` (`wait_ms`). `reuse: cached` (default) hands back a run for the same eval version, inputs, scope and evidence that is queued, running, ' +
    'or complete within the last 24 hours (`reused: true`); `force` always starts a new one. Invalid inputs are one 400 `invalid_argument` with `details.input_errors`. ' +
    'A run only reads: it retrieves quotes through search as the caller (so the caller needs `data:read` for retrieval to succeed), grades, rewrites and grades the rewrite. ' +
    'Below the evidence floor (3 verified quotes) it abstains and says why, unless `scope.allow_thin_evidence`.',
  scopes: ['evals:execute'],
  minRole: 'viewer',
  mcp: { tool: 'evals', action: 'run' },
  body: RunEvalBody,
  output: SubmitHandleSchema,
  successStatus: 202,
  readOnly: true,
  async handler({ services, caller }, input) {
    return submitEvalRun(services, caller, input);
  },
});

export const readEvalRunOperation = defineOperation({
  ...read,
  id: 'eval_runs.get',
  method: 'get',
  path: '/eval-runs/{id}',
  summary: 'Read an eval run: status and, once complete, the report card',
  description:
    "An unknown, malformed or other workspace's id is `data: null` (spec). `data.status` is mirrored at `data.run.status`; the terminal success value is `complete`. " +
    "With `Accept: text/event-stream` the run's events instead (`run.queued` ... `run.completed`; replay with `?after=` or `Last-Event-ID`; an unknown id is then 404).",
  mcp: { tool: 'evals', action: 'status', resource: 'eval-run://{id}', resourceAliases: ['eval_run://{id}'] },
  params: runRef,
  query: waitQuery.extend({ after: afterQuery }).strict(),
  output: EvalRunSchema.nullable(),
  async handler(ctx, input) {
    const row = await loadEvalRun(ctx, input.id, input.wait_ms);
    return row ? renderEvalRun(row) : null;
  },
  /**
   * With `Accept: text/event-stream` an eval run streams its events like every run (spec: any endpoint
   * called that way streams). There is no `data: null` to stream: an unknown or another workspace's
   * run is 404 here.
   */
  async stream(ctx, input) {
    if (!isUuid(input.id)) throw new ApiError('not_found', 'No such run in this workspace.', { run_id: input.id });
    return runStreamTarget(ctx, input.id, [EVAL_RUN_KIND], input.after);
  },
});

/** A sub-view of a complete run's report card; null for an unknown id, `verdict: null` while it runs. */
function subView<O extends z.ZodType>(
  id: string,
  segment: string,
  summary: string,
  output: O,
  pick: (v: z.infer<typeof VerdictSchema>) => z.input<O>,
  mcpAction?: string,
): Operation {
  return defineOperation({
    ...read,
    id,
    method: 'get',
    path: `/eval-runs/{id}/${segment}`,
    summary,
    ...(mcpAction ? { mcp: { tool: 'evals', action: mcpAction } } : {}),
    params: runRef,
    output: z.object({ run_id: z.string(), status: z.string(), [segment]: output.nullable() }).nullable(),
    async handler(ctx, input) {
      const row = await loadEvalRun(ctx, input.id);
      if (!row) return null;
      const verdict = verdictOf(row);
      return {
        run_id: row.id,
        status: renderEvalRun(row).status,
        [segment]: verdict ? pick(verdict as z.infer<typeof VerdictSchema>) : null,
      };
    },
  });
}

const CaseSides = z.array(
  z.object({
    case_id: z.string(),
    before: z.string().nullable(),
    after: z.string().nullable(),
    what_changed: z.array(z.string()),
  }),
);

export const evalRunSubViews: Operation[] = [
  subView(
    'eval_runs.gate',
    'gate',
    'The pipeline gate of an eval run: passed, score, threshold, reasoning, critique, denominator',
    GateSchema,
    (v) => v.gate,
    'gate',
  ),
  subView('eval_runs.drafts', 'drafts', 'The submitted and rewritten text of each case', CaseSides, (v) =>
    v.cases.map((c) => {
      const improvement = c.graders.find((g) => g.improvement)?.improvement;
      const text = (s: { prompt: string | null; message: string | null } | null | undefined) =>
        s ? (s.message ?? s.prompt) : null;
      return {
        case_id: c.case_id,
        before: text(improvement?.before),
        after: text(improvement?.after),
        what_changed: improvement?.what_changed ?? [],
      };
    }),
  ),
  subView(
    'eval_runs.improvement',
    'improvement',
    'Before and after sides of each case, with lift and what changed',
    z.array(z.object({ case_id: z.string(), improvement: z.unknown().nullable() })),
    (v) =>
      v.cases.map((c) => ({
        case_id: c.case_id,
        improvement: c.graders.find((g) => g.improvement)?.improvement ?? null,
      })),
  ),
  subView(
    'eval_runs.evidence',
    'evidence',
    'The customer quotes the run graded against, with stances, and how retrieval went',
    z.object({ summary: z.unknown(), quotes: z.array(z.unknown()) }),
    (v) => ({
      summary: v.evidence,
      quotes: v.cases
        .flatMap((c) => c.graders.find((g) => g.quotes.length > 0)?.quotes ?? [])
        .filter((q, i, all) => all.findIndex((o) => o.text === q.text && o.source.turn_id === q.source.turn_id) === i),
    }),
  ),
];

export const evalOperations: Operation[] = [
  listEvalsOperation,
  ...exportOperations,
  validateEvalOperation,
  runEvalOperation,
  createEvalOperation,
  getEvalOperation,
  updateEvalOperation,
  deleteEvalOperation,
  ...adoptionOperations,
  compareEvalRunsOperation,
  readEvalRunOperation,
  ...evalRunSubViews,
  ...feedbackOperations,
];
