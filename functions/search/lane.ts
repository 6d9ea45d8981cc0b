import type { Services } from '../services.js';
import type { CoverageBasis, GapsBaseline } from './coverage.js';
import type { FreshnessStore } from './freshness.js';
import type { Filter, Lane, Metric } from './request.js';
import type { Corpus, EmptyReason, FuzzyPlanReport } from './response.js';

/** A lower bound on event time within this many days of now is a "recent window" (staleness message). */
export const RECENT_WINDOW_DAYS = 90;

/** The request after validation and routing: every default resolved, the lane decided. */
export interface ResolvedSearch {
  lane: Lane;
  query: string | null;
  surface: 'interactions' | 'deals' | 'deal_qualification';
  audience: 'all' | 'customer_voice';
  hydrate: boolean;
  /** Semantic only: the order of the matches (semantic-hybrid.ts). */
  ranking: 'similarity' | 'hybrid';
  coverage: boolean;
  filters: Filter[];
  orderBy: { field: string; dir: 'asc' | 'desc' } | null;
  limit: number;
  groupBy: string[];
  metrics: Metric[];
  /** Row results: only these fields (null: every field of the surface). */
  fields: string[] | null;
  maxSubqueries: number;
}

export interface LaneContext {
  services: Services;
  workspaceId: string;
  search: ResolvedSearch;
  now: Date;
  signal: AbortSignal;
}

/** The lane-specific part of the corpus block; the assembler adds counts, ignored params and coverage. */
export type LaneCorpus = Pick<Corpus, 'store' | 'grain' | 'content' | 'filters_applied' | 'audience_applied'> &
  Partial<
    Pick<
      Corpus,
      | 'surface'
      | 'hydrated_grain'
      | 'unresolved_matches'
      | 'collapsed_matches'
      | 'truncated'
      | 'speaker_scope'
      | 'degraded'
      | 'ranking'
      | 'knowledge'
    >
  >;

/** What a lane ran and found; everything the response needs beyond shared computation. */
export interface LaneOutcome {
  results: Record<string, unknown>[];
  /** The SQL the lane intended (record of intent: no tenant or scope predicates, literals inlined). */
  compiledSql: string;
  /** Matches before hydration / limits. */
  matchCount: number;
  corpus: LaneCorpus;
  /** Set whenever results are empty (read_failed: the read failed, not an empty result). */
  emptyReason?: EmptyReason;
  /** Event times of the covered rows (from occurred_at or timestamp only), and what they cover. */
  coverage: { basis: CoverageBasis; eventTimes: (Date | null)[] };
  /** Baseline for gap detection; null when the lane's store has none (the reason is given). */
  gaps: { baseline: GapsBaseline } | { baseline: null; reason: string };
  freshnessStore: FreshnessStore;
  /** Start of the most recent time window the ask restricted itself to, for the staleness message. */
  recentWindowStart?: Date | null;
  /** Lane-specific params it accepted but did not honour, beyond those the router knows. */
  ignoredParams?: string[];
  /** Lane-specific parts of detail.internal. */
  internal?: { plan?: FuzzyPlanReport };
  /** A note for detail.message (what degraded, what was capped). */
  note?: string;
}

export type LaneRunner = (ctx: LaneContext) => Promise<LaneOutcome>;

/**
 * The coverage of the rows a lane returns: unavailable when there are none, the returned rows when
 * a cap cut the match (`truncated`), else the whole matched set.
 */
export function rowCoverage(eventTimes: readonly (Date | null)[], truncated: boolean): LaneOutcome['coverage'] {
  if (eventTimes.length === 0) return { basis: { basis: 'unavailable', reason: 'no_rows' }, eventTimes: [] };
  return {
    basis: truncated ? { basis: 'returned_rows', reason: 'truncated' } : { basis: 'matched_set' },
    eventTimes: [...eventTimes],
  };
}

/** The coverage of an answer with no rows. */
export const noRowsCoverage = (): LaneOutcome['coverage'] => rowCoverage([], false);
