import { z } from '@hono/zod-openapi';
import { BlockDraftSchema, GroundingReportSchema } from '../agents/index.js';

export const ENRICH_LIMITS = { defaultUtterances: 10, maxUtterances: 50 } as const;

const common = {
  mode: z.enum(['fast', 'full']).default('fast').openapi({
    description:
      '`fast`: cached brief, else first-party evidence and a background rebuild. `full`: block for the full brief.',
  }),
  limit: z
    .number()
    .int()
    .min(1)
    .max(ENRICH_LIMITS.maxUtterances)
    .default(ENRICH_LIMITS.defaultUtterances)
    .openapi({ description: 'How many ranked utterances the first-party evidence returns.' }),
};

export const EnrichCompanyRequestSchema = z
  .object({
    domain: z.string().trim().min(3).max(253).openapi({ description: "The company's domain: the cache key." }),
    name: z.string().trim().min(1).max(200).optional().openapi({ description: 'Sharpens the market search.' }),
    ...common,
  })
  .strict()
  .openapi('EnrichCompanyRequest');

export const EnrichPersonRequestSchema = z
  .object({
    linkedin_url: z
      .string()
      .trim()
      .max(500)
      .regex(
        /^(https?:\/\/)?([a-z]{2,3}\.)?linkedin\.com\/in\/[^/?#\s]+\/?(\?.*)?$/i,
        'must be a linkedin.com/in/ profile URL',
      )
      .optional(),
    email: z.email().max(320).optional(),
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .openapi({ description: 'A hint beside an anchor; never an anchor.' }),
    ...common,
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.linkedin_url && !v.email)
      ctx.addIssue({
        code: 'custom',
        path: ['linkedin_url'],
        message: 'A person is anchored on linkedin_url or email; a bare name cannot be resolved to one person.',
      });
  })
  .openapi('EnrichPersonRequest');

export const EnrichTopicRequestSchema = z
  .object({
    topic: z.string().trim().min(2).max(200).openapi({ description: 'The term, verbatim: the cache key.' }),
    ...common,
  })
  .strict()
  .openapi('EnrichTopicRequest');

export const EvidenceUtteranceSchema = z.object({
  utterance_id: z.uuid(),
  text: z.string().openapi({ description: 'Verbatim, as the customer said it.' }),
  speaker_type: z.literal('external'),
  speaker_name: z.string().nullable(),
  interaction_id: z.uuid(),
  turn_id: z.uuid().nullable(),
  interaction_kind: z.string(),
  interaction_title: z.string(),
  occurred_at: z.string(),
  account: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  relevance: z.number().openapi({
    description:
      'Company and person: cosine similarity to the mean of everything they said (how typical). Topic: cosine similarity to the topic.',
  }),
});

export const EvidenceSchema = z
  .object({
    matched_count: z.number().int().openapi({ description: 'Customer utterances in scope (0: the empty envelope).' }),
    utterances: z.array(EvidenceUtteranceSchema),
    aggregates: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'Counts and spans of the subject in the corpus.' }),
  })
  .openapi('EnrichEvidence');
export type Evidence = z.infer<typeof EvidenceSchema>;

export const BriefSchema = z
  .object({
    subject: z.object({ kind: z.enum(['company', 'person', 'topic']), key: z.string(), label: z.string() }),
    summary: z.string(),
    sections: z.object({
      customer_voice: z
        .string()
        .openapi({ description: 'Verbatim quotes, each verified against its transcript turn.' }),
      market: z.string().openapi({ description: 'The external sources found, as links.' }),
    }),
    content_blocks: z.array(BlockDraftSchema).openapi({ description: 'Quotes (verified) and URL citations.' }),
    citations: z.array(z.object({ kind: z.enum(['utterance', 'url']), ref: z.string(), label: z.string() })),
    divergence_map: z.object({
      internal_only: z
        .array(z.string())
        .openapi({ description: 'Salient terms customers use that the market sources do not.' }),
      market_only: z
        .array(z.string())
        .openapi({ description: 'Salient terms of the market sources customers never use.' }),
    }),
    external: z.object({
      status: z.enum(['ok', 'not_configured', 'failed']),
      provider: z.string().nullable(),
      detail: z.string().nullable(),
    }),
    first_party_matched_count: z.number().int(),
    grounding: GroundingReportSchema,
  })
  .openapi('EnrichBrief');
export type Brief = z.infer<typeof BriefSchema>;

export const EnrichResponseSchema = z
  .object({
    success: z.literal(true),
    tier: z.enum(['cached', 'first_party', 'full']),
    subject: z.object({ kind: z.enum(['company', 'person', 'topic']), key: z.string() }),
    brief: BriefSchema.nullable(),
    artifact_id: z.uuid().nullable().openapi({ description: "The brief's document (GET /artifacts/{id})." }),
    captured_at: z.string().nullable(),
    evidence: EvidenceSchema.nullable(),
    refresh_enqueued: z.boolean(),
    refresh_omitted: z
      .enum(['missing_scope'])
      .nullable()
      .openapi({ description: '`missing_scope`: the caller lacks external_search:execute, so no rebuild was queued.' }),
    refresh_run_id: z.uuid().nullable().openapi({ description: 'The background rebuild (queued or running).' }),
  })
  .openapi('EnrichResponse');
export type EnrichResponse = z.input<typeof EnrichResponseSchema>;
