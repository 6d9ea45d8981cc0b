import {
  noRowsCoverage,
  rowCoverage,
  type LaneContext,
  type LaneCorpus,
  type LaneOutcome,
  type LaneRunner,
} from './lane.js';
import { errorText, round, vectorLiteral } from './semantic-format.js';
import { compileSemanticFilters, type CompiledSemanticFilters } from './semantic-filters.js';
import { hydrateOutcome } from './semantic-hydrate.js';
import { HYBRID_CANDIDATES, rankHybrid } from './semantic-hybrid.js';
import { themeOutcome } from './semantic-themes.js';
import {
  attributionOf,
  countVectors,
  hybridScoreOf,
  readUtteranceMatches,
  utteranceSql,
  type Match,
} from './semantic-utterances.js';

/**
 * The semantic lane (spec, "Lane data facts"): top matches by cosine distance over the workspace's
 * mirror of EXTERNAL-speaker utterances, one row per utterance with a truncated `content_preview`.
 *
 * - Only vectors of the configured embedder are read (`utterances.embedder = services.embedder.id`):
 *   vectors of different embedders live in different spaces and are never compared.
 * - The mirror is NOT filtered by the workspace's excluded-interaction settings: a semantic match
 *   can come from an excluded interaction (the spec says so). Each row says so in
 *   `interaction_excluded` instead of silently hiding it.
 * - A match is one of the `limit` nearest vectors with positive cosine similarity (a vector that
 *   shares no hashed feature with the query is not a match). `truncated: true` when more such
 *   vectors lay beyond the limit.
 * - `ranking: 'hybrid'` reads the HYBRID_CANDIDATES nearest as candidates and orders them by
 *   semantic-hybrid.ts (vector and keyword fused by rank, weighed by information); the default
 *   `similarity` keeps the nearest in cosine order.
 * - `hydrate: true` bridges the first 200 matches to their transcript turns (one row per distinct
 *   turn); if the turn lookup fails, to their interactions (`hydrated_grain: 'call'`).
 * - When the utterance store cannot answer (the read throws, or it holds no vector of this
 *   embedder for the workspace) the lane degrades to the theme index: one row per theme, limit
 *   clamped to 50, `degraded: true`.
 *
 * This file is the runner: embed the query, read the utterance matches, decide the outcome. The
 * store reads are in semantic-utterances.ts, hydration in semantic-hydrate.ts, the theme-index
 * fallback in semantic-themes.ts.
 */

// Re-exported: tests and benches import the lane's tunables from here.
export { HYDRATE_BRIDGE_CAP } from './semantic-hydrate.js';
export { HNSW_EF_SEARCH } from './semantic-utterances.js';

/** Characters of utterance text in `content_preview`; longer text is cut at a word boundary and ends with PREVIEW_ELLIPSIS. */
export const PREVIEW_CHARS = 280;
export const PREVIEW_ELLIPSIS = '…';

export const runSemanticLane: LaneRunner = async (ctx) => {
  const { services, search } = ctx;
  const query = search.query ?? '';
  const embedderId = services.embedder.id;
  // Validation errors (400) escape on purpose, before anything is embedded or read.
  const filters = compileSemanticFilters(search.filters, ctx.workspaceId);

  let vector: number[];
  try {
    const [embedded] = await services.embedder.embed([query], { signal: ctx.signal });
    if (!embedded || embedded.length !== services.embedder.dimensions)
      throw new Error(`embedder ${embedderId} returned no ${services.embedder.dimensions}-dimensional vector`);
    vector = embedded;
  } catch (error) {
    return failedOutcome(
      ctx,
      filters,
      `The query could not be embedded by ${embedderId} (${errorText(error)}), so no store was searched.`,
    );
  }
  // A query of stopwords and punctuation embeds to the zero vector; cosine distance to it is
  // undefined (NaN in pgvector), so nothing is read and nothing can match.
  const blank = vector.every((v) => v === 0);
  const literal = vectorLiteral(vector);

  let matches: Match[] | null = null;
  let utteranceError: unknown = null;
  let truncatedByLimit = false;
  if (!blank) {
    try {
      const hybrid = search.ranking === 'hybrid';
      const { matches: nearest } = await readUtteranceMatches(
        services.db,
        ctx.workspaceId,
        embedderId,
        literal,
        hybrid ? Math.max(search.limit + 1, HYBRID_CANDIDATES) : search.limit + 1,
        filters.filter,
      );
      const positive = nearest.filter((m) => m.similarity > 0);
      truncatedByLimit = positive.length > search.limit;
      const ordered = hybrid
        ? await rankHybrid(services.db, ctx.workspaceId, query, positive, search.hydrate)
        : positive;
      matches = ordered.slice(0, search.limit);
    } catch (error) {
      utteranceError = error;
    }
  }

  if (matches && matches.length > 0) return matchedOutcome(ctx, filters, matches, truncatedByLimit);

  // Nothing matched, or the read failed: tell "no vectors of this embedder" (degrade) from "no match".
  let vectors: { own: number; other: Map<string, number> } | null = null;
  if (!utteranceError) {
    try {
      vectors = await countVectors(services.db, ctx.workspaceId, embedderId);
    } catch (error) {
      utteranceError = error;
    }
  }
  if (vectors && vectors.own > 0) {
    return {
      ...utteranceBase(ctx, filters, false),
      results: [],
      matchCount: 0,
      emptyReason: 'no_match',
      coverage: noRowsCoverage(),
      ...(blank
        ? { note: 'The query has no words the embedder can match on (only stopwords or punctuation).' }
        : filters.filter
          ? { note: 'No external utterance the filters keep is similar to the query.' }
          : {}),
    };
  }

  const why = utteranceError
    ? `The utterance store could not be read (${errorText(utteranceError)}).`
    : `The utterance store holds no external-speaker vectors from embedder ${embedderId} for this workspace${describeOtherEmbedders(vectors?.other)}.`;
  const themes = await themeOutcome(ctx, embedderId, literal, blank, why, utteranceError !== null);
  // A theme is no utterance: no filter reaches the theme index.
  return search.filters.length > 0
    ? { ...themes, ignoredParams: [...(themes.ignoredParams ?? []), 'filters'] }
    : themes;
};

/** One row per match (preview text), or the hydrated rows when `hydrate: true`. */
function matchedOutcome(
  ctx: LaneContext,
  filters: CompiledSemanticFilters,
  matches: Match[],
  truncatedByLimit: boolean,
): Promise<LaneOutcome> | LaneOutcome {
  if (ctx.search.hydrate) {
    const base = utteranceBase(ctx, filters, truncatedByLimit);
    return hydrateOutcome(ctx, matches, truncatedByLimit, base.compiledSql).then((outcome) => ({
      ...outcome,
      corpus: { ...outcome.corpus, filters_applied: base.corpus.filters_applied, ranking: ctx.search.ranking },
      ...(base.ignoredParams ? { ignoredParams: base.ignoredParams } : {}),
    }));
  }
  return {
    ...utteranceBase(ctx, filters, truncatedByLimit),
    results: matches.map((m) => ({
      id: m.id,
      interaction_id: m.interactionId,
      interaction_title: m.title,
      interaction_kind: m.kind,
      interaction_excluded: m.excluded,
      ...attributionOf(m),
      occurred_at: m.occurredAt?.toISOString() ?? null,
      turn_id: m.turnId,
      speaker: m.speaker,
      side: 'external',
      content_preview: preview(m.text),
      similarity: round(m.similarity),
      ...hybridScoreOf(m),
    })),
    matchCount: matches.length,
    coverage: rowCoverage(
      matches.map((m) => m.occurredAt),
      truncatedByLimit,
    ),
    ...(truncatedByLimit
      ? { note: `More external utterances were similar to the query than the limit of ${ctx.search.limit}.` }
      : {}),
  };
}

/** The corpus block, SQL, stores and ignored filters shared by every outcome that read the utterance store. */
function utteranceBase(
  ctx: LaneContext,
  filters: CompiledSemanticFilters,
  truncated: boolean,
): Pick<LaneOutcome, 'compiledSql' | 'corpus' | 'gaps' | 'freshnessStore' | 'ignoredParams'> {
  const corpus: LaneCorpus = {
    store: 'pgvector',
    grain: 'utterance',
    content: 'preview',
    speaker_scope: 'external_only',
    filters_applied: filters.filter !== null,
    audience_applied: false,
    ranking: ctx.search.ranking,
    ...(truncated ? { truncated: true as const } : {}),
  };
  return {
    compiledSql: utteranceSql(ctx.services.embedder.id, ctx.search.limit + 1, filters.filter?.intent ?? null),
    corpus,
    gaps: { baseline: 'interactions_external' },
    freshnessStore: 'utterances_external',
    ...(filters.ignored.length > 0 ? { ignoredParams: filters.ignored } : {}),
  };
}

/** Nothing was searched (the query could not be embedded): an error condition, not an empty result. */
function failedOutcome(ctx: LaneContext, filters: CompiledSemanticFilters, note: string): LaneOutcome {
  return {
    ...utteranceBase(ctx, filters, false),
    results: [],
    matchCount: 0,
    emptyReason: 'read_failed',
    coverage: noRowsCoverage(),
    note,
  };
}

/** Text up to PREVIEW_CHARS characters, cut at the last word boundary when there is one, with an ellipsis marker. */
export function preview(text: string): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= PREVIEW_CHARS) return clean;
  const room = PREVIEW_CHARS - PREVIEW_ELLIPSIS.length;
  const cut = clean.slice(0, room);
  const space = cut.lastIndexOf(' ');
  return `${(space > room * 0.6 ? cut.slice(0, space) : cut).trimEnd()}${PREVIEW_ELLIPSIS}`;
}

function describeOtherEmbedders(other: Map<string, number> | undefined): string {
  if (!other || other.size === 0) return '';
  const list = [...other].map(([id, n]) => `${n} from ${id}`).join(', ');
  return ` (it holds ${list}: vectors of another embedder are never compared with this one's; the store needs re-embedding with the configured embedder)`;
}
