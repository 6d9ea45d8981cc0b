import { z } from 'zod';
import type { ModelTask } from '../../platform/model/port.js';
import { ARTIFACT_TYPES, DIMENSION_IDS, type DimensionId } from './definition.js';
import { DIMENSION_PASS, scoreDimensionLocally } from './dimensions.js';
import type { GradingContext } from './grading-context.js';
import { rewriteLocally } from './rewrite.js';
import { stanceOf } from './stance.js';
import { suggestLocally } from './suggest.js';

/**
 * The eval's language work as model tasks (platform/model/port.ts): grading dimensions and quote
 * stances, rewriting, advisory suggestions. Hosted providers answer in the zod schemas below; the
 * local provider runs the deterministic functions beside them. Nothing above this file knows which.
 */

const AccountFactsSchema = z
  .object({
    name: z.string(),
    type: z.string().nullable(),
    industry: z.string().nullable(),
    openDeals: z.number().int(),
    lastInteractionAt: z.string().nullable(),
  })
  .nullable();

const GradeInput = z.object({
  target: z.enum(['message', 'prompt']),
  text: z.string(),
  dimensions: z.array(z.enum(DIMENSION_IDS)),
  artifact_type: z.enum(ARTIFACT_TYPES).nullable(),
  audience: z.string().nullable(),
  account: AccountFactsSchema,
  reference_accounts: z.array(z.string()),
  /** Verbatim customer quotes, by index; the model says which back the text and which cut against it. */
  quotes: z.array(z.object({ index: z.number().int(), text: z.string() })),
});
type GradeInput = z.infer<typeof GradeInput>;

const GradeOutput = z.object({
  dimensions: z.array(
    z.object({ name: z.enum(DIMENSION_IDS), score: z.number().int().min(1).max(5), reasoning: z.string().max(1000) }),
  ),
  quote_stances: z.array(z.object({ index: z.number().int(), stance: z.enum(['supports', 'contradicts']) })),
});
export type GradeOutput = z.infer<typeof GradeOutput>;

const contextOf = (input: GradeInput, stances: Map<number, 'supports' | 'contradicts'>): GradingContext => ({
  artifactType: input.artifact_type,
  audience: input.audience,
  account: input.account,
  referenceAccounts: input.reference_accounts,
  quotes: input.quotes.map((q) => ({
    text: q.text,
    stance: stances.get(q.index) ?? 'supports',
    source: { interaction_id: '', turn_id: '', speaker: null, occurred_at: null, account: null, title: null },
  })),
});

export const gradeTask: ModelTask<GradeInput, GradeOutput> = {
  name: 'evals.grade',
  instructions:
    'You grade a sales message or a prompt that writes sales messages, for a B2B team, against verbatim quotes from its customers. ' +
    'For each requested dimension give an integer score 1-5 (4 or more passes) and one or two sentences of reasoning that cite the text or the quotes. ' +
    'Dimensions: relevance (addresses what customers said), customer_language (uses their words), specificity (concrete facts), clarity, call_to_action (one concrete ask), tone (plain, no hype), ' +
    'grounding (a prompt asks for customer evidence), audience (names the reader), format (sets length and shape), guardrails (forbids invented facts). ' +
    'For each quote, say whether it supports the text or contradicts it (rejects or plays down what the text claims or offers). Never invent quotes or facts.',
  input: GradeInput,
  output: GradeOutput,
  local(input) {
    const stances = new Map(input.quotes.map((q) => [q.index, stanceOf(q.text, input.text)] as const));
    const ctx = contextOf(input, stances);
    return {
      dimensions: input.dimensions.map((d: DimensionId) => {
        const scored = scoreDimensionLocally(d, input.text, ctx);
        return { name: scored.name, score: scored.score, reasoning: scored.reasoning };
      }),
      quote_stances: [...stances].map(([index, stance]) => ({ index, stance })),
    };
  },
};

const RewriteInput = z.object({
  target: z.enum(['message', 'prompt']),
  text: z.string(),
  failed: z.array(z.string()),
  artifact_type: z.enum(ARTIFACT_TYPES).nullable(),
  audience: z.string().nullable(),
  account: AccountFactsSchema,
  customer_phrases: z.array(z.string()),
});
const RewriteOutput = z.object({
  text: z.string().min(1).max(25_000),
  what_changed: z.array(z.string().max(500)).max(20),
});

export const rewriteTask: ModelTask<z.infer<typeof RewriteInput>, z.infer<typeof RewriteOutput>> = {
  name: 'evals.rewrite',
  instructions:
    "Rewrite the sales message (or the prompt that writes messages) to fix the failed checks and weak dimensions listed. Keep the sender's voice and intent. " +
    "Use the customers' own phrases where they fit. Add no fact, number, customer name or claim that is not in the text, the phrases or the account record. " +
    'Return the rewritten text and a list of what you changed, one short line each.',
  input: RewriteInput,
  output: RewriteOutput,
  local(input) {
    return rewriteLocally({
      target: input.target,
      text: input.text,
      failed: input.failed,
      artifactType: input.artifact_type,
      audience: input.audience,
      account: input.account,
      customerPhrases: input.customer_phrases,
    });
  },
};

const SuggestInput = z.object({
  text: z.string(),
  failed: z.array(z.object({ check_id: z.string(), note: z.string() })),
  customer_phrases: z.array(z.string()),
});
const SuggestOutput = z.object({
  suggestions: z
    .array(
      z.object({
        anchor: z.string().max(2000).nullable(),
        suggestion: z.string().max(1000),
        reason: z.string().max(1000),
        check_id: z.string().nullable(),
      }),
    )
    .max(20),
});

export const suggestTask: ModelTask<z.infer<typeof SuggestInput>, z.infer<typeof SuggestOutput>> = {
  name: 'evals.suggest',
  instructions:
    'Advise on a sales message without rewriting it: one suggestion per failed check. Anchor each to an exact, verbatim span of the text it is about (copy the span character for character), ' +
    'or null when it is an addition. Say what to change and why.',
  input: SuggestInput,
  output: SuggestOutput,
  local(input) {
    return { suggestions: suggestLocally(input.text, input.failed, input.customer_phrases) };
  },
};

export { DIMENSION_PASS };
