/**
 * First start of the embedded default, phase by phase: PGlite create + migrate in a fresh data
 * folder, corpus generation alone, the corpus load (generate + embed + write), then the semantic
 * store with and without an HNSW index: exact top-10 latency, index build time, HNSW top-10
 * latency and its recall@10 against the exact scan. Each scale runs in its own fresh database
 * (an HNSW index left by one scale would slow the next load ~15x).
 *
 *   npx tsx bench/first-start.ts [scale...]      e.g. `npx tsx bench/first-start.ts 1 10`
 */
import { sql } from 'drizzle-orm';
import { createWorkspace } from '../functions/identity/members.js';
import { queryRows, type Database } from '../platform/db/port.js';
import { ensureVectorIndexes } from '../platform/db/vector-indexes.js';
import { LocalHashEmbedder } from '../platform/model/local.js';
import { streamCorpus } from '../functions/embedded/demo/corpus-generator.js';
import { loadDemoCorpus } from '../functions/embedded/demo/load-corpus.js';
import { BENCH_NOW, openFreshDatabase, recallAt10, type Hit } from './corpus-db.js';
import { printTable } from './report.js';

const NOW = BENCH_NOW;
const QUERIES = [
  'this is too expensive for our budget, can you give us a discount',
  'we need single sign-on with Okta and SAML before rollout',
  'our champion is leaving the company next month',
  'our data has to stay in the EU',
  'the Salesforce sync keeps creating duplicate contacts',
  'reps stopped logging in and we might cancel',
  'how long does implementation take for a team our size',
  'we are comparing you with another vendor on price',
];

interface ScaleFigures {
  createMs: number;
  migrateMs: number;
  generateOnlyMs: number;
  loadMs: number;
  generateMs: number;
  embedMs: number;
  writeMs: number;
  analyzeMs: number;
  rows: number;
  vectors: number;
  exactMs: number;
  hnswBuildMs: number;
  hnswMs: number;
  recallAt10: number;
  hnswWideMs: number;
  recallWideAt10: number;
}

const elapsed = (from: number) => Math.round(performance.now() - from);

async function topTen(
  db: Database,
  workspaceId: string,
  embedder: LocalHashEmbedder,
): Promise<{ hits: Hit[][]; avgMs: number }> {
  const vectors = await embedder.embed(QUERIES);
  const hits: Hit[][] = [];
  // One untimed pass so the first timed query does not pay for cold caches.
  for (const v of vectors.slice(0, 2)) await search(db, workspaceId, embedder.id, v);
  const started = performance.now();
  for (const v of vectors) hits.push(await search(db, workspaceId, embedder.id, v));
  return { hits, avgMs: (performance.now() - started) / vectors.length };
}

async function search(db: Database, workspaceId: string, embedderId: string, vector: number[]): Promise<Hit[]> {
  const rows = await queryRows<{ id: string; distance: number }>(
    db,
    sql`select text_hash as id, embedding <=> ${JSON.stringify(vector)}::vector as distance from utterance_vectors
        where workspace_id = ${workspaceId} and embedder = ${embedderId}
        order by embedding <=> ${JSON.stringify(vector)}::vector limit 10`,
  );
  return rows.map((r) => ({ id: r.id, distance: Number(r.distance) }));
}

export async function measureScale(scale: number): Promise<ScaleFigures> {
  const embedder = new LocalHashEmbedder();
  const fresh = await openFreshDatabase('cip-bench-first-start-');
  try {
    const { handle, createMs, migrateMs } = fresh;
    let t: number;
    const { workspaceId } = await createWorkspace(handle.db, { name: `Bench ${scale}x` });

    t = performance.now();
    const stream = streamCorpus({ workspaceId, now: NOW, scale });
    for (const chunk of stream.chunks()) void chunk;
    stream.tail();
    const generateOnlyMs = elapsed(t);

    t = performance.now();
    const load = await loadDemoCorpus(handle.db, workspaceId, { scale, now: NOW, embedder, vectorIndexes: 'skip' });
    const loadMs = elapsed(t);

    const exact = await topTen(handle.db, workspaceId, embedder);
    t = performance.now();
    const [utteranceIndex] = await ensureVectorIndexes(handle.db, { force: true });
    const hnswBuildMs = utteranceIndex?.buildMs ?? elapsed(t);
    await handle.db.execute(sql`analyze utterance_vectors`);
    const approx = await topTen(handle.db, workspaceId, embedder);
    const recall = recallAt10(exact.hits, approx.hits);
    // The default ef_search (40) trades recall for speed; the semantic lane can raise it per query.
    // Template-generated text has clusters of near-identical vectors, which is where HNSW misses.
    await handle.db.execute(sql`set hnsw.ef_search = 400`);
    const wider = await topTen(handle.db, workspaceId, embedder);
    await handle.db.execute(sql`reset hnsw.ef_search`);
    return {
      createMs,
      migrateMs,
      generateOnlyMs,
      loadMs,
      generateMs: Math.round(load.timings.generateMs),
      embedMs: Math.round(load.timings.embedMs),
      writeMs: Math.round(load.timings.writeMs),
      analyzeMs: Math.round(load.timings.indexMs),
      rows: Object.entries(load.counts)
        .filter(([k]) => k !== 'utterance_vectors')
        .reduce((s, [, n]) => s + n, 0),
      vectors: load.counts.utterance_vectors ?? 0,
      exactMs: exact.avgMs,
      hnswBuildMs,
      hnswMs: approx.avgMs,
      recallAt10: recall,
      hnswWideMs: wider.avgMs,
      recallWideAt10: recallAt10(exact.hits, wider.hits),
    };
  } finally {
    await fresh.close();
  }
}

/** Rows for printTable: one per phase, one column per scale. */
export async function benchFirstStart(scales: readonly number[] = [1]): Promise<Record<string, string | number>[]> {
  const figures = new Map<number, ScaleFigures>();
  for (const scale of scales) figures.set(scale, await measureScale(scale));
  const s = (n: number) => `${(n / 1000).toFixed(1)} s`;
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  const line = (phase: string, pick: (f: ScaleFigures) => string | number): Record<string, string | number> => {
    const row: Record<string, string | number> = { phase };
    for (const [scale, f] of figures) row[`${scale}x`] = pick(f);
    return row;
  };
  return [
    line('PGlite create (data folder)', (f) => s(f.createMs)),
    line('migrate', (f) => s(f.migrateMs)),
    line('generate corpus only (no DB)', (f) => s(f.generateOnlyMs)),
    line('load corpus (total)', (f) => s(f.loadMs)),
    line('  of which generate', (f) => s(f.generateMs)),
    line('  of which embed', (f) => s(f.embedMs)),
    line('  of which write (COPY)', (f) => s(f.writeMs)),
    line('  of which analyze', (f) => s(f.analyzeMs)),
    line('rows written', (f) => f.rows),
    line('utterance vectors (distinct external texts)', (f) => f.vectors),
    line('create + migrate + load', (f) => s(f.createMs + f.migrateMs + f.loadMs)),
    line('top-10 cosine, exact scan', (f) => ms(f.exactMs)),
    line('HNSW index build', (f) => s(f.hnswBuildMs)),
    line('top-10 cosine, HNSW (ef_search 40)', (f) => ms(f.hnswMs)),
    line('  recall@10 vs exact', (f) => f.recallAt10.toFixed(3)),
    line('top-10 cosine, HNSW (ef_search 400)', (f) => ms(f.hnswWideMs)),
    line('  recall@10 vs exact', (f) => f.recallWideAt10.toFixed(3)),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const scales = process.argv.slice(2).map(Number);
  const valid = scales.length > 0 ? scales : [1];
  if (valid.some((n) => !Number.isFinite(n) || n <= 0)) {
    process.stderr.write('usage: npx tsx bench/first-start.ts [scale...]   (positive numbers, e.g. 1 10)\n');
    process.exit(2);
  }
  printTable(
    `First start: PGlite, migrations and the demo corpus at ${valid.map((n) => `${n}x`).join(', ')}`,
    await benchFirstStart(valid),
  );
  process.exit(0);
}
