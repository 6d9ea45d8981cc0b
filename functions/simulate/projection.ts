import type { DealStage } from '../../schema/warehouse-deals.js';
import type { Assumption, MetricValues, SimulateMetric } from './schemas.js';

/**
 * The arithmetic of a simulation, on deals held in memory: apply the assumptions in order, then
 * measure the metrics before and after. Pure (no I/O), so each rule here is the one documented in
 * the operation's description.
 */

const DAY_MS = 86_400_000;

/** One deal of the cohort, with what the metrics read. */
export interface CohortDeal {
  id: string;
  name: string;
  stage: DealStage;
  amount: number | null;
  isClosed: boolean;
  isWon: boolean;
  /** When the deal was created (its event time), in ms. */
  createdMs: number;
  /** YYYY-MM-DD, or null when unknown. */
  closeDate: string | null;
  /** Per `set` assumption (by its index): whether the deal matched the assumption's `where`. */
  matches: ReadonlyMap<number, boolean>;
}

export interface AppliedAssumption {
  index: number;
  type: Assumption['type'];
  field: string;
  description: string;
  rows_affected: number;
}

export interface Applied {
  after: CohortDeal[];
  applied: AppliedAssumption[];
  /** Ids of deals changed by at least one assumption. */
  changed: Set<string>;
}

const closedBy = (stage: DealStage): { isClosed: boolean; isWon: boolean } => ({
  isClosed: stage === 'closed_won' || stage === 'closed_lost',
  isWon: stage === 'closed_won',
});

const dateMs = (date: string): number => Date.parse(`${date}T00:00:00Z`);
const isoDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Apply the assumptions in order; each sees the deals as the previous ones left them. */
export function applyAssumptions(deals: readonly CohortDeal[], assumptions: readonly Assumption[]): Applied {
  let current = deals.map((d) => ({ ...d }));
  const changed = new Set<string>();
  const applied: AppliedAssumption[] = [];
  assumptions.forEach((assumption, index) => {
    let affected = 0;
    current = current.map((deal) => {
      const next = applyOne(deal, assumption, index);
      if (next === deal) return deal;
      affected += 1;
      changed.add(deal.id);
      return next;
    });
    applied.push({
      index,
      type: assumption.type,
      field: assumption.field,
      description: describe(assumption),
      rows_affected: affected,
    });
  });
  return { after: current, applied, changed };
}

/** The deal after one assumption, or the same object when it does not change. */
function applyOne(deal: CohortDeal, assumption: Assumption, index: number): CohortDeal {
  switch (assumption.type) {
    case 'scale': {
      if (deal.amount === null) return deal;
      const amount = deal.amount * assumption.factor;
      return amount === deal.amount ? deal : { ...deal, amount };
    }
    case 'set': {
      if (assumption.from !== undefined && deal.stage !== assumption.from) return deal;
      if (assumption.where !== undefined && deal.matches.get(index) !== true) return deal;
      if (deal.stage === assumption.to) return deal;
      return { ...deal, stage: assumption.to, ...closedBy(assumption.to) };
    }
    case 'shift': {
      if (deal.closeDate === null || assumption.days === 0) return deal;
      const createdDay = dateMs(isoDate(deal.createdMs));
      const shifted = Math.max(dateMs(deal.closeDate) + assumption.days * DAY_MS, createdDay);
      const closeDate = isoDate(shifted);
      return closeDate === deal.closeDate ? deal : { ...deal, closeDate };
    }
  }
}

function describe(assumption: Assumption): string {
  switch (assumption.type) {
    case 'scale':
      return `${assumption.field} × ${assumption.factor}`;
    case 'set':
      return `${assumption.field}${assumption.from ? ` ${assumption.from}` : ''} → ${assumption.to}${assumption.where ? ` where ${assumption.where.length} predicate${assumption.where.length === 1 ? '' : 's'}` : ''}`;
    case 'shift':
      return `${assumption.field} ${assumption.days >= 0 ? '+' : ''}${assumption.days} days`;
  }
}

/** What a metric is measured on, besides its value: the sample and its spread (for confidence). */
export interface Measured {
  value: number | null;
  /** Relative standard error of the value: 0 for an exact count, Infinity when it cannot be said. */
  relativeError: number;
}

/**
 * The metrics' definitions:
 *   - count: rows of the surface in the cohort (deals, or interactions), which no assumption changes;
 *   - win_rate: won ÷ closed among the deals (null when none is closed);
 *   - cycle_days: mean days from creation to close date over closed deals with a close date;
 *   - sum_deal_amount: sum of the known amounts (null when none is known; unknown is never 0).
 */
export function measure(metric: SimulateMetric, deals: readonly CohortDeal[], rowCount: number): Measured {
  switch (metric) {
    case 'count':
      return { value: rowCount, relativeError: 0 };
    case 'win_rate': {
      const closed = deals.filter((d) => d.isClosed);
      if (closed.length === 0) return { value: null, relativeError: Number.POSITIVE_INFINITY };
      const p = closed.filter((d) => d.isWon).length / closed.length;
      return {
        value: p,
        relativeError: p === 0 ? Number.POSITIVE_INFINITY : Math.sqrt((p * (1 - p)) / closed.length) / p,
      };
    }
    case 'cycle_days': {
      const cycles = deals
        .filter((d) => d.isClosed && d.closeDate !== null)
        .map((d) => (dateMs(d.closeDate as string) - d.createdMs) / DAY_MS);
      return meanWithError(cycles);
    }
    case 'sum_deal_amount': {
      const amounts = deals.flatMap((d) => (d.amount === null ? [] : [d.amount]));
      const mean = meanWithError(amounts);
      // The sum's relative error is the mean's: sum = n × mean with n known exactly.
      return { value: mean.value === null ? null : sum(amounts), relativeError: mean.relativeError };
    }
  }
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

function meanWithError(values: readonly number[]): Measured {
  if (values.length === 0) return { value: null, relativeError: Number.POSITIVE_INFINITY };
  const mean = sum(values) / values.length;
  if (values.length === 1) return { value: mean, relativeError: Number.POSITIVE_INFINITY };
  const variance = sum(values.map((v) => (v - mean) ** 2)) / (values.length - 1);
  const standardError = Math.sqrt(variance) / Math.sqrt(values.length);
  return {
    value: mean,
    relativeError: mean === 0 ? (standardError === 0 ? 0 : Number.POSITIVE_INFINITY) : standardError / Math.abs(mean),
  };
}

/** Below this many rows (and, for deal metrics, deals) the projection is withheld: `cohort_too_thin`. */
export const MIN_COHORT_SIZE = 5;

/**
 * Confidence from the cohort's size and the spread of the baseline's metrics: the largest relative
 * standard error among the requested metrics (count: 0) and the number of deals. high: at least 30
 * deals and every error ≤ 10 %; medium: at least 10 deals and every error ≤ 25 %; else low.
 */
export function confidenceOf(dealCount: number, baseline: readonly Measured[]): 'high' | 'medium' | 'low' {
  const worst = Math.max(0, ...baseline.map((m) => m.relativeError));
  if (dealCount >= 30 && worst <= 0.1) return 'high';
  if (dealCount >= 10 && worst <= 0.25) return 'medium';
  return 'low';
}

/** The metrics as the response shows them, with `projected − baseline` (null when either is null). */
export function metricValues(
  metrics: readonly SimulateMetric[],
  read: (metric: SimulateMetric) => number | null,
): MetricValues {
  return Object.fromEntries(metrics.map((m) => [m, read(m)])) as MetricValues;
}
