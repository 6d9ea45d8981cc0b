import type { Services } from '../services.js';
import { coverageBlock, detectGaps } from './coverage.js';
import { probeFreshness } from './freshness.js';
import type { LaneOutcome, ResolvedSearch } from './lane.js';
import type { CorpusCoverage, DetailCoverage, SearchResponse } from './response.js';

const GRAIN_NOUN = { row: 'row', utterance: 'utterance', theme: 'theme' } as const;
const STORE_NAME = {
  warehouse: 'the warehouse',
  pgvector: 'the utterance store (pgvector)',
  theme_index: 'the theme index',
} as const;

/**
 * Turn a lane's outcome into the search response every lane shares: the corpus block (counts,
 * ignored params, coverage with optional gaps), detail.internal, the freshness probe and a message
 * that says plainly what happened, including staleness when a recent-window ask came back empty.
 */
export async function assembleResponse(
  services: Services,
  workspaceId: string,
  search: ResolvedSearch,
  outcome: LaneOutcome,
  ignoredParams: readonly string[],
  now: Date,
): Promise<SearchResponse> {
  const rowCount = outcome.results.length;
  const empty = rowCount === 0;
  const emptyReason = outcome.emptyReason ?? (empty ? 'no_match' : undefined);
  const base = coverageBlock(outcome.coverage.basis, outcome.coverage.eventTimes, now);

  let coverage: CorpusCoverage = { ...base, gaps_status: 'not_requested' };
  if (search.coverage) {
    if (!outcome.gaps.baseline) {
      coverage = { ...base, gaps_status: 'unavailable', gaps_reason: outcome.gaps.reason };
    } else if (base.basis === 'unavailable') {
      coverage = {
        ...base,
        gaps_status: 'unavailable',
        gaps_reason: base.basis_reason ?? 'no_rows',
        gaps_baseline: outcome.gaps.baseline,
      };
    } else {
      try {
        const gaps = await detectGaps(
          services.db,
          workspaceId,
          outcome.gaps.baseline,
          outcome.coverage.eventTimes,
          services.embedder.id,
        );
        coverage = { ...base, gaps_status: 'ok', gaps, gaps_baseline: outcome.gaps.baseline };
      } catch {
        coverage = {
          ...base,
          gaps_status: 'unavailable',
          gaps_reason: 'baseline_failed',
          gaps_baseline: outcome.gaps.baseline,
        };
      }
    }
  }

  const freshness = await probeFreshness(services.db, workspaceId, outcome.freshnessStore, now, services.embedder.id);
  const ignored = [...new Set([...ignoredParams, ...(outcome.ignoredParams ?? [])])].sort();
  // `emptyReason`, not `empty`: a bare aggregate over an empty population has one row (count 0) and is still empty.
  const status =
    emptyReason === 'read_failed' ? 'read_failed' : outcome.corpus.degraded ? 'degraded' : emptyReason ? 'empty' : 'ok';

  return {
    success: true,
    mode_ran: search.lane,
    results: outcome.results,
    compiled: { sql: outcome.compiledSql },
    detail: {
      internal: { status, rows: outcome.matchCount, row_count: rowCount, ...outcome.internal },
      message: describe(search, outcome, rowCount, emptyReason, freshness),
      coverage: freshness,
    },
    corpus: {
      ...outcome.corpus,
      row_count: rowCount,
      match_count: outcome.matchCount,
      ignored_params: ignored,
      ...(emptyReason ? { empty_reason: emptyReason } : {}),
      coverage,
    },
  };
}

function describe(
  search: ResolvedSearch,
  outcome: LaneOutcome,
  rowCount: number,
  emptyReason: string | undefined,
  freshness: DetailCoverage | null,
): string {
  // Hydrated rows are turns or calls, not the utterances the store matched.
  const noun = outcome.corpus.hydrated_grain ?? GRAIN_NOUN[outcome.corpus.grain];
  const parts: string[] = [];
  if (emptyReason === 'read_failed') {
    parts.push(
      `The read of ${STORE_NAME[outcome.corpus.store]} failed: this is not an empty result. Retry with backoff.`,
    );
  } else if (emptyReason === 'not_synced') {
    parts.push('No data has been synced for this store yet: the workspace has nothing to search here.');
  } else if (emptyReason === 'scope_disjoint') {
    parts.push(`No ${noun}s: the requested scope does not overlap the data this workspace holds.`);
  } else if (rowCount === 0) {
    parts.push(`No ${noun}s matched (${search.lane} lane).`);
  } else if (emptyReason === 'no_match') {
    parts.push(
      `No ${noun}s matched (${search.lane} lane): the aggregate ran over an empty population, so its one row holds zero counts and null values.`,
    );
  } else {
    parts.push(
      `${rowCount} ${noun}${rowCount === 1 ? '' : 's'} from ${STORE_NAME[outcome.corpus.store]} (${search.lane} lane)${outcome.matchCount > rowCount ? ` of ${outcome.matchCount} matches` : ''}.`,
    );
  }
  if (outcome.note) parts.push(outcome.note);
  // Staleness: a recent-window ask came back empty and the data stops before the window.
  if (rowCount === 0 && outcome.recentWindowStart && freshness?.latest_event_at) {
    const latest = new Date(freshness.latest_event_at);
    if (latest.getTime() < outcome.recentWindowStart.getTime()) {
      parts.push(
        `The data may be behind: you asked about events since ${outcome.recentWindowStart.toISOString().slice(0, 10)}, but the newest event synced is from ${freshness.latest_event_at.slice(0, 10)} (${freshness.days_behind} days ago).`,
      );
    }
  } else if (freshness?.is_stale && rowCount === 0) {
    parts.push(`The newest synced event is ${freshness.days_behind} days old.`);
  }
  return parts.join(' ');
}
