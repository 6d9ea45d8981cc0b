import { z } from '@hono/zod-openapi';
import { EVAL_MODES, GraderSpecSchema, InputSchemaSpec } from './definition.js';
import { EvalScopeSchema, RETRIEVAL_STATUSES } from './evidence.js';

/** The evals surface's request and response shapes (spec: Evals endpoints, Eval run). */

export const EvalSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    version: z
      .string()
      .openapi({ description: 'Dotted; moves whenever grading changes. Runs across versions are not poolable.' }),
    builtin: z.boolean(),
    input_schema: InputSchemaSpec,
    graders: z.array(GraderSpecSchema),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
  })
  .openapi('Eval');

export const EvalDraftBody = z
  .object({
    slug: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{1,58}[a-z0-9]$/, 'lower-case letters, digits and dashes, 3-60 characters'),
    name: z.string().trim().min(1).max(120),
    description: z.string().max(2000).optional(),
    input_schema: z.unknown().openapi({
      description:
        '`{fields: [{name, type: text|string|enum|string_list, required, description, max_length, values}], require_one_of: [[field, ...]]}`',
    }),
    graders: z.unknown().openapi({
      description:
        '`[{id, kind: rule, target, checks[], pass_threshold} | {id, kind: improvement_loop, target, dimensions[], pass_threshold}]`',
    }),
  })
  .strict();

export const EvalPatchBody = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    description: z.string().max(2000).optional(),
    input_schema: z.unknown().optional(),
    graders: z.unknown().optional(),
  })
  .strict();

export const ValidateBody = z
  .object({
    input_schema: z.unknown(),
    graders: z.unknown(),
    inputs: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: 'Sample run inputs to check against the candidate input schema.' }),
  })
  .strict();

export const ValidationSchema = z
  .object({
    valid: z.boolean(),
    issues: z.array(
      z.object({ field: z.string(), problem: z.string(), code: z.string(), allowed: z.array(z.string()).optional() }),
    ),
  })
  .openapi('EvalValidation');

export const RunEvalBody = z
  .object({
    eval: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({ default: 'prompt-and-message-eval', description: 'Slug or id.' }),
    inputs: z.record(z.string(), z.unknown()).optional().openapi({ default: {} }),
    reuse: z.enum(['cached', 'force']).optional().openapi({ default: 'cached' }),
    evidence_from_run: z.uuid().optional(),
    scope: EvalScopeSchema.optional(),
  })
  .strict();

export const SubmitHandleSchema = z
  .object({
    success: z.literal(true),
    run_id: z.uuid(),
    reused: z.boolean(),
    status: z.enum(['queued', 'running', 'complete', 'failed', 'canceled']),
    eval_slug: z.string(),
    eval_version: z.string(),
    resource: z.string(),
  })
  .openapi('EvalSubmitHandle');

const DimensionSchema = z.object({
  name: z.string(),
  pass: z.boolean(),
  score: z.number().int().min(1).max(5),
  reasoning: z.string(),
});
const QuoteSchema = z.object({
  text: z.string(),
  source: z.object({
    interaction_id: z.string(),
    turn_id: z.string(),
    speaker: z.string().nullable(),
    occurred_at: z.string().nullable(),
    account: z.string().nullable(),
    title: z.string().nullable(),
  }),
  stance: z.enum(['supports', 'contradicts']),
});
const SideSchema = z.object({
  label: z.string(),
  prompt: z.string().nullable(),
  prompt_note: z.string().nullable(),
  message: z.string().nullable(),
  message_note: z.string().nullable(),
  score: z.number().nullable(),
  score_15: z.number().nullable(),
  checks_passed: z.number().int(),
  checks_total: z.number().int(),
  dimensions: z.array(DimensionSchema),
  quotes: z.array(QuoteSchema),
  reasoning: z.string(),
});
const ImprovementSchema = z.object({
  before: SideSchema,
  after: SideSchema.nullable(),
  lift: z.number().nullable(),
  what_changed: z.array(z.string()),
});
const EvidenceBlockSchema = z.object({
  before_score: z.number().nullable(),
  after_score: z.number().nullable(),
  lift: z.number().nullable(),
  message_simulated: z.boolean(),
  retrieved_quotes: z.number().int(),
  retrieval_status: z.enum(RETRIEVAL_STATUSES),
});
const GraderSchema = z.object({
  grader_id: z.string(),
  kind: z.enum(['rule', 'improvement_loop']),
  score: z.number().nullable(),
  passed: z.boolean(),
  rationale: z.string(),
  checks: z
    .array(
      z.object({
        check_id: z.string(),
        label: z.string(),
        applicable: z.boolean(),
        passed: z.boolean(),
        note: z.string(),
      }),
    )
    .optional(),
  improvement: ImprovementSchema.optional(),
  dimensions: z.array(DimensionSchema),
  quotes: z.array(QuoteSchema),
  rewrite: z.string().nullable(),
  suggestions: z
    .array(
      z.object({
        anchor: z.string().nullable(),
        suggestion: z.string(),
        reason: z.string(),
        check_id: z.string().nullable(),
      }),
    )
    .optional(),
  evidence: EvidenceBlockSchema,
});
export const GateSchema = z
  .object({
    passed: z.boolean(),
    score: z.number().nullable(),
    threshold: z.number(),
    reasoning: z.string().nullable(),
    critique: z.array(z.string()).nullable(),
    denominator: z.enum(['applicable_only', 'all_dimensions']),
    checks_total: z.number().int(),
    checks_passed: z.number().int(),
  })
  .openapi('EvalGate');
export const VerdictSchema = z
  .object({
    eval_slug: z.string(),
    eval_version: z.string(),
    mode: z.enum(EVAL_MODES),
    overall_score: z.number().min(0).max(1).nullable(),
    overall_reasoning: z.string(),
    verdict: z.enum(['pass', 'needs_work', 'abstain']),
    cases: z.array(
      z.object({
        case_id: z.string(),
        label: z.string(),
        answered: z.boolean(),
        applicable: z.boolean(),
        score: z.number().nullable(),
        passed: z.boolean(),
        latency_ms: z.number().int(),
        graders: z.array(GraderSchema),
      }),
    ),
    summary: z.object({
      total_cases: z.number().int(),
      passed_cases: z.number().int(),
      failed_cases: z.number().int(),
      not_applicable_cases: z.number().int(),
    }),
    gate: GateSchema,
    evidence: z.object({
      retrieved_quotes: z.number().int(),
      retrieval_status: z.enum(RETRIEVAL_STATUSES),
      floor: z.number().int(),
      off_topic: z.number().int().nullable().openapi({
        description:
          'Customer statements found but left out by the relevance check (verbatim, not about the text); null on runs retrieved before the check.',
      }),
      abstain_reason: z.string().nullable(),
      notes: z.array(z.string()),
      slice: z
        .object({
          filters: z.number().int(),
          interactions: z.number().int().nullable(),
          accounts: z.number().int().nullable(),
          partial: z.boolean(),
        })
        .nullable(),
      account_found: z.boolean().nullable(),
    }),
  })
  .openapi('EvalVerdict');

const RunStatusEnum = z.enum(['queued', 'running', 'complete', 'failed', 'canceled']);
export const EvalRunSchema = z
  .object({
    status: RunStatusEnum,
    run: z.object({
      id: z.uuid(),
      status: RunStatusEnum,
      eval_slug: z.string(),
      eval_version: z.string(),
      mode: z.enum(EVAL_MODES),
      inputs: z.record(z.string(), z.unknown()),
      created_at: z.string(),
      started_at: z.string().nullable(),
      completed_at: z.string().nullable(),
      error: z.object({ code: z.string(), message: z.string() }).nullable(),
      verdict: VerdictSchema.nullable(),
    }),
  })
  .openapi('EvalRun');

export const FeedbackBody = z
  .object({
    evidence: z
      .object({ kind: z.enum(['did_it_myself', 'reported_to_me', 'inferred']), note: z.string().max(2000).optional() })
      .strict(),
    adopted: z
      .boolean()
      .optional()
      .openapi({ default: true, description: 'Whether the recommendation was used (false: seen and not used).' }),
    applied_to: z
      .object({ kind: z.enum(['routine', 'agent', 'artifact']), id: z.uuid() })
      .strict()
      .optional()
      .openapi({ description: 'Where the recommendation was applied; the server checks that target holds it.' }),
  })
  .strict();

export const FeedbackSchema = z
  .object({
    id: z.uuid(),
    run_id: z.uuid(),
    evidence_kind: z.enum(['did_it_myself', 'reported_to_me', 'inferred']),
    counted: z.boolean().openapi({ description: 'false for `inferred`: kept, never counted in a published rate.' }),
    adopted: z.boolean(),
    note: z.string().nullable(),
    applied_to: z.object({ kind: z.string(), id: z.string() }).nullable(),
    verified: z.boolean().nullable(),
    verification_reason: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('EvalFeedback');
