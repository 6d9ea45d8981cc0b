import { z } from '@hono/zod-openapi';
import { ApiError } from '../../platform/errors.js';
import { readsDates } from '../../platform/validation.js';
import { defineOperation } from '../registry.js';
import { queryBool } from '../schemas.js';
import { searchThemes } from '../search/index.js';
import { ask } from './ask.js';
import { EXPLORE_SCOPES, explore } from './explore.js';
import { searchSources, sourceTypes } from './sources.js';
import { runSubstrateQuery, SUBSTRATE_INTENTS } from './substrate.js';

/**
 * The knowledge operations the spec gives only as schemas (Schema-only operations): search,
 * cluster search, explore, substrate query and ask. Their paths are chosen here and stated in each
 * description. They read the evidence sources of sources.ts (conversations through the search
 * lanes, the workspace memory) and say which were searched.
 */

const SEARCH_MODES = ['hybrid', 'semantic', 'keyword'] as const;

const common = {
  tags: ['Knowledge'],
  stability: 'beta' as const,
  visibility: 'public' as const,
  minRole: 'viewer' as const,
};
/** They read conversations (data:read, as search does) and the workspace's context (context:read). */
const reads = { ...common, scopes: ['data:read', 'context:read'] as const };
/** The search verbs: the search family's monthly quota and search.query's per-user budget. */
const searchVerb = { quota: 'search' as const, rateLimit: { limit: 10, windowSeconds: 60 }, readOnly: true as const };

/** A `source_type` value that names no source or type is the request's mistake: 400 naming the allowed set. */
function checkSourceTypes(field: string, values: readonly string[] | undefined): void {
  const allowed = sourceTypes();
  const bad = (values ?? []).filter((v) => !allowed.includes(v));
  if (bad.length === 0) return;
  throw new ApiError('invalid_argument', `Invalid request: ${field}: unknown source type "${bad[0]}"`, {
    fields: bad.map(() => ({ field, problem: `unknown source type "${bad[0]}"`, code: 'invalid_value', allowed })),
  });
}

const EvidenceItemSchema = z
  .object({
    id: z.string(),
    title: z.string().nullable(),
    origin: z.string().nullable().openapi({ description: '`<source>/<type>`: conversations/call, memory/web, ...' }),
    snippets: z.array(z.string()),
    source: z.string(),
    score: z.number(),
    occurred_at: z.string().nullable(),
    account: z.object({ id: z.string().nullable(), name: z.string().nullable() }).nullable(),
    refs: z.array(
      z.object({
        interaction_id: z.string().optional(),
        turn_id: z.string().nullable().optional(),
        utterance_id: z.string().optional(),
        memory_id: z.string().optional(),
        document_group_id: z.string().optional(),
        node_key: z.string().optional(),
      }),
    ),
  })
  .openapi('EvidenceItem');

export const SearchResultsSchema = z
  .object({
    resultCount: z.number().int(),
    results: z.array(EvidenceItemSchema),
    mode: z.enum(SEARCH_MODES),
    sources_searched: z.array(z.string()),
    notes: z.array(z.string()),
    off_topic: z.number().int().openapi({
      description:
        "Matches left out as off the query's topic: near it by meaning or words, but about something else (the same relevance check as answers' quotes). 0 when the query has no topic to judge by.",
    }),
  })
  .openapi('SearchResults');

export const hybridSearch = defineOperation({
  ...reads,
  ...searchVerb,
  id: 'context.search',
  example: { query: 'renewal pricing', mode: 'hybrid', limit: 10 },
  method: 'post',
  path: '/search/hybrid',
  summary: 'Search the evidence (conversations and memory) by meaning, by words, or both',
  description:
    'Path chosen here (the spec gives the schema only; `POST /search` is retired). `hybrid` (default) merges the semantic lane (what customers said, by meaning) and the fuzzy lane (words) of `POST /search/query` by reciprocal rank, plus the workspace memory by meaning and words; ' +
    "`semantic` and `keyword` run one side. Only matches about the query are returned: each snippet passes the relevance check every answer's quotes pass (the query's salient words, names taken out), and what failed it is counted in `off_topic` — a query nothing in the data is about answers no results, not its nearest neighbours. One result per interaction or remembered text, its `snippets` the utterances, turns or text that matched, `origin` `<source>/<type>`. " +
    '`source_type` narrows to a source (`conversations`, `memory`) or a type (`conversations/call`, `memory/web`, ...). `sources_searched` says which sources were read.',
  mcp: { tool: 'context', action: 'search' },
  body: z
    .object({
      query: z.string().min(1).max(2000),
      mode: z.enum(SEARCH_MODES).default('hybrid'),
      limit: z.number().int().min(1).max(50).default(10),
      source_type: z.string().min(1).max(100).optional(),
    })
    .strict(),
  output: SearchResultsSchema,
  async handler(ctx, input) {
    checkSourceTypes('source_type', input.source_type ? [input.source_type] : undefined);
    const found = await searchSources(
      ctx,
      { query: input.query, limit: input.limit, mode: input.mode, externalOnly: false },
      input.source_type ? [input.source_type] : undefined,
    );
    return {
      resultCount: found.items.length,
      results: found.items,
      mode: input.mode,
      sources_searched: found.searched,
      notes: found.notes,
      off_topic: found.offTopic,
    };
  },
});

export const clusterSearch = defineOperation({
  ...reads,
  ...searchVerb,
  id: 'context.cluster_search',
  example: { query: 'pricing', match_threshold: 0.5, limit: 5 },
  method: 'post',
  path: '/clusters/search',
  summary: 'Search the themes (clusters of what customers said) by meaning',
  description:
    'Path chosen here. Reads the theme index the semantic lane degrades to: themes of the configured embedder nearest the query, with similarity at least `match_threshold` (0–1, default 0), at most `limit` (1–50, default 10), each with its member and interaction counts and examples.',
  mcp: { tool: 'context', action: 'cluster_search' },
  body: z
    .object({
      query: z.string().min(1).max(2000),
      match_threshold: z.number().min(0).max(1).default(0),
      limit: z.number().int().min(1).max(50).default(10),
    })
    .strict(),
  output: z
    .object({
      clusters: z.array(
        z.object({
          id: z.string(),
          label: z.string(),
          summary: z.string(),
          member_count: z.number().int(),
          interaction_count: z.number().int(),
          similarity: z.number(),
          examples: z.array(
            z.object({ text: z.string(), utterance_id: z.string().nullable(), interaction_id: z.string().nullable() }),
          ),
        }),
      ),
      clusters_searched: z.number().int().openapi({ description: "The embedder's themes in the index." }),
      embedder: z.string(),
      note: z.string().nullable(),
    })
    .openapi('ClusterSearchResults'),
  async handler(ctx, input) {
    const { services } = ctx;
    let vector: number[] | undefined;
    try {
      [vector] = await services.embedder.embed([input.query], { signal: ctx.signal });
    } catch (error) {
      return {
        clusters: [],
        clusters_searched: 0,
        embedder: services.embedder.id,
        note: `The query could not be embedded by ${services.embedder.id} (${error instanceof Error ? error.message : String(error)}).`,
      };
    }
    const { matches, total } = await searchThemes(
      services.db,
      ctx.caller.workspaceId,
      services.embedder.id,
      vector ?? [],
      {
        limit: input.limit,
        minSimilarity: input.match_threshold,
      },
    );
    return {
      clusters: matches,
      clusters_searched: total,
      embedder: services.embedder.id,
      note:
        total === 0
          ? `The theme index holds no themes from embedder ${services.embedder.id} for this workspace.`
          : null,
    };
  },
});

export const exploreOperation = defineOperation({
  ...reads,
  id: 'context.explore',
  method: 'get',
  path: '/explore',
  summary: 'What the workspace holds: surfaces, themes and evidence sources',
  description:
    'Path chosen here. `scope` `all` (default), `schema` (the queryable surfaces and their row counts), `clusters` (the theme index), `knowledge` (the evidence sources and their sizes); `include_samples` (default true) adds a few rows of each.',
  mcp: { tool: 'context', action: 'explore' },
  query: z
    .object({
      scope: z.enum(EXPLORE_SCOPES).default('all'),
      include_samples: queryBool().default(true),
    })
    .strict(),
  output: z.record(z.string(), z.unknown()).openapi('ExploreResult'),
  async handler(ctx, input) {
    return explore(ctx, input.scope, input.include_samples);
  },
});

export const substrateQuery = defineOperation({
  ...reads,
  ...searchVerb,
  id: 'context.substrate_query',
  example: { intent: 'answer_question', query: 'What do customers say about onboarding?', limit: 10 },
  method: 'post',
  path: '/substrate/query',
  summary: 'Read the evidence (conversations and memory) for one intent',
  description:
    'Path chosen here. Each `intent` does what its name says over every evidence source: `answer_question` (the evidence that answers, best first), `find_metrics` (matches per source and account, the themes near the query with their counts), ' +
    '`research_overview` (source sizes, matches, time span, accounts, themes), `summarize_research` (the first snippet of each best item, by source), `evidence_for_writing` (verbatim customer words only, with refs to cite), ' +
    "`enrich_with_quotes` (each sentence of `query` with the customer quotes nearest it), `assess_viability` (a verdict by counted rules, stated in `summary.rule`; `summary.terms_missing` names the query's topical words no evidence holds). Every intent returns only evidence about the query (the relevance check answers' quotes pass); what failed it is counted in `off_topic`. " +
    '`external_only` restricts conversations to the customer side (external speakers, inbound email); `source_filter` narrows the sources as `source_type` does on search. Returns evidence and counts only: for a written answer use ask.',
  mcp: { tool: 'context', action: 'substrate_query' },
  body: z
    .object({
      intent: z.enum(SUBSTRATE_INTENTS),
      query: z.string().min(1).max(4000),
      limit: z.number().int().min(1).max(50).default(10),
      source_filter: z.array(z.string().min(1).max(100)).max(20).optional(),
      external_only: z.boolean().default(false),
    })
    .strict(),
  output: z
    .object({
      intent: z.enum(SUBSTRATE_INTENTS),
      query: z.string(),
      external_only: z.boolean(),
      sources_searched: z.array(z.string()),
      notes: z.array(z.string()),
      off_topic: z.number().int().openapi({
        description:
          "Matches left out as off the query's topic: near it by meaning or words, but about something else (the same relevance check as answers' quotes). 0 when the query has no topic to judge by.",
      }),
      results: z.array(EvidenceItemSchema),
      summary: z.record(z.string(), z.unknown()).nullable(),
    })
    .openapi('SubstrateQueryResult'),
  async handler(ctx, input) {
    checkSourceTypes('source_filter', input.source_filter);
    return runSubstrateQuery(ctx, input);
  },
});

export const askOperation = defineOperation({
  ...common,
  id: 'context.ask',
  example: { query: 'Why do customers push back on pricing?' },
  method: 'post',
  path: '/ask',
  summary: 'Ask a question; a grounded answer from the agent loop',
  description:
    'Path chosen here. Runs a research job (the library agent `researcher`, quick tier, no pauses) on the one agent loop and holds up to 30 s for it: `answer` is its verified answer (every quote, cell and number checked by the grounding verifier); the run starts with the workspace memory relevant to the question and quotes it in memory_quote blocks the verifier checks against the remembered rows, listed in `memory` with their evidence id and block id. ' +
    '`substrateStats`: `evidenceSearched` (the evidence the sources hold: interactions plus remembered texts), `clustersSearched` (themes in the index), `metricsAvailable` (metric and table blocks the answer rests on). ' +
    'Beyond the spec shape: `status` (`in_progress` when the hold ended first: read the job at `GET /research/{run_id}`), `run_id`, `chat_id`, `sources_searched`, `memory`. Counted toward the monthly research cap; not offered to agents (an agent answers questions itself, or delegates).',
  scopes: ['context:read', 'conversations:write'],
  mcp: { tool: 'context', action: 'ask' },
  body: z.object({ query: readsDates(z.string().min(1).max(4000)) }).strict(),
  output: z
    .object({
      answer: z.string(),
      substrateStats: z.object({
        evidenceSearched: z.number().int(),
        clustersSearched: z.number().int(),
        metricsAvailable: z.number().int(),
      }),
      status: z.enum(['complete', 'partial', 'in_progress', 'failed']),
      run_id: z.uuid(),
      chat_id: z.uuid(),
      sources_searched: z.array(z.string()),
      memory: z.array(
        z.object({
          id: z.string().openapi({ description: "The evidence id (remember's evidenceId)." }),
          block_id: z.string().openapi({ description: "The answer's memory_quote block that quotes it (verified)." }),
          text: z.string(),
          source: z.string(),
          company_name: z.string().nullable(),
        }),
      ),
    })
    .openapi('AskResponse'),
  quota: 'research',
  agentTool: false,
  async handler(ctx, input) {
    return ask(ctx, input.query);
  },
});

export const contextOperations = [hybridSearch, clusterSearch, exploreOperation, substrateQuery, askOperation];
