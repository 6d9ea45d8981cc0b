import { z } from '@hono/zod-openapi';
import { CENTROID_ENTITY_TYPES } from '../../schema/lookalike.js';

export const LOOKALIKE_LIMITS = { defaultLimit: 10, maxLimit: 50, maxQueryChars: 2_000 } as const;

export const LookalikeFindRequestSchema = z
  .object({
    entity_type: z.enum(CENTROID_ENTITY_TYPES).openapi({ description: 'Which centroid family to search.' }),
    entity_id: z.uuid().optional().openapi({ description: "The seed's id: an account id (company) or a deal id." }),
    domain: z
      .string()
      .trim()
      .min(1)
      .max(253)
      .optional()
      .openapi({ description: 'Company seeds only: the account whose domain this is (instead of `entity_id`).' }),
    limit: z.number().int().min(1).max(LOOKALIKE_LIMITS.maxLimit).default(LOOKALIKE_LIMITS.defaultLimit),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (!v.entity_id && !v.domain)
      ctx.addIssue({ code: 'custom', path: ['entity_id'], message: 'Send entity_id, or domain for a company seed.' });
    if (v.entity_id && v.domain)
      ctx.addIssue({ code: 'custom', path: ['domain'], message: 'Send entity_id or domain, not both.' });
    if (v.domain && v.entity_type !== 'company')
      ctx.addIssue({ code: 'custom', path: ['domain'], message: 'domain names a company seed only.' });
  })
  .openapi('LookalikeFindRequest');

const EntityFacts = {
  entity_id: z.uuid(),
  name: z.string().openapi({ description: "The account's or the deal's name." }),
  domain: z
    .string()
    .nullable()
    .openapi({ description: "The company's domain (a deal's account's), null when unknown." }),
  member_count: z.number().int().openapi({ description: 'How many external utterances back the centroid.' }),
  computed_at: z.string().openapi({ description: 'When the centroid was materialized (ISO 8601).' }),
};

export const LookalikeFindResponseSchema = z
  .object({
    success: z.literal(true),
    available: z.boolean().openapi({ description: 'False when no centroid answers for the seed: no list is guessed.' }),
    reason: z
      .enum(['centroids_not_materialized', 'error'])
      .nullable()
      .openapi({ description: 'Why `available` is false: no centroid yet (a state), or the read failed (retry).' }),
    message: z.string().nullable(),
    embedder: z.string().openapi({ description: 'The embedder whose vectors the centroids average.' }),
    seed: z
      .object({ entity_type: z.enum(CENTROID_ENTITY_TYPES), ...EntityFacts })
      .nullable()
      .openapi({ description: "The seed's centroid facts; null when it has no centroid." }),
    matches: z
      .array(
        z.object({
          ...EntityFacts,
          score: z.number().openapi({ description: 'Cosine similarity of the centroids (ranks; not a probability).' }),
        }),
      )
      .openapi({ description: 'Nearest entities of the same type, best first; the seed itself excluded.' }),
  })
  .openapi('LookalikeFindResponse');

export const LookalikeThemesRequestSchema = z
  .object({
    query: z.string().trim().min(1).max(LOOKALIKE_LIMITS.maxQueryChars),
    limit: z.number().int().min(1).max(LOOKALIKE_LIMITS.maxLimit).default(LOOKALIKE_LIMITS.defaultLimit),
  })
  .strict()
  .openapi('LookalikeThemesRequest');

export const LookalikeThemesResponseSchema = z
  .object({
    success: z.literal(true),
    results: z.array(
      z.object({
        cluster_id: z.uuid().openapi({ description: "The theme's id." }),
        label: z.string(),
        summary: z.string(),
        score: z.number().openapi({ description: "Cosine similarity of the query and the theme's vector." }),
        member_count: z.number().int().openapi({ description: 'External utterances assigned to the theme.' }),
        interaction_count: z.number().int(),
      }),
    ),
    freshness: z.object({
      source: z.literal('theme_index'),
      embedder: z.string(),
      theme_count: z.number().int().openapi({ description: "Themes of this embedder in the workspace's index." }),
      synced_at: z
        .string()
        .nullable()
        .openapi({ description: 'When the newest theme was written; null with no theme.' }),
      latest_member_at: z
        .string()
        .nullable()
        .openapi({ description: 'The newest utterance any theme holds (ISO 8601); null when unknown.' }),
    }),
  })
  .openapi('LookalikeThemesResponse');
