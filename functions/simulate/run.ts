import { ApiError } from '../../platform/errors.js';
import type { Services } from '../services.js';
import { probeFreshness } from '../search/index.js';
import { compileCohortQuery, readCohort } from './cohort.js';
import {
  applyAssumptions,
  confidenceOf,
  measure,
  metricValues,
  MIN_COHORT_SIZE,
  type CohortDeal,
} from './projection.js';
import type { SimulateMetric, SimulateRequest, SimulateResponse } from './schemas.js';

const DAY_MS = 86_400_000;
const SAMPLE_SIZE = 5;
const DEAL_METRICS: ReadonlySet<SimulateMetric> = new Set(['win_rate', 'cycle_days', 'sum_deal_amount']);

/** POST /simulate: the cohort read once, the assumptions applied in order, the metrics before and after. */
export async function simulate(
  services: Services,
  workspaceId: string,
  request: SimulateRequest,
): Promise<SimulateResponse> {
  const started = performance.now();
  const surface = request.surface ?? 'deals';
  const metrics = request.metrics ?? ['count'];
  const horizonDays = request.horizon_days ?? 90;
  const duplicate = metrics.findIndex((m, i) => metrics.indexOf(m) !== i);
  if (duplicate >= 0)
    throw new ApiError(
      'invalid_argument',
      `Invalid request: metrics.${duplicate}: ${metrics[duplicate]} is asked twice`,
      {
        fields: [
          { field: `metrics.${duplicate}`, problem: `duplicate metric ${metrics[duplicate]}`, code: 'duplicate' },
        ],
      },
    );

  const query = compileCohortQuery(surface, request.cohort?.filters ?? [], request.assumptions, workspaceId);
  const now = services.clock.now();
  const since = new Date(now.getTime() - horizonDays * DAY_MS);
  const readStarted = performance.now();
  const cohort = await readCohort(services.db, surface, query, workspaceId, since);
  const readMs = performance.now() - readStarted;
  const freshness = await probeFreshness(services.db, workspaceId, surface, now);

  const { after, applied, changed } = applyAssumptions(cohort.deals, request.assumptions);
  const baseline = new Map(metrics.map((m) => [m, measure(m, cohort.deals, cohort.rowCount)]));
  const projected = new Map(metrics.map((m) => [m, measure(m, after, cohort.rowCount)]));

  const asksDeals = metrics.some((m) => DEAL_METRICS.has(m));
  const thin = cohort.rowCount < MIN_COHORT_SIZE || (asksDeals && cohort.deals.length < MIN_COHORT_SIZE);
  const basis = asksDeals ? cohort.deals.length : cohort.rowCount;
  const value = (from: typeof baseline, m: SimulateMetric) => from.get(m)?.value ?? null;

  return {
    success: true,
    scenario: request.scenario,
    surface,
    horizon_days: horizonDays,
    projection: thin
      ? null
      : {
          baseline: metricValues(metrics, (m) => value(baseline, m)),
          projected: metricValues(metrics, (m) => value(projected, m)),
          delta: metricValues(metrics, (m) => {
            const before = value(baseline, m);
            const later = value(projected, m);
            return before === null || later === null ? null : later - before;
          }),
        },
    reason: thin ? 'cohort_too_thin' : null,
    confidence: thin ? 'low' : confidenceOf(basis, [...baseline.values()]),
    evidence: {
      cohort_size: cohort.rowCount,
      deal_count: cohort.deals.length,
      min_cohort_size: MIN_COHORT_SIZE,
      rows_affected: changed.size,
      sample: sampleOf(cohort.deals, after, changed),
      compiled: { sql: cohort.intentSql },
    },
    assumptions_applied: applied,
    freshness,
    timing: { read_ms: Math.round(readMs), total_ms: Math.round(performance.now() - started) },
  };
}

/** Up to five deals before and after, the changed ones first (in cohort order). */
function sampleOf(before: readonly CohortDeal[], after: readonly CohortDeal[], changed: ReadonlySet<string>) {
  const fields = (d: CohortDeal) => ({ stage: d.stage, amount: d.amount, close_date: d.closeDate });
  const pairs = before.map((deal, i) => ({ deal, later: after[i] as CohortDeal }));
  const ordered = [...pairs.filter((p) => changed.has(p.deal.id)), ...pairs.filter((p) => !changed.has(p.deal.id))];
  return ordered.slice(0, SAMPLE_SIZE).map(({ deal, later }) => ({
    deal_id: deal.id,
    deal_name: deal.name,
    before: fields(deal),
    after: fields(later),
  }));
}
