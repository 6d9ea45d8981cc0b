import { z } from '@hono/zod-openapi';
import { readsDates } from '../../platform/validation.js';
import { AnswerSchema } from '../agents/index.js';
import { isoTimestamp } from '../schemas.js';

export const RESEARCH_LIMITS = { question: 4_000, context: 8_000, answer: 4_000 } as const;

export const StartResearchBody = z
  .object({
    question: readsDates(z.string().trim().min(1).max(RESEARCH_LIMITS.question)).openapi({
      description: 'What to find out about your customers.',
    }),
    context: readsDates(z.string().trim().max(RESEARCH_LIMITS.context))
      .optional()
      .openapi({ description: 'Anything the researcher should know (who is asking, why); appended to the question.' }),
    allow_questions: z.boolean().optional().openapi({
      default: true,
      description:
        'Let the job pause with a clarifying question when the data is ambiguous in a way that changes the answer. false: it picks the most likely reading and says which.',
    }),
  })
  .strict()
  .openapi('StartResearchRequest');

export const ResearchStatusSchema = z.enum(['running', 'needs_input', 'complete', 'failed', 'canceled']);

const OptionSchema = z.object({ id: z.string(), label: z.string() });

export const ResearchSchema = z
  .object({
    research_id: z.uuid(),
    chat_id: z.uuid(),
    status: ResearchStatusSchema.openapi({ description: 'A queued job reads as running.' }),
    question: z.string().openapi({ description: 'The question, with the caller context appended.' }),
    question_for_you: z
      .object({
        kind: z.enum(['multiple_choice', 'free_form']),
        question: z.string(),
        options: z
          .array(OptionSchema)
          .openapi({ description: 'For multiple_choice: the choices, the last one the write-in option `other`.' }),
      })
      .nullable()
      .openapi({ description: 'Set while the job needs input (respond to it).' }),
    answer: AnswerSchema.nullable().openapi({ description: 'Null until complete.' }),
    answered_questions: z.array(
      z.object({
        question: z.string(),
        options: z.array(OptionSchema),
        answer: z.string(),
        option_id: z.string().nullable(),
        answered_at: isoTimestamp(),
      }),
    ),
    error: z.string().nullable(),
    created_at: isoTimestamp(),
    started_at: isoTimestamp().nullable(),
    completed_at: isoTimestamp().nullable(),
  })
  .openapi('Research');
export type ResearchView = z.infer<typeof ResearchSchema>;

export const StartedResearchSchema = z
  .object({ success: z.literal(true), research_id: z.uuid(), chat_id: z.uuid(), status: z.literal('queued') })
  .openapi('StartedResearch');

export const RespondBody = z
  .object({
    answer: z
      .string()
      .trim()
      .min(1)
      .max(RESEARCH_LIMITS.answer)
      .openapi({ description: "Your answer: a choice's label selects it; other text is a write-in." }),
    option_id: z.string().min(1).max(120).optional().openapi({
      description: "A choice's id; with `other`, `answer` is the write-in. Ignored for a free-form question.",
    }),
  })
  .strict()
  .openapi('RespondToResearchRequest');
