/**
 * Semantic lane with filters: recall@10 against an exact filtered scan, and latency beside the
 * unfiltered lane and the exact scan, for selective filters (one account; one month; both) and
 * broad ones, over the labelled queries of bench/semantic-labels.ts.
 *
 * - Exact (baseline): embed the query, then every external utterance the filter keeps, its text's
 *   vector read through the primary key and its distance computed (materialized, so no HNSW index
 *   can serve it), the nearest 10, ties by id. Written here, independently of the lane's SQL.
 * - Lane: `POST /search/query` with `mode: semantic` and the filters, through the real app
 *   in-process (bench/corpus-db.ts). It picks its read (functions/search/semantic-utterances.ts):
 *   the exact filtered scan when at most EXACT_FILTERED_MAX utterances pass the filter (or no HNSW
 *   index exists), else the HNSW walk with the filter inside it (iterative scan).
 * - Both reads forced (the store read alone, readUtteranceMatches with `scan`), per filter: the
 *   figures the threshold is chosen from (an index walk starves on a selective filter; an exact
 *   scan of a broad one computes most of the store's distances).
 *
 * Recall@10 is by distance (recallOne in bench/corpus-db.ts; ties in the templated corpus make id
 * recall meaningless). At 10x the load builds the HNSW index (17.7k distinct texts).
 *
 *   npx tsx bench/search-semantic-filters.ts [scale]   (default 10)
 */
import { sql } from 'drizzle-orm';
import type { Filter } from '../functions/search/request.js';
import {
  compileSemanticFilters,
  filteredUtterances,
  type SemanticFilter,
} from '../functions/search/semantic-filters.js';
import {
  EXACT_FILTERED_MAX,
  HNSW_EF_SEARCH,
  readUtteranceMatches,
  type SemanticScan,
} from '../functions/search/semantic-utterances.js';
import { queryRows } from '../platform/db/port.js';
import { BENCH_NOW, openBenchCorpus, recallOne, type BenchCorpus, type Hit } from './corpus-db.js';
import { medP95, ms, ratio, sampleInterleaved, type LatencyStats } from './latency.js';
import { printTable } from './report.js';
import { LABELLED_QUERIES } from './semantic-labels.js';

/** The lane reports similarity rounded to 1e-6; read back as a distance, allow for that rounding. */
const ROUNDING_TOLERANCE = 2e-6;
const DAY = 86_400_000;

const vectorLiteral = (v: readonly number[]) => `[${v.join(',')}]`;

interface FilterCase {
  name: string;
  filters: Filter[];
  /** The same predicate over `u` and `i` (the interaction), for the exact baseline. */
  where: ReturnType<typeof sql>;
}

/** The cases: a typical account (the median by speech), the month before last, both, and two broad filters. */
async function filterCases(corpus: BenchCorpus): Promise<FilterCase[]> {
  const ws = corpus.workspaceId;
  const from = new Date(BENCH_NOW.getTime() - 60 * DAY).toISOString();
  const to = new Date(BENCH_NOW.getTime() - 30 * DAY).toISOString();
  const accounts = await queryRows<{ id: string; n: number; in_month: number }>(
    corpus.db,
    sql`select i.account_id as id, count(*)::int as n,
               count(*) filter (where i.occurred_at >= ${from} and i.occurred_at < ${to})::int as in_month
        from utterances u join interactions i on i.id = u.interaction_id
        where u.workspace_id = ${ws} and u.side = 'external' and u.embedder is not null and i.account_id is not null
        group by i.account_id order by n, i.account_id`,
  );
  const median = accounts[Math.floor(accounts.length / 2)];
  const busiestInMonth = [...accounts].sort((a, b) => b.in_month - a.in_month)[0];
  if (!median || !busiestInMonth) throw new Error('the corpus has no account with speech');
  const month: Filter[] = [
    { field: 'occurred_at', op: 'gte', value: from },
    { field: 'occurred_at', op: 'lt', value: to },
  ];
  const monthWhere = sql`i.occurred_at >= ${from} and i.occurred_at < ${to}`;
  const yearAgo = new Date(BENCH_NOW.getTime() - 365 * DAY).toISOString();
  return [
    {
      name: 'one account (median)',
      filters: [{ field: 'account_id', op: 'eq', value: median.id }],
      where: sql`i.account_id = ${median.id}`,
    },
    { name: 'one month', filters: month, where: monthWhere },
    {
      name: 'one account + one month',
      filters: [{ field: 'account_id', op: 'eq', value: busiestInMonth.id }, ...month],
      where: sql`i.account_id = ${busiestInMonth.id} and ${monthWhere}`,
    },
    {
      name: 'broad: customer accounts',
      filters: [{ field: 'account_type', op: 'eq', value: 'customer' }],
      where: sql`exists (select 1 from accounts a where a.id = i.account_id and a.type = 'customer')`,
    },
    {
      name: 'broad: calls and meetings, last year',
      filters: [
        { field: 'kind', op: 'in', value: ['call', 'meeting'] },
        { field: 'occurred_at', op: 'gte', value: yearAgo },
      ],
      where: sql`i.kind in ('call', 'meeting') and i.occurred_at >= ${yearAgo}`,
    },
  ];
}

async function exactFiltered(corpus: BenchCorpus, literal: string, where: FilterCase['where'], k: number) {
  const ws = corpus.workspaceId;
  const embedderId = corpus.services.embedder.id;
  const rows = await queryRows<{ id: string; distance: number | string }>(
    corpus.db,
    sql`with kept as materialized (
          select u.id, u.text_hash from utterances u join interactions i on i.id = u.interaction_id and i.workspace_id = ${ws}
          where u.workspace_id = ${ws} and u.side = 'external' and u.embedder = ${embedderId} and ${where}),
        scored as materialized (
          select k.id, v.embedding <=> ${literal}::vector as distance from kept k
          join utterance_vectors v on v.workspace_id = ${ws} and v.embedder = ${embedderId} and v.text_hash = k.text_hash)
        select id, distance from scored order by distance, id limit ${k}`,
  );
  return rows.map((r) => ({ id: r.id, distance: Number(r.distance) }));
}

/** Whether the walk's store read (the lane's SQL with the filter inside) is planned on the HNSW index. */
async function walkUsesHnsw(corpus: BenchCorpus, literal: string, filter: SemanticFilter): Promise<boolean> {
  const ws = corpus.workspaceId;
  const embedderId = corpus.services.embedder.id;
  return corpus.db.transaction(async (tx) => {
    await tx.execute(
      sql`select set_config('hnsw.ef_search', ${String(HNSW_EF_SEARCH)}, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)`,
    );
    const rows = await queryRows<{ 'QUERY PLAN': string }>(
      tx,
      sql`explain select v.text_hash from utterance_vectors v
          where v.workspace_id = ${ws} and v.embedder = ${embedderId}
            and exists (select 1 ${filteredUtterances(filter, ws, embedderId)} and u.text_hash = v.text_hash)
          order by v.embedding <=> ${literal}::vector limit 11`,
    );
    return rows.some((r) => /hnsw/i.test(r['QUERY PLAN']));
  });
}

export async function benchSearchSemanticFilters(
  corpus: BenchCorpus,
  options: { passes?: number } = {},
): Promise<{ rows: Record<string, string | number>[]; reads: Record<string, string | number>[] }> {
  const passes = options.passes ?? 1;
  const queries = LABELLED_QUERIES.map((q) => q.query);
  const embedderId = corpus.services.embedder.id;
  const ws = corpus.workspaceId;
  const literals = new Map<string, string>();
  for (const q of queries) {
    const [vector] = await corpus.services.embedder.embed([q]);
    literals.set(q, vectorLiteral(vector ?? []));
  }
  const literalOf = (q: string) => literals.get(q) as string;
  const cases = await filterCases(corpus);
  const [indexRow] = await queryRows<{ present: boolean }>(
    corpus.db,
    sql`select to_regclass('utterance_vectors_embedding_hnsw_idx') is not null as present`,
  );

  const rows: Record<string, string | number>[] = [];
  const reads: Record<string, string | number>[] = [];
  const cycling = (fn: (query: string) => Promise<unknown>) => {
    let i = 0;
    return () => fn(queries[i++ % queries.length] as string);
  };
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const hits = (matches: { id: string; similarity: number }[]): Hit[] =>
    matches.map((m) => ({ id: m.id, distance: 1 - m.similarity }));

  for (const c of cases) {
    const [kept] = await queryRows<{ n: number }>(
      corpus.db,
      sql`select count(*)::int as n from utterances u join interactions i on i.id = u.interaction_id
          where u.workspace_id = ${ws} and u.side = 'external' and u.embedder = ${embedderId} and ${c.where}`,
    );
    const { filter } = compileSemanticFilters(c.filters, ws);
    if (!filter) throw new Error(`${c.name}: no filter applies`);
    const hnswWalk = await walkUsesHnsw(corpus, literalOf(queries[0] as string), filter);
    const forced = (scan: SemanticScan) => (q: string) =>
      readUtteranceMatches(corpus.db, ws, embedderId, literalOf(q), 11, filter, { scan });

    // Quality, untimed: the lane's and each forced read's top 10 against the exact top 10.
    const laneRecall: number[] = [];
    const walkRecall: number[] = [];
    const scanRecall: number[] = [];
    let short = 0;
    for (const q of queries) {
      // A match has positive similarity (the lane's rule): nearer than distance 1.
      const truth = (await exactFiltered(corpus, literalOf(q), c.where, 10)).filter((t) => t.distance < 1);
      const response = await corpus.search({ mode: 'semantic', query: q, limit: 10, filters: c.filters });
      if (!response.corpus.filters_applied) throw new Error(`${c.name}: the lane did not apply the filters`);
      const lane: Hit[] = response.results.map((r) => ({ id: String(r.id), distance: 1 - Number(r.similarity) }));
      if (lane.length < truth.length) short++;
      laneRecall.push(recallOne(truth, lane, ROUNDING_TOLERANCE));
      walkRecall.push(recallOne(truth, hits((await forced('nearest')(q)).matches.slice(0, 10)), ROUNDING_TOLERANCE));
      scanRecall.push(
        recallOne(truth, hits((await forced('exact_filtered')(q)).matches.slice(0, 10)), ROUNDING_TOLERANCE),
      );
    }

    const [exact, unfiltered, lane, walk, scan] = (await sampleInterleaved(
      [
        cycling(async (q) => {
          const [vector] = await corpus.services.embedder.embed([q]);
          return exactFiltered(corpus, vectorLiteral(vector ?? []), c.where, 10);
        }),
        cycling((q) => corpus.search({ mode: 'semantic', query: q, limit: 10 })),
        cycling((q) => corpus.search({ mode: 'semantic', query: q, limit: 10, filters: c.filters })),
        cycling(forced('nearest')),
        cycling(forced('exact_filtered')),
      ],
      { rounds: passes * queries.length, warmup: 2 },
    )) as [LatencyStats, LatencyStats, LatencyStats, LatencyStats, LatencyStats];
    const read = kept && kept.n <= EXACT_FILTERED_MAX ? 'exact filtered scan' : 'HNSW walk, filter inside';
    rows.push({
      filter: c.name,
      'kept utterances': kept?.n ?? 0,
      'lane read': indexRow?.present ? read : 'exact filtered scan (no index)',
      'recall@10 mean/min': `${mean(laneRecall).toFixed(3)} / ${Math.min(...laneRecall).toFixed(2)}`,
      'short answers': short,
      'lane ms (med/p95)': medP95(lane),
      'vs unfiltered lane': ratio(lane.medianMs, unfiltered.medianMs),
      'vs exact scan': ratio(lane.medianMs, exact.medianMs),
      'exact ms (embed + scan)': ms(exact.medianMs),
      'unfiltered lane ms': ms(unfiltered.medianMs),
    });
    reads.push({
      filter: c.name,
      'walk plan': hnswWalk ? 'HNSW index scan' : 'planner chose a scan',
      'walk recall mean/min': `${mean(walkRecall).toFixed(3)} / ${Math.min(...walkRecall).toFixed(2)}`,
      'walk ms (med/p95)': medP95(walk),
      'scan recall mean/min': `${mean(scanRecall).toFixed(3)} / ${Math.min(...scanRecall).toFixed(2)}`,
      'scan ms (med/p95)': medP95(scan),
      'walk / scan': ratio(walk.medianMs, scan.medianMs),
    });
  }
  return { rows, reads };
}

export const semanticFiltersTitle = (corpus: BenchCorpus) =>
  `Search, semantic lane with filters at ${corpus.scale}x: ${LABELLED_QUERIES.length} labelled queries, limit 10, recall@10 vs an exact filtered scan (ratios = lane median / baseline median)`;
export const semanticFilterReadsTitle = (corpus: BenchCorpus) =>
  `  The store read alone at ${corpus.scale}x, each way forced (take 11): the HNSW walk with the filter inside vs the exact filtered scan (threshold ${EXACT_FILTERED_MAX} kept utterances)`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const scale = Number(process.argv.slice(2).find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 10);
  const corpus = await openBenchCorpus(scale);
  try {
    process.stdout.write(`corpus ${scale}x loaded in ${ms(corpus.setupMs / 1000)} s\n`);
    const figures = await benchSearchSemanticFilters(corpus);
    printTable(semanticFiltersTitle(corpus), figures.rows);
    printTable(semanticFilterReadsTitle(corpus), figures.reads);
  } finally {
    await corpus.close();
  }
  process.exit(0);
}
