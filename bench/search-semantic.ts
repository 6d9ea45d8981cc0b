/**
 * Semantic lane: recall@10 and latency against an exact scan, over the labelled queries of
 * bench/semantic-labels.ts.
 *
 * - Exact (baseline): embed the query with the service's embedder, then brute-force cosine over the
 *   same store the lane reads (the workspace's distinct external texts of that embedder,
 *   utterance_vectors), ordered by `(embedding <=> q) + 0` so no HNSW index can serve it (the plan
 *   is checked to contain no HNSW scan), expanded to the utterances saying those texts exactly as
 *   the lane does. Since the store holds each distinct text once, this baseline is itself ~1.5x
 *   cheaper than the scan over every external utterance it replaced.
 * - Lane: `POST /search/query` with `mode: semantic`, through the real app in-process with a
 *   viewer's API key (bench/corpus-db.ts: the per-user limit is lifted by swapping the limiter port,
 *   never answered 429). The lane's similarities are read back as distances.
 *
 * Recall@10 is by distance (ties in the templated corpus make id recall meaningless; see
 * recallAt10 in bench/corpus-db.ts). Below HNSW_MIN_VECTORS (10k distinct texts; 1x has ~2.5k,
 * 10x ~17.7k) no HNSW index exists, so the lane scans exactly too and recall must be 1; at 10x the
 * load builds the index and bench/run.ts rebuilds it twice more (builds are randomized), so recall
 * is measured per build. P@10 is the share of the top ten whose theme is relevant
 * (label quality of the answer, for the lane and for the exact scan). Latency: limit 10 vs exact
 * top-10, and the default limit (100), with and without `hydrate: true`, vs exact top-100.
 *
 *   npx tsx bench/search-semantic.ts [scale]
 */
import { sql } from 'drizzle-orm';
import { assembleResponse } from '../functions/search/assemble.js';
import { LANES } from '../functions/search/operations.js';
import { HNSW_EF_SEARCH } from '../functions/search/semantic-lane.js';
import { resolveSearch } from '../functions/search/validate.js';
import { queryRows, type Database } from '../platform/db/port.js';
import { openBenchCorpus, recallOne, type BenchCorpus, type Hit } from './corpus-db.js';
import { medP95, ms, ratio, sampleInterleaved, type LatencyStats } from './latency.js';
import { printTable } from './report.js';
import { LABELLED_QUERIES, precisionAt10, themeLabeller } from './semantic-labels.js';

/** The lane reports similarity rounded to 1e-6; read back as a distance, allow for that rounding. */
const ROUNDING_TOLERANCE = 2e-6;

const vectorLiteral = (v: readonly number[]) => `[${v.join(',')}]`;

async function exactTopK(corpus: BenchCorpus, query: string, k: number): Promise<Hit[]> {
  const [vector] = await corpus.services.embedder.embed([query]);
  if (!vector) throw new Error('the embedder returned no vector');
  return exactTopKOf(corpus.db, corpus.workspaceId, corpus.services.embedder.id, vectorLiteral(vector), k);
}

const exactSql = (workspaceId: string, embedderId: string, literal: string, k: number) =>
  sql`select u.id, n.distance
      from (
        select v.text_hash, v.embedding <=> ${literal}::vector as distance from utterance_vectors v
        where v.workspace_id = ${workspaceId} and v.embedder = ${embedderId}
        order by (v.embedding <=> ${literal}::vector) + 0 limit ${k}
      ) n
      join utterances u on u.workspace_id = ${workspaceId} and u.side = 'external' and u.embedder = ${embedderId} and u.text_hash = n.text_hash
      order by n.distance, u.id limit ${k}`;

async function exactTopKOf(
  db: Database,
  workspaceId: string,
  embedderId: string,
  literal: string,
  k: number,
): Promise<Hit[]> {
  const rows = await queryRows<{ id: string; distance: number | string }>(
    db,
    exactSql(workspaceId, embedderId, literal, k),
  );
  return rows.map((r) => ({ id: r.id, distance: Number(r.distance) }));
}

/** The plans of the exact scan and of the lane's utterance read (its settings, its shape). */
async function plans(corpus: BenchCorpus, query: string): Promise<{ exact: string; lane: string }> {
  const [vector] = await corpus.services.embedder.embed([query]);
  const literal = vectorLiteral(vector ?? []);
  const embedderId = corpus.services.embedder.id;
  const ws = corpus.workspaceId;
  const explain = async (settings: string[], inner: ReturnType<typeof sql>) =>
    corpus.db.transaction(async (tx) => {
      for (const s of settings) await tx.execute(sql.raw(s));
      const rows = await queryRows<{ 'QUERY PLAN': string }>(tx, sql`explain ${inner}`);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
  const exact = await explain([], exactSql(ws, embedderId, literal, 10));
  const lane = await explain(
    [`set local hnsw.ef_search = ${HNSW_EF_SEARCH}`, 'set local hnsw.iterative_scan = relaxed_order'],
    sql`select v.text_hash, v.embedding <=> ${literal}::vector as distance from utterance_vectors v
        where v.workspace_id = ${ws} and v.embedder = ${embedderId}
        order by v.embedding <=> ${literal}::vector limit 11`,
  );
  return { exact, lane };
}

const usesHnsw = (plan: string) => /hnsw/i.test(plan);

/** The lane without the app: routing/validation and the lane runner, in-process, optionally with the response assembly. */
async function runLane(corpus: BenchCorpus, query: string, limit: number, assemble: boolean) {
  const { services, workspaceId } = corpus;
  const { search, ignored } = await resolveSearch({ mode: 'semantic', query, limit }, services.model);
  const now = services.clock.now();
  const outcome = await LANES.semantic({ services, workspaceId, search, now, signal: new AbortController().signal });
  return assemble ? assembleResponse(services, workspaceId, search, outcome, ignored, now) : outcome;
}

export interface SemanticFigures {
  rows: Record<string, string | number>[];
  perQuery: Record<string, string | number>[];
}

export async function benchSearchSemantic(
  corpus: BenchCorpus,
  options: { passes?: number } = {},
): Promise<SemanticFigures> {
  const passes = options.passes ?? (corpus.scale >= 10 ? 2 : 3);
  const label = themeLabeller();
  const queries = LABELLED_QUERIES;

  const plan = await plans(corpus, queries[0]?.query ?? 'pricing');
  if (usesHnsw(plan.exact)) throw new Error(`the exact baseline would use the HNSW index:\n${plan.exact}`);
  const [indexRow] = await queryRows<{ present: boolean }>(
    corpus.db,
    sql`select to_regclass('utterance_vectors_embedding_hnsw_idx') is not null as present`,
  );

  // Quality, untimed: the lane's top 10 against the exact top 10, per query.
  const texts = async (ids: readonly string[]): Promise<string[]> => {
    if (ids.length === 0) return [];
    const rows = await queryRows<{ id: string; text: string }>(
      corpus.db,
      sql`select id, text from utterances where workspace_id = ${corpus.workspaceId} and id in (${sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`,
    );
    const byId = new Map(rows.map((r) => [r.id, r.text]));
    return ids.map((id) => byId.get(id) ?? '');
  };
  const perQuery: Record<string, string | number>[] = [];
  const recalls: number[] = [];
  const laneP: number[] = [];
  const exactP: number[] = [];
  for (const q of queries) {
    const exact = await exactTopK(corpus, q.query, 10);
    const response = await corpus.search({ mode: 'semantic', query: q.query, limit: 10 });
    if (response.mode_ran !== 'semantic' || response.corpus.store !== 'pgvector') {
      throw new Error(
        `"${q.query}": the lane answered from ${response.mode_ran}/${response.corpus.store}${response.corpus.degraded ? ' (degraded)' : ''}, not the utterance store`,
      );
    }
    const lane: Hit[] = response.results.map((r) => ({ id: String(r.id), distance: 1 - Number(r.similarity) }));
    const recall = recallOne(exact, lane, ROUNDING_TOLERANCE);
    const pl = precisionAt10(q, await texts(lane.map((h) => h.id)), label);
    const pe = precisionAt10(q, await texts(exact.map((h) => h.id)), label);
    recalls.push(recall);
    laneP.push(pl);
    exactP.push(pe);
    perQuery.push({
      query: q.query,
      'recall@10': recall.toFixed(2),
      'P@10 lane': pl.toFixed(1),
      'P@10 exact': pe.toFixed(1),
      'lane 10th dist': lane[9]?.distance.toFixed(4) ?? '-',
      'exact 10th dist': exact[9]?.distance.toFixed(4) ?? '-',
    });
  }

  // Latency: each timed function walks the queries in the same order; all are interleaved.
  const cycling = (fn: (query: string) => Promise<unknown>) => {
    let i = 0;
    return () => fn((queries[i++ % queries.length] as (typeof queries)[number]).query);
  };
  // The store as it was before deduplication (one vector per external utterance), rebuilt in a
  // scratch table for this run: the scan the semantic store replaced, measured beside it.
  await corpus.db.execute(sql`drop table if exists bench_vectors_per_utterance`);
  await corpus.db.execute(sql`create table bench_vectors_per_utterance as
    select u.id, v.embedding from utterances u
    join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
    where u.workspace_id = ${corpus.workspaceId} and u.side = 'external' and u.embedder = ${corpus.services.embedder.id}`);
  const perUtteranceTopK = async (query: string, k: number) => {
    const [vector] = await corpus.services.embedder.embed([query]);
    const literal = vectorLiteral(vector ?? []);
    return queryRows(
      corpus.db,
      sql`select id, embedding <=> ${literal}::vector as distance from bench_vectors_per_utterance order by embedding <=> ${literal}::vector, id limit ${k}`,
    );
  };
  const stats = await sampleInterleaved(
    [
      cycling((q) => perUtteranceTopK(q, 10)),
      cycling((q) => exactTopK(corpus, q, 10)),
      cycling((q) => corpus.search({ mode: 'semantic', query: q, limit: 10 })),
      cycling((q) => runLane(corpus, q, 10, false)),
      cycling((q) => runLane(corpus, q, 10, true)),
      cycling((q) => exactTopK(corpus, q, 100)),
      cycling((q) => corpus.search({ mode: 'semantic', query: q })),
      cycling((q) => corpus.search({ mode: 'semantic', query: q, hydrate: true })),
    ],
    { rounds: passes * queries.length, warmup: 3 },
  );
  await corpus.db.execute(sql`drop table bench_vectors_per_utterance`);
  const [perUtterance10, exact10, lane10, runner10, assembled10, exact100, lane100, hydrate100] = stats as [
    LatencyStats,
    LatencyStats,
    LatencyStats,
    LatencyStats,
    LatencyStats,
    LatencyStats,
    LatencyStats,
    LatencyStats,
  ];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const below = recalls.filter((r) => r < 1).length;

  const [store] = await queryRows<{ vectors: number; utterances: number }>(
    corpus.db,
    sql`select (select count(*)::int from utterance_vectors where workspace_id = ${corpus.workspaceId}) as vectors,
               (select count(*)::int from utterances where workspace_id = ${corpus.workspaceId} and side = 'external') as utterances`,
  );
  const rows: Record<string, string | number>[] = [
    {
      measure: 'exact scan over every external utterance, top 10',
      'ms (med/p95)': medP95(perUtterance10),
      ratio: ratio(perUtterance10.medianMs, exact10.medianMs),
      note: `the store before deduplication (one vector per utterance); the lane runner is ${ratio(perUtterance10.medianMs, runner10.medianMs)} faster than it`,
    },
    {
      measure: `exact scan, top 10 (baseline)`,
      'ms (med/p95)': medP95(exact10),
      ratio: '1.00x',
      note: 'embed + brute-force cosine over the distinct texts, expanded to utterances',
    },
    {
      measure: 'lane, limit 10 (HTTP)',
      'ms (med/p95)': medP95(lane10),
      ratio: ratio(lane10.medianMs, exact10.medianMs),
      note: `recall@10 mean ${mean(recalls).toFixed(3)}, min ${Math.min(...recalls).toFixed(2)}, ${below}/${recalls.length} queries < 1; P@10 lane ${mean(laneP).toFixed(3)} vs exact ${mean(exactP).toFixed(3)}`,
    },
    {
      measure: '  of which the lane runner alone',
      'ms (med/p95)': medP95(runner10),
      ratio: ratio(runner10.medianMs, exact10.medianMs),
      note: 'resolveSearch + LANES.semantic in-process (no HTTP, auth, assemble)',
    },
    {
      measure: '  of which runner + assemble',
      'ms (med/p95)': medP95(assembled10),
      ratio: ratio(assembled10.medianMs, exact10.medianMs),
      note: 'adds assembleResponse: coverage block and the freshness probe of the utterance store',
    },
    { measure: 'exact scan, top 100 (baseline)', 'ms (med/p95)': medP95(exact100), ratio: '1.00x', note: '' },
    {
      measure: 'lane, limit 100 (default)',
      'ms (med/p95)': medP95(lane100),
      ratio: ratio(lane100.medianMs, exact100.medianMs),
      note: '',
    },
    {
      measure: 'lane, limit 100, hydrate: true',
      'ms (med/p95)': medP95(hydrate100),
      ratio: ratio(hydrate100.medianMs, exact100.medianMs),
      note: `${ratio(hydrate100.medianMs, lane100.medianMs)} the unhydrated lane`,
    },
    {
      measure: 'store',
      'ms (med/p95)': '',
      ratio: '',
      note: `${store?.vectors} vectors for ${store?.utterances} external utterances; HNSW index ${indexRow?.present ? 'present' : 'absent'}; lane plan: ${usesHnsw(plan.lane) ? 'HNSW index scan' : 'exact scan'} (ef_search ${HNSW_EF_SEARCH}, iterative relaxed)`,
    },
  ];
  return { rows, perQuery };
}

export const semanticTitle = (corpus: BenchCorpus) =>
  `Search, semantic lane at ${corpus.scale}x: ${LABELLED_QUERIES.length} labelled queries, the lane vs an exact scan (ratio = lane median / baseline median)`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const scale = Number(process.argv.slice(2).find((a) => /^\d+(\.\d+)?$/.test(a)) ?? 1);
  const corpus = await openBenchCorpus(scale);
  try {
    process.stdout.write(`corpus ${scale}x loaded in ${ms(corpus.setupMs / 1000)} s\n`);
    const figures = await benchSearchSemantic(corpus);
    printTable(semanticTitle(corpus), figures.rows);
    if (process.argv.includes('--verbose')) printTable('Per query', figures.perQuery);
  } finally {
    await corpus.close();
  }
  process.exit(0);
}
