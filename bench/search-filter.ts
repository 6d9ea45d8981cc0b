/**
 * Filter lane latency: representative `mode: filter` searches through `POST /search/query`, against
 * the same query written by hand in SQL on the same database, with the same tenant predicate and,
 * on interactions, the same excluded-interaction predicate (deals carry no exclusion). Per query:
 * median and p95 of the hand SQL (baseline), of the lane runner alone (resolveSearch +
 * LANES.filter, in-process: the lane's own SQL and shaping), of the runner plus assembleResponse
 * (coverage block, freshness probe) and of the full HTTP call (adds authentication, the limiter,
 * body validation, the output schema check and JSON), and the ratios to the baseline.
 *
 * Path: the real app, in-process (`app.request`) with a viewer's API key (bench/corpus-db.ts); the
 * per-user limit of search.query is lifted by swapping the limiter port for the same in-memory
 * limiter with its limits raised, so nothing answers 429. Every query is checked before it is
 * timed: the lane must return the hand SQL's rows (same ids or group keys, in the same order) and
 * its match_count must equal the hand-counted matches; any difference throws.
 *
 *   npx tsx bench/search-filter.ts [scale]      e.g. `npx tsx bench/search-filter.ts 10`
 */
import { sql, type SQL } from 'drizzle-orm';
import { assembleResponse } from '../functions/search/assemble.js';
import { LANES } from '../functions/search/operations.js';
import type { SearchRequest } from '../functions/search/request.js';
import { resolveSearch } from '../functions/search/validate.js';
import { queryRows } from '../platform/db/port.js';
import { BENCH_NOW, openBenchCorpus, type BenchCorpus } from './corpus-db.js';
import { medP95, ms, ratio, sampleInterleaved } from './latency.js';
import { printTable } from './report.js';

const DAY_MS = 86_400_000;
const isoDaysBefore = (days: number) => new Date(BENCH_NOW.getTime() - days * DAY_MS).toISOString();
const dateDaysFrom = (days: number) => new Date(BENCH_NOW.getTime() + days * DAY_MS).toISOString().slice(0, 10);

/** The interactions surface as the lane selects it: every vocabulary field, accounts and deals joined. */
const INTERACTION_COLUMNS =
  sql.raw(`t.id, t.kind, t.title, t.occurred_at, t.duration_seconds, t.direction, t.source, t.thread_id, t.summary, t.body,
  t.participant_count, t.external_participant_count, t.account_id, a.name as account_name, a.type as account_type,
  t.deal_id, d.name as deal_name, d.stage as deal_stage`);
const INTERACTION_JOINS = sql.raw(`left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
  left join deals d on d.id = t.deal_id and d.workspace_id = t.workspace_id`);
const DEAL_COLUMNS =
  sql.raw(`t.id, t.name, t.stage, t.amount, t.currency, t.close_date, t.owner_email, t.probability, t.is_closed, t.is_won,
  t.source, t.occurred_at, t.updated_at, t.account_id, a.name as account_name, a.type as account_type`);

/** Tenant plus excluded-interaction predicates, written by hand. */
const interactionScope = (ws: string): SQL =>
  sql`t.workspace_id = ${ws} and not exists (select 1 from excluded_interactions x where x.workspace_id = ${ws} and x.interaction_id = t.id)`;

interface FilterCase {
  name: string;
  request: SearchRequest;
  /** The hand-written query: its rows, in order. */
  hand: (ws: string) => SQL;
  /** The hand-written count of matches before the limit (rows, or groups). Untimed: a check only. */
  handCount: (ws: string) => SQL;
  /** What identifies a row (id, or the group key) in both answers. */
  key: (row: Record<string, unknown>) => string;
}

function cases(accountName: string): FilterCase[] {
  const since180 = isoDaysBefore(180);
  const since365 = isoDaysBefore(365);
  const closeFrom = dateDaysFrom(-90);
  const closeTo = dateDaysFrom(90);
  const byId = (row: Record<string, unknown>) => String(row.id);
  return [
    {
      name: `one account's calls+meetings, newest 10 (account_name eq "${accountName}")`,
      request: {
        mode: 'filter',
        filters: [
          { field: 'account_name', op: 'eq', value: accountName },
          { field: 'kind', op: 'in', value: ['call', 'meeting'] },
        ],
        order_by: { field: 'occurred_at', dir: 'desc' },
        limit: 10,
      },
      hand: (ws) => sql`select ${INTERACTION_COLUMNS} from interactions t ${INTERACTION_JOINS}
        where ${interactionScope(ws)} and a.name = ${accountName} and t.kind in ('call', 'meeting')
        order by t.occurred_at desc, t.id limit 10`,
      handCount: (
        ws,
      ) => sql`select count(*)::int as n from interactions t join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
        where ${interactionScope(ws)} and a.name = ${accountName} and t.kind in ('call', 'meeting')`,
      key: byId,
    },
    {
      name: 'long calls, last 180 days, longest 20 (duration gte 2700, occurred_at gte)',
      request: {
        mode: 'filter',
        filters: [
          { field: 'kind', op: 'eq', value: 'call' },
          { field: 'duration_seconds', op: 'gte', value: 2700 },
          { field: 'occurred_at', op: 'gte', value: since180 },
        ],
        order_by: { field: 'duration_seconds', dir: 'desc' },
        limit: 20,
      },
      hand: (ws) => sql`select ${INTERACTION_COLUMNS} from interactions t ${INTERACTION_JOINS}
        where ${interactionScope(ws)} and t.kind = 'call' and t.duration_seconds >= 2700 and t.occurred_at >= ${since180}::timestamptz
        order by t.duration_seconds desc nulls last, t.id limit 20`,
      handCount: (ws) => sql`select count(*)::int as n from interactions t
        where ${interactionScope(ws)} and t.kind = 'call' and t.duration_seconds >= 2700 and t.occurred_at >= ${since180}::timestamptz`,
      key: byId,
    },
    {
      name: 'group_by account_type, kind: count, avg duration, distinct accounts (last 365 days)',
      request: {
        mode: 'filter',
        filters: [{ field: 'occurred_at', op: 'gte', value: since365 }],
        group_by: ['account_type', 'kind'],
        metrics: [
          { fn: 'count' },
          { fn: 'avg', field: 'duration_seconds' },
          { fn: 'count_distinct', field: 'account_id' },
        ],
      },
      hand: (
        ws,
      ) => sql`select a.type as account_type, t.kind, count(*)::int as count, avg(t.duration_seconds) as avg_duration_seconds,
          count(distinct t.account_id)::int as count_distinct_account_id
        from interactions t left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
        where ${interactionScope(ws)} and t.occurred_at >= ${since365}::timestamptz
        group by a.type, t.kind order by a.type nulls last, t.kind limit 100`,
      handCount: (
        ws,
      ) => sql`select count(*)::int as n from (select 1 from interactions t left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
        where ${interactionScope(ws)} and t.occurred_at >= ${since365}::timestamptz group by a.type, t.kind) g`,
      key: (row) => `${row.account_type ?? 'null'}|${row.kind}|${Number(row.count)}`,
    },
    {
      name: 'top 10 accounts by calls: group_by account_name, count + sum duration, order_by count desc',
      request: {
        mode: 'filter',
        filters: [{ field: 'kind', op: 'eq', value: 'call' }],
        group_by: ['account_name'],
        metrics: [{ fn: 'count' }, { fn: 'sum', field: 'duration_seconds' }],
        order_by: { field: 'count', dir: 'desc' },
        limit: 10,
      },
      hand: (
        ws,
      ) => sql`select a.name as account_name, count(*)::int as count, sum(t.duration_seconds) as sum_duration_seconds
        from interactions t left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
        where ${interactionScope(ws)} and t.kind = 'call'
        group by a.name order by count desc nulls last, a.name nulls last limit 10`,
      handCount: (
        ws,
      ) => sql`select count(*)::int as n from (select 1 from interactions t left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
        where ${interactionScope(ws)} and t.kind = 'call' group by a.name) g`,
      key: (row) => `${row.account_name ?? 'null'}|${Number(row.count)}`,
    },
    {
      name: 'open deals closing within ±90 days, largest 50 (close_date between, is_closed eq false)',
      request: {
        mode: 'filter',
        surface: 'deals',
        filters: [
          { field: 'close_date', op: 'between', value: [closeFrom, closeTo] },
          { field: 'is_closed', op: 'eq', value: false },
        ],
        order_by: { field: 'amount', dir: 'desc' },
        limit: 50,
      },
      hand: (
        ws,
      ) => sql`select ${DEAL_COLUMNS} from deals t left join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
        where t.workspace_id = ${ws} and t.close_date between ${closeFrom}::date and ${closeTo}::date and t.is_closed = false
        order by t.amount desc nulls last, t.id limit 50`,
      handCount: (ws) => sql`select count(*)::int as n from deals t
        where t.workspace_id = ${ws} and t.close_date between ${closeFrom}::date and ${closeTo}::date and t.is_closed = false`,
      key: byId,
    },
  ];
}

/** The account with the most calls and meetings: a name that exists at every scale. */
async function busiestAccount(corpus: BenchCorpus): Promise<string> {
  const [row] = await queryRows<{ name: string }>(
    corpus.db,
    sql`select a.name from interactions t join accounts a on a.id = t.account_id and a.workspace_id = t.workspace_id
        where t.workspace_id = ${corpus.workspaceId} and t.kind in ('call', 'meeting') group by a.name order by count(*) desc, a.name limit 1`,
  );
  if (!row) throw new Error('the corpus holds no account with calls');
  return row.name;
}

export class BenchMismatchError extends Error {
  override name = 'BenchMismatchError';
}

export async function benchSearchFilter(
  corpus: BenchCorpus,
  options: { rounds?: number } = {},
): Promise<Record<string, string | number>[]> {
  const rounds = options.rounds ?? (corpus.scale >= 10 ? 15 : 30);
  const ws = corpus.workspaceId;
  const { services } = corpus;
  const rows: Record<string, string | number>[] = [];
  for (const c of cases(await busiestAccount(corpus))) {
    // Check first: same rows, same order, same match count.
    const response = await corpus.search(c.request);
    const hand = await queryRows<Record<string, unknown>>(corpus.db, c.hand(ws));
    const [counted] = await queryRows<{ n: number }>(corpus.db, c.handCount(ws));
    const laneKeys = response.results.map(c.key);
    const handKeys = hand.map(c.key);
    if (response.mode_ran !== 'filter')
      throw new BenchMismatchError(`${c.name}: mode_ran ${response.mode_ran}, expected filter`);
    if (laneKeys.length !== handKeys.length) {
      throw new BenchMismatchError(
        `${c.name}: the lane returned ${laneKeys.length} rows, the hand SQL ${handKeys.length}`,
      );
    }
    const firstDiff = laneKeys.findIndex((k, i) => k !== handKeys[i]);
    if (firstDiff >= 0)
      throw new BenchMismatchError(
        `${c.name}: row ${firstDiff} differs: lane ${laneKeys[firstDiff]}, hand SQL ${handKeys[firstDiff]}`,
      );
    if (response.corpus.match_count !== Number(counted?.n)) {
      throw new BenchMismatchError(`${c.name}: match_count ${response.corpus.match_count}, hand-counted ${counted?.n}`);
    }

    const runLane = async (assemble: boolean) => {
      const { search, ignored } = await resolveSearch(c.request, services.model);
      const now = services.clock.now();
      const outcome = await LANES.filter({
        services,
        workspaceId: ws,
        search,
        now,
        signal: new AbortController().signal,
      });
      return assemble ? assembleResponse(services, ws, search, outcome, ignored, now) : outcome;
    };
    const [handStats, laneStats, assembledStats, httpStats] = await sampleInterleaved(
      [
        () => queryRows(corpus.db, c.hand(ws)),
        () => runLane(false),
        () => runLane(true),
        () => corpus.search(c.request),
      ],
      { rounds },
    );
    if (!handStats || !laneStats || !assembledStats || !httpStats) throw new Error('missing samples');
    rows.push({
      query: c.name,
      rows: `${hand.length} of ${counted?.n}`,
      'hand SQL ms (med/p95)': medP95(handStats),
      'lane runner': medP95(laneStats),
      '+ assemble': medP95(assembledStats),
      HTTP: medP95(httpStats),
      'lane/hand': ratio(laneStats.medianMs, handStats.medianMs),
      '+assemble/hand': ratio(assembledStats.medianMs, handStats.medianMs),
      'HTTP/hand': ratio(httpStats.medianMs, handStats.medianMs),
      'HTTP/hand p95': ratio(httpStats.p95Ms, handStats.p95Ms),
    });
  }
  return rows;
}

export const filterTitle = (corpus: BenchCorpus) =>
  `Search, filter lane at ${corpus.scale}x (${corpus.load.counts.interactions ?? '?'} interactions, ${corpus.load.counts.deals ?? '?'} deals): the lane vs the same query by hand (tenant + exclusion predicates), ms median / p95`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const scale = Number(process.argv.slice(2).find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 1);
  const corpus = await openBenchCorpus(scale);
  try {
    process.stdout.write(`corpus ${scale}x loaded in ${ms(corpus.setupMs / 1000)} s\n`);
    printTable(filterTitle(corpus), await benchSearchFilter(corpus));
  } finally {
    await corpus.close();
  }
  process.exit(0);
}
