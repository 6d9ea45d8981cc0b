import { defineOperation } from '../registry.js';
import { MAX_COHORT_ROWS } from './cohort.js';
import { MIN_COHORT_SIZE } from './projection.js';
import { simulate } from './run.js';
import { SimulateRequestSchema, SimulateResponseSchema } from './schemas.js';

export const simulateRun = defineOperation({
  id: 'simulate.run',
  method: 'post',
  path: '/simulate',
  summary: 'What-if projection over a deal or interaction cohort (coming soon)',
  description:
    'Served only when the service runs with SIMULATE_ENABLED; otherwise 404 and absent from this document, MCP and agents. ' +
    "**Cohort**: the surface's rows selected by `cohort.filters` (the search filter lane's predicates and vocabulary, " +
    'POST /search/query) whose `occurred_at` falls within the last `horizon_days` (default 90, at most 365): the projection ' +
    'replays that period under the assumptions. On `interactions` the deal metrics read the deals the interactions belong to, ' +
    "each once. **Assumptions** (at most 8) change the deals' fields in order, each on the result of the previous: `scale` " +
    'multiplies `amount` by `factor` (unknown amounts stay unknown); `set` moves `stage` (only deals at `from`, when given, ' +
    'matching `where`, when given, on the same surface) to `to`, where `closed_won`/`closed_lost` close the deal and another ' +
    'stage reopens it; `shift` moves `close_date` by `days` (never before the deal was created). **Metrics** (at most 8, default ' +
    '`[count]`): `count` rows in the cohort; `win_rate` won ÷ closed deals; `cycle_days` mean days from creation to close date ' +
    'over closed deals with one; `sum_deal_amount` the sum of the known amounts. A metric the cohort cannot measure is null, ' +
    `never 0. **Thin cohort**: below ${MIN_COHORT_SIZE} rows (or, for a deal metric, ${MIN_COHORT_SIZE} deals) \`projection\` is null ` +
    'with `reason: cohort_too_thin` at 200. **Confidence** comes from the cohort size and the spread of the baseline: the largest ' +
    "relative standard error among the asked metrics (count 0; win_rate √(p(1−p)/closed)/p; cycle_days and sum_deal_amount the mean's " +
    'standard error over the mean) — `high` with at least 30 deals and every error ≤ 10 %, `medium` with at least 10 and ≤ 25 %, ' +
    `else \`low\`. \`evidence.compiled.sql\` is the cohort read as a record of intent (tenant and scope predicates injected by the gate). ` +
    `A cohort of more than ${MAX_COHORT_ROWS} rows is refused (400): narrow it.`,
  tags: ['Simulate'],
  scopes: ['data:read'],
  minRole: 'viewer',
  stability: 'coming_soon',
  launchSwitch: 'SIMULATE_ENABLED',
  visibility: 'public',
  mcp: { tool: 'simulate', action: 'run' },
  readOnly: true,
  body: SimulateRequestSchema,
  example: {
    scenario: 'Discounts lift amounts 10% and late-stage deals close two weeks sooner',
    surface: 'deals',
    assumptions: [
      { type: 'scale', field: 'amount', factor: 1.1 },
      { type: 'shift', field: 'close_date', days: -14 },
    ],
    metrics: ['count', 'win_rate', 'cycle_days', 'sum_deal_amount'],
    horizon_days: 180,
  },
  output: SimulateResponseSchema,
  async handler(ctx, input) {
    return simulate(ctx.services, ctx.caller.workspaceId, input);
  },
});

export const simulateOperations = [simulateRun];
