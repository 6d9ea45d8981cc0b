import { z } from 'zod';
import { EVAL_RUN_KIND } from '../../schema/evals.js';
import { GraderSpecSchema, InputSchemaSpec } from './definition.js';
import { EvalScopeSchema, type Evidence } from './evidence.js';
import type { Verdict } from './verdict.js';

export { EVAL_RUN_KIND };

/**
 * What an eval run stores at submission: the eval as it was then (so editing a workspace eval
 * never changes a queued run's grading), the validated inputs, the scope, the reuse key.
 */
export const EvalRunInputSchema = z
  .object({
    eval: z.object({
      id: z.string(),
      slug: z.string(),
      name: z.string(),
      version: z.string(),
      builtin: z.boolean(),
      input_schema: InputSchemaSpec,
      graders: z.array(GraderSpecSchema),
    }),
    inputs: z.record(z.string(), z.unknown()),
    scope: EvalScopeSchema.nullable(),
    evidence_from_run: z.uuid().nullable(),
    reuse_key: z.string(),
  })
  .strict();
export type EvalRunInput = z.infer<typeof EvalRunInputSchema>;

/** Evidence and verdict are the service's own values, checked for shape where they are read. */
export const EvalRunStateSchema = z
  .object({
    evidence: z
      .custom<Evidence>((v) => typeof v === 'object' && v !== null && Array.isArray((v as { quotes?: unknown }).quotes))
      .optional(),
    verdict: z
      .custom<Verdict>((v) => typeof v === 'object' && v !== null && Array.isArray((v as { cases?: unknown }).cases))
      .optional(),
  })
  .passthrough();
export type EvalRunState = z.infer<typeof EvalRunStateSchema>;
