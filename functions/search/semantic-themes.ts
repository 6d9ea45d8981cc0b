import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import type { CoverageBasis } from './coverage.js';
import type { LaneContext, LaneCorpus, LaneOutcome } from './lane.js';
import { SEARCH_LIMITS } from './request.js';
import type { EmptyReason } from './response.js';
import { errorText, quote, round, vectorLiteral } from './semantic-format.js';

/**
 * The semantic lane degraded: when the utterance store cannot answer (the read throws, or it holds
 * no vector of this embedder for the workspace) the lane reads the theme index instead: one row
 * per theme, limit clamped to SEARCH_LIMITS.themeLimit, `degraded: true`. `why` (how the utterance
 * store failed) leads the note, so the caller learns what degraded and why.
 */

export interface ThemeRow extends Record<string, unknown> {
  id: string;
  label: string;
  summary: string;
  member_count: number;
  interaction_count: number;
  examples: unknown;
  distance: number | string;
}

export async function themeOutcome(
  ctx: LaneContext,
  embedderId: string,
  literal: string,
  blank: boolean,
  why: string,
  utteranceFailed: boolean,
): Promise<LaneOutcome> {
  const { services, workspaceId, search } = ctx;
  const limit = Math.min(search.limit, SEARCH_LIMITS.themeLimit);
  const clampNote =
    search.limit > limit ? ` The limit was clamped from ${search.limit} to ${limit} for the theme index.` : '';
  const ignoredParams = [
    ...(search.hydrate ? ['hydrate'] : []),
    ...(search.audience === 'customer_voice' ? ['audience'] : []),
  ];
  const base = {
    compiledSql: themeSql(embedderId, limit + 1),
    // Themes carry no allowlisted event-time column (only first/last seen), so no time coverage and no gaps.
    coverage: { basis: { basis: 'unavailable', reason: 'no_time_field' } as CoverageBasis, eventTimes: [] },
    gaps: { baseline: null, reason: 'no_time_field' },
    freshnessStore: 'themes' as const,
    ...(ignoredParams.length > 0 ? { ignoredParams } : {}),
  };
  const corpus = (truncated: boolean): LaneCorpus => ({
    store: 'theme_index',
    grain: 'theme',
    content: 'full',
    speaker_scope: 'external_only',
    filters_applied: false,
    audience_applied: false,
    degraded: true,
    ...(truncated ? { truncated: true as const } : {}),
  });
  const ignoredNote = ignoredParams.length > 0 ? ` The theme index cannot honour ${ignoredParams.join(' and ')}.` : '';

  let rows: ThemeRow[] = [];
  let themeCount: number;
  try {
    if (!blank) rows = await readThemes(services.db, workspaceId, embedderId, literal, limit + 1);
    themeCount = rows.length > 0 ? rows.length : await countThemes(services.db, workspaceId, embedderId);
  } catch (error) {
    return {
      ...base,
      corpus: corpus(false),
      results: [],
      matchCount: 0,
      emptyReason: 'read_failed',
      note: `${why} The theme index could not be read either (${errorText(error)}).`,
    };
  }
  const positive = rows.map((r) => ({ r, similarity: 1 - Number(r.distance) })).filter((t) => t.similarity > 0);
  const truncated = positive.length > limit;
  const kept = positive.slice(0, limit);
  let emptyReason: EmptyReason | undefined;
  let emptyNote = '';
  if (kept.length === 0) {
    if (themeCount > 0) emptyReason = 'no_match';
    else if (utteranceFailed) {
      // The utterance store may well hold vectors: an unreadable store is not an empty one.
      emptyReason = 'read_failed';
      emptyNote = ` The theme index holds no themes from embedder ${embedderId} for this workspace.`;
    } else {
      emptyReason = 'not_synced';
      emptyNote = ` The theme index holds no themes from embedder ${embedderId} for this workspace either.`;
    }
  }
  return {
    ...base,
    corpus: corpus(truncated),
    results: kept.map(({ r, similarity }) => ({
      id: r.id,
      label: r.label,
      summary: r.summary,
      member_count: Number(r.member_count),
      interaction_count: Number(r.interaction_count),
      examples: themeExamples(r.examples),
      similarity: round(similarity),
    })),
    matchCount: kept.length,
    ...(emptyReason ? { emptyReason } : {}),
    note: `${why} Degraded to the theme index (one row per theme).${emptyNote}${clampNote}${ignoredNote}`,
  };
}

/** A theme near a query, as cluster search (functions/context/) reads the same index the degraded lane does. */
export interface ThemeMatch {
  id: string;
  label: string;
  summary: string;
  member_count: number;
  interaction_count: number;
  examples: { text: string; utterance_id: string | null; interaction_id: string | null }[];
  similarity: number;
}

/**
 * The themes of a workspace nearest a query vector (this embedder's only), most similar first, with
 * similarity at least `minSimilarity`; `total` is how many themes of this embedder the index holds.
 */
export async function searchThemes(
  db: Queryable,
  workspaceId: string,
  embedderId: string,
  vector: readonly number[],
  options: { limit: number; minSimilarity: number },
): Promise<{ matches: ThemeMatch[]; total: number }> {
  const total = await countThemes(db, workspaceId, embedderId);
  if (vector.every((v) => v === 0) || total === 0) return { matches: [], total };
  const rows = await readThemes(db, workspaceId, embedderId, vectorLiteral(vector), options.limit);
  const matches = rows
    .map((r) => ({
      id: r.id,
      label: r.label,
      summary: r.summary,
      member_count: Number(r.member_count),
      interaction_count: Number(r.interaction_count),
      examples: themeExamples(r.examples),
      similarity: round(1 - Number(r.distance)),
    }))
    .filter((t) => t.similarity > 0 && t.similarity >= options.minSimilarity);
  return { matches, total };
}

export async function readThemes(
  db: Queryable,
  workspaceId: string,
  embedderId: string,
  literal: string,
  take: number,
): Promise<ThemeRow[]> {
  return queryRows<ThemeRow>(
    db,
    sql`select id, label, summary, member_count, interaction_count, examples, embedding <=> ${literal}::vector as distance
        from themes
        where workspace_id = ${workspaceId} and embedder = ${embedderId} and embedding is not null
        order by embedding <=> ${literal}::vector, id
        limit ${take}`,
  );
}

async function countThemes(db: Queryable, workspaceId: string, embedderId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from themes where workspace_id = ${workspaceId} and embedder = ${embedderId} and embedding is not null`,
  );
  return Number(row?.n ?? 0);
}

function themeExamples(value: unknown): { text: string; utterance_id: string | null; interaction_id: string | null }[] {
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  if (!Array.isArray(list)) return [];
  return list.map((e: { text?: unknown; utteranceId?: unknown; interactionId?: unknown }) => ({
    text: String(e.text ?? ''),
    utterance_id: typeof e.utteranceId === 'string' ? e.utteranceId : null,
    interaction_id: typeof e.interactionId === 'string' ? e.interactionId : null,
  }));
}

// Record of intent (compiled.sql): no tenant predicate, literals inlined, the query vector named.
function themeSql(embedderId: string, take: number): string {
  return [
    'SELECT t.id, t.label, t.summary, t.member_count, t.interaction_count, t.examples, 1 - (t.embedding <=> :query_embedding) AS similarity',
    'FROM themes t',
    `WHERE t.embedder = ${quote(embedderId)} AND t.embedding IS NOT NULL`,
    'ORDER BY t.embedding <=> :query_embedding',
    `LIMIT ${take}`,
  ].join('\n');
}
