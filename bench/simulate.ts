/**
 * `POST /simulate` over cohorts of growing size (one quarter, one region, the whole year; deals and
 * interactions), beside the bare cohort read: the one statement the operation runs to read its
 * cohort (`cohortStatement`, whose record of intent is the response's `evidence.compiled.sql`), run
 * alone on the same database. Three figures per cohort, sampled alternately:
 *   - bare SQL: the cohort statement alone (the floor: any projection has to read its cohort);
 *   - in-process: `simulate()` (compile, the read, the freshness probe, the assumptions and the
 *     metrics), so `in-process / bare` is what the projection adds to its read;
 *   - HTTP: the same request through the app (authentication, validation, the output schema, JSON).
 * Before timing, each cohort is checked: the response's compiled SQL is the statement's intent, and
 * the statement's rows give the response's cohort_size and deal_count.
 *
 * The evidence SQL itself is a record of intent in the search vocabulary (`account_region`, `deal.amount`,
 * no tenant predicate), not runnable as written; the statement it records is what runs here.
 *
 *   npx tsx bench/simulate.ts [scale]      e.g. `npx tsx bench/simulate.ts 10`
 */
import { queryRows } from '../platform/db/port.js';
import { compileCohortQuery, cohortStatement } from '../functions/simulate/cohort.js';
import { simulate } from '../functions/simulate/run.js';
import { SimulateRequestSchema, type SimulateResponse, type SimulateSurface } from '../functions/simulate/schemas.js';
import { openBenchCorpus, type BenchCorpus } from './corpus-db.js';
import { medP95, ratio, sampleInterleaved } from './latency.js';
import { printTable } from './report.js';

const DAY_MS = 86_400_000;
/** The longest horizon the operation allows: the largest cohort of each surface. */
const HORIZON_DAYS = 365;
/** A calendar quarter inside the horizon of the corpus's clock (BENCH_NOW is 2026-03-01). */
const QUARTER = ['2025-10-01T00:00:00Z', '2025-12-31T23:59:59Z'];

/** Every kind of assumption, one `set` with a `where` (an extra column in the cohort read). */
const ASSUMPTIONS = [
  { type: 'scale', field: 'amount', factor: 1.1 },
  {
    type: 'set',
    field: 'stage',
    from: 'negotiation',
    to: 'closed_won',
    where: [{ field: 'account_region', op: 'eq', value: 'EMEA' }],
  },
  { type: 'shift', field: 'close_date', days: -14 },
];

interface CohortCase {
  name: string;
  surface: SimulateSurface;
  filters: Record<string, unknown>[];
}

const CASES: CohortCase[] = [
  {
    name: 'deals, one quarter',
    surface: 'deals',
    filters: [{ field: 'occurred_at', op: 'between', value: QUARTER }],
  },
  {
    name: 'deals, one region (EMEA)',
    surface: 'deals',
    filters: [{ field: 'account_region', op: 'eq', value: 'EMEA' }],
  },
  { name: 'deals, all', surface: 'deals', filters: [] },
  {
    name: 'interactions, one quarter',
    surface: 'interactions',
    filters: [{ field: 'occurred_at', op: 'between', value: QUARTER }],
  },
  { name: 'interactions, all', surface: 'interactions', filters: [] },
];

export async function benchSimulate(corpus: BenchCorpus): Promise<Record<string, string | number>[]> {
  const { db, workspaceId, services } = corpus;
  const rounds = corpus.scale >= 10 ? 10 : 20;
  const rows: Record<string, string | number>[] = [];
  for (const c of CASES) {
    const body = {
      scenario: `bench: ${c.name}`,
      surface: c.surface,
      cohort: { filters: c.filters },
      assumptions: ASSUMPTIONS,
      metrics: ['count', 'win_rate', 'cycle_days', 'sum_deal_amount'],
      horizon_days: HORIZON_DAYS,
    };
    const request = SimulateRequestSchema.parse(body);
    const since = new Date(services.clock.now().getTime() - HORIZON_DAYS * DAY_MS);
    const bare = cohortStatement(
      c.surface,
      compileCohortQuery(c.surface, request.cohort?.filters ?? [], request.assumptions, workspaceId),
      workspaceId,
      since,
    );
    const readBare = () => queryRows<{ deal_id: string | null; members: number | string }>(db, bare.statement);

    // Untimed checks: the response records this statement, and the statement's rows are its cohort.
    const answer = await corpus.post<SimulateResponse>('/simulate', body);
    if (answer.evidence.compiled.sql !== bare.intentSql)
      throw new Error(
        `${c.name}: evidence.compiled.sql is not the bench's statement:\n${answer.evidence.compiled.sql}`,
      );
    const read = await readBare();
    const members = read.reduce((n, r) => n + Number(r.members), 0);
    const deals = read.filter((r) => r.deal_id !== null).length;
    if (members !== answer.evidence.cohort_size || deals !== answer.evidence.deal_count)
      throw new Error(
        `${c.name}: the bare read holds ${members} rows and ${deals} deals, the response ${answer.evidence.cohort_size} and ${answer.evidence.deal_count}`,
      );

    const [bareStats, inProcessStats, httpStats] = await sampleInterleaved(
      [readBare, () => simulate(services, workspaceId, request), () => corpus.post('/simulate', body)],
      { rounds },
    );
    if (!bareStats || !inProcessStats || !httpStats) throw new Error('missing samples');
    rows.push({
      cohort: c.name,
      rows: answer.evidence.cohort_size,
      deals: answer.evidence.deal_count,
      'bare cohort SQL': medP95(bareStats),
      'simulate() in-process': medP95(inProcessStats),
      'POST /simulate': medP95(httpStats),
      'in-process/bare': ratio(inProcessStats.medianMs, bareStats.medianMs),
      'HTTP/bare': ratio(httpStats.medianMs, bareStats.medianMs),
    });
  }
  return rows;
}

export const simulateTitle = (corpus: BenchCorpus) =>
  `Simulate at ${corpus.scale}x (${HORIZON_DAYS}-day horizon, 3 assumptions, 4 metrics): POST /simulate and simulate() in-process vs the bare cohort statement it runs, ms median / p95`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const scale = Number(process.argv.slice(2).find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 1);
  const corpus = await openBenchCorpus(scale);
  try {
    printTable(simulateTitle(corpus), await benchSimulate(corpus));
  } finally {
    await corpus.close();
  }
  process.exit(0);
}
