import { defineOperation } from '../registry.js';
import { findLookalikes } from './find.js';
import {
  LookalikeFindRequestSchema,
  LookalikeFindResponseSchema,
  LookalikeThemesRequestSchema,
  LookalikeThemesResponseSchema,
} from './schemas.js';
import { similarThemes } from './themes.js';

const common = {
  tags: ['Lookalike'],
  scopes: ['data:read'] as const,
  minRole: 'viewer' as const,
  stability: 'beta' as const,
  visibility: 'public' as const,
  quota: 'lookalike' as const,
  readOnly: true as const,
};

export const lookalikeFind = defineOperation({
  ...common,
  id: 'lookalike.find',
  example: { entity_type: 'company', domain: 'acme.com', limit: 10 },
  method: 'post',
  path: '/lookalike',
  summary: 'The companies or deals that talk most like a seed (centroid cosine similarity)',
  description:
    "Each company (account) and deal has a centroid: the mean vector of the customer's utterances in its conversations, " +
    'materialized by a background pipeline (after the store grows, and daily). `find` ranks the entities of the same type by cosine ' +
    "similarity to the seed's centroid; `member_count` says how many utterances back each one. A seed without a centroid answers " +
    '`available: false` with `reason: centroids_not_materialized` (or `error` when the read failed) at 200, never a guessed list. ' +
    'A `domain` no company of this workspace carries answers the same `available: false` with `reason: centroids_not_materialized`; ' +
    'an `entity_id` that is not in this workspace is 404.',
  mcp: { tool: 'lookalike', action: 'find' },
  body: LookalikeFindRequestSchema,
  output: LookalikeFindResponseSchema,
  async handler(ctx, input) {
    return findLookalikes(ctx.services, ctx.caller.workspaceId, input);
  },
});

export const lookalikeThemes = defineOperation({
  ...common,
  id: 'lookalike.similar_themes',
  example: { query: 'slow security reviews blocking procurement', limit: 10 },
  method: 'post',
  path: '/lookalike/themes',
  summary: 'The conversation themes nearest a free-text description',
  description:
    "The description is embedded and compared with the theme index's vectors (same embedder); results carry `score` (cosine), " +
    "`member_count` and the index's `freshness`. An index with no theme answers an empty list, never `available: false`.",
  mcp: { tool: 'lookalike', action: 'themes' },
  body: LookalikeThemesRequestSchema,
  output: LookalikeThemesResponseSchema,
  async handler(ctx, input) {
    return similarThemes(ctx.services, ctx.caller.workspaceId, input, ctx.signal);
  },
});

export const lookalikeOperations = [lookalikeFind, lookalikeThemes];
