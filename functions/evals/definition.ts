import { z } from 'zod';

/**
 * What an eval is: an input schema (which fields a run takes) and graders (what is checked, on
 * which input field). The built-in `prompt-and-message-eval` is declared here in code; workspace
 * evals are stored in the same shape (schema/evals.ts) and validated by the same schemas.
 */

export const ARTIFACT_TYPES = ['email', 'linkedin', 'call_script', 'landing_page', 'ad', 'other'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];
export const EVAL_MODES = ['rewrite', 'advisory', 'gate'] as const;
export type EvalMode = (typeof EVAL_MODES)[number];

/** One input field of an eval. `text` is graded prose; `string` a short value; `string_list` names. */
export const InputFieldSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'lower_snake_case, at most 40 characters'),
    type: z.enum(['text', 'string', 'enum', 'string_list']),
    required: z.boolean().default(false),
    description: z.string().max(500).default(''),
    max_length: z.number().int().min(1).max(20_000).optional(),
    values: z.array(z.string().min(1).max(100)).min(1).max(50).optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (f.type === 'enum' && !f.values)
      ctx.addIssue({ code: 'custom', path: ['values'], message: 'an enum field needs values' });
    if (f.type !== 'enum' && f.values)
      ctx.addIssue({ code: 'custom', path: ['values'], message: 'only enum fields take values' });
  });
export type InputField = z.output<typeof InputFieldSchema>;

export const InputSchemaSpec = z
  .object({
    fields: z.array(InputFieldSchema).min(1).max(20),
    /** Groups of fields of which at least one must be given (e.g. prompt or message). */
    require_one_of: z.array(z.array(z.string()).min(2)).max(5).default([]),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const names = spec.fields.map((f) => f.name);
    names.forEach((n, i) => {
      if (names.indexOf(n) !== i)
        ctx.addIssue({ code: 'custom', path: ['fields', i, 'name'], message: `duplicate field "${n}"` });
    });
    spec.require_one_of.forEach((group, g) =>
      group.forEach((n, i) => {
        if (!names.includes(n))
          ctx.addIssue({ code: 'custom', path: ['require_one_of', g, i], message: `unknown field "${n}"` });
      }),
    );
  });
export type InputSchemaSpec = z.output<typeof InputSchemaSpec>;

/** The rubric checks a `rule` grader may name (functions/evals/checks.ts implements them). */
export const RUBRIC_CHECK_IDS = [
  'has_call_to_action',
  'length_fits_channel',
  'subject_line',
  'uses_customer_language',
  'no_hype',
  'specific_fact',
  'no_contradicted_claim',
  'reader_focus',
  'prompt_names_audience',
  'prompt_grounds_in_evidence',
  'prompt_sets_format',
  'prompt_states_goal',
  'prompt_forbids_invention',
  'prompt_length',
] as const;
export type RubricCheckId = (typeof RUBRIC_CHECK_IDS)[number];

/** The 1-5 dimensions an `improvement_loop` grader may score (functions/evals/dimensions.ts). */
export const DIMENSION_IDS = [
  'relevance',
  'customer_language',
  'specificity',
  'clarity',
  'call_to_action',
  'tone',
  'grounding',
  'audience',
  'format',
  'guardrails',
] as const;
export type DimensionId = (typeof DIMENSION_IDS)[number];

export const GRADER_KINDS = ['rule', 'improvement_loop'] as const;

export const GraderSpecSchema = z.discriminatedUnion('kind', [
  z
    .object({
      id: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
      kind: z.literal('rule'),
      /** The input field graded (a `text` or `string` field). */
      target: z.string(),
      checks: z.array(z.enum(RUBRIC_CHECK_IDS)).min(1).max(RUBRIC_CHECK_IDS.length),
      pass_threshold: z.number().min(0).max(1).default(0.7),
    })
    .strict(),
  z
    .object({
      id: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
      kind: z.literal('improvement_loop'),
      target: z.string(),
      dimensions: z.array(z.enum(DIMENSION_IDS)).min(1).max(DIMENSION_IDS.length),
      pass_threshold: z.number().min(0).max(1).default(0.7),
    })
    .strict(),
]);
export type GraderSpec = z.output<typeof GraderSpecSchema>;

export interface EvalDefinition {
  id: string;
  slug: string;
  name: string;
  description: string;
  version: string;
  builtin: boolean;
  inputSchema: InputSchemaSpec;
  graders: GraderSpec[];
  createdAt: string | null;
  updatedAt: string | null;
}

export const BUILTIN_EVAL_SLUG = 'prompt-and-message-eval';

const MESSAGE_CHECKS: RubricCheckId[] = [
  'has_call_to_action',
  'length_fits_channel',
  'subject_line',
  'uses_customer_language',
  'no_hype',
  'specific_fact',
  'no_contradicted_claim',
  'reader_focus',
];
const PROMPT_CHECKS: RubricCheckId[] = [
  'prompt_names_audience',
  'prompt_grounds_in_evidence',
  'prompt_sets_format',
  'prompt_states_goal',
  'prompt_forbids_invention',
  'prompt_length',
];

/**
 * The built-in eval. Its version moves whenever its grading moves (a check, a dimension, a weight,
 * a threshold, or what a stored field means): 1.0.0 is the first of this implementation.
 */
export const PROMPT_AND_MESSAGE_EVAL: EvalDefinition = {
  id: '00000000-0000-7000-8000-0000000e0a11',
  slug: BUILTIN_EVAL_SLUG,
  name: 'Prompt and message eval',
  description:
    'Grades a prompt and/or a drafted message against verbatim customer quotes retrieved from the workspace (rubric checks and 1-5 dimensions), ' +
    'then writes an improved version and grades it the same way. Modes: rewrite (default), advisory (anchored suggestions, no prompt rewrite), gate (a pass/fail block for pipelines).',
  version: '1.0.0',
  builtin: true,
  inputSchema: InputSchemaSpec.parse({
    fields: [
      {
        name: 'prompt',
        type: 'text',
        max_length: 20_000,
        description: 'The prompt that writes messages (graded as a prompt).',
      },
      { name: 'message', type: 'text', max_length: 10_000, description: 'A drafted message (graded as a message).' },
      {
        name: 'audience',
        type: 'string',
        max_length: 200,
        description: 'Who the message is for (persona, role, segment).',
      },
      {
        name: 'account',
        type: 'string',
        max_length: 200,
        description: 'The recipient account (its facts are read from the workspace).',
      },
      {
        name: 'reference_accounts',
        type: 'string_list',
        max_length: 200,
        description: 'Accounts whose calls and emails the quotes should come from (at most 10).',
      },
      {
        name: 'artifact_type',
        type: 'enum',
        values: [...ARTIFACT_TYPES],
        description: 'What the message is; rubric lines that do not apply to it are left out of the score.',
      },
      { name: 'mode', type: 'enum', values: [...EVAL_MODES], description: 'rewrite (default), advisory or gate.' },
    ],
    require_one_of: [['prompt', 'message']],
  }),
  graders: [
    { id: 'message_rubric', kind: 'rule', target: 'message', checks: MESSAGE_CHECKS, pass_threshold: 0.7 },
    {
      id: 'message_improvement',
      kind: 'improvement_loop',
      target: 'message',
      dimensions: ['relevance', 'customer_language', 'specificity', 'clarity', 'call_to_action', 'tone'],
      pass_threshold: 0.7,
    },
    { id: 'prompt_rubric', kind: 'rule', target: 'prompt', checks: PROMPT_CHECKS, pass_threshold: 0.7 },
    {
      id: 'prompt_improvement',
      kind: 'improvement_loop',
      target: 'prompt',
      dimensions: ['grounding', 'audience', 'format', 'guardrails', 'clarity'],
      pass_threshold: 0.7,
    },
  ],
  createdAt: null,
  updatedAt: null,
};

export const BUILTIN_EVALS: readonly EvalDefinition[] = [PROMPT_AND_MESSAGE_EVAL];

/** How many items a string_list field takes. */
export const MAX_LIST_ITEMS = 10;

/**
 * Validate a run's inputs against an eval's input schema. Every problem is reported (field, problem,
 * code), so one 400 names them all (`details.input_errors`).
 */
export function checkInputs(
  spec: InputSchemaSpec,
  inputs: Record<string, unknown>,
): { value: Record<string, unknown>; errors: InputError[] } {
  const errors: InputError[] = [];
  const value: Record<string, unknown> = {};
  const known = new Set(spec.fields.map((f) => f.name));
  for (const key of Object.keys(inputs)) {
    if (!known.has(key))
      errors.push({ field: key, problem: `unknown input; allowed: ${[...known].join(', ')}`, code: 'unknown_field' });
  }
  for (const field of spec.fields) {
    const raw = inputs[field.name];
    if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
      if (field.required) errors.push({ field: field.name, problem: 'required', code: 'required' });
      continue;
    }
    const max = field.max_length;
    switch (field.type) {
      case 'text':
      case 'string': {
        if (typeof raw !== 'string') {
          errors.push({ field: field.name, problem: 'must be a string', code: 'invalid_type' });
          break;
        }
        if (max !== undefined && raw.length > max)
          errors.push({
            field: field.name,
            problem: `at most ${max} characters (got ${raw.length})`,
            code: 'too_long',
          });
        else value[field.name] = field.type === 'string' ? raw.trim() : raw;
        break;
      }
      case 'enum': {
        if (typeof raw !== 'string' || !field.values?.includes(raw)) {
          errors.push({
            field: field.name,
            problem: `must be one of ${field.values?.join(', ')}`,
            code: 'invalid_value',
            allowed: field.values ?? [],
          });
        } else value[field.name] = raw;
        break;
      }
      case 'string_list': {
        if (!Array.isArray(raw) || raw.some((v) => typeof v !== 'string' || v.trim() === '')) {
          errors.push({ field: field.name, problem: 'must be a list of non-empty strings', code: 'invalid_type' });
        } else if (raw.length > MAX_LIST_ITEMS) {
          errors.push({ field: field.name, problem: `at most ${MAX_LIST_ITEMS} items`, code: 'too_many' });
        } else if (max !== undefined && raw.some((v: string) => v.length > max)) {
          errors.push({ field: field.name, problem: `each item at most ${max} characters`, code: 'too_long' });
        } else value[field.name] = raw.map((v: string) => v.trim());
        break;
      }
    }
  }
  for (const group of spec.require_one_of) {
    if (
      !group.some((name) => value[name] !== undefined) &&
      !group.some((name) => errors.some((e) => e.field === name))
    ) {
      errors.push({
        field: group.join('|'),
        problem: `at least one of ${group.join(', ')} is required`,
        code: 'required',
      });
    }
  }
  return { value, errors };
}

export interface InputError {
  field: string;
  problem: string;
  code: string;
  allowed?: string[];
}

/** The graded targets of an eval, in grader order: each is one case of a run. */
export function casesOf(def: EvalDefinition): string[] {
  return [...new Set(def.graders.map((g) => g.target))];
}

/** Problems with an authored eval beyond its own schema: graders must target text fields of the input schema. */
export function definitionProblems(inputSchema: InputSchemaSpec, graders: readonly GraderSpec[]): InputError[] {
  const problems: InputError[] = [];
  const fields = new Map(inputSchema.fields.map((f) => [f.name, f]));
  const ids = new Set<string>();
  graders.forEach((g, i) => {
    if (ids.has(g.id))
      problems.push({ field: `graders.${i}.id`, problem: `duplicate grader id "${g.id}"`, code: 'duplicate' });
    ids.add(g.id);
    const target = fields.get(g.target);
    if (!target)
      problems.push({
        field: `graders.${i}.target`,
        problem: `no input field "${g.target}"`,
        code: 'unknown_field',
        allowed: [...fields.keys()],
      });
    else if (target.type !== 'text' && target.type !== 'string')
      problems.push({
        field: `graders.${i}.target`,
        problem: `"${g.target}" is a ${target.type} field; graders grade text or string fields`,
        code: 'invalid_value',
      });
  });
  return problems;
}
