/**
 * `npm run bench`: every benchmark, each reporting its figures beside a baseline measured in the
 * same run (ratios, not absolute times: this machine's speed varies). `npm run bench -- --quick`
 * skips the 10x corpus figures.
 *
 * The search benchmarks (filter, semantic, fuzzy lanes), lookalike, simulate and enrichment share one
 * loaded database per scale.
 */
import { sql } from 'drizzle-orm';
import { ensureVectorIndexes } from '../platform/db/vector-indexes.js';
import { openBenchCorpus } from './corpus-db.js';
import { benchAgentLoop, benchLocalAnswers } from './agent-loop.js';
import { benchResearch } from './research.js';
import { benchAgentTools } from './agent-tools.js';
import { benchRoutineTick } from './routines.js';
import { benchEngine } from './engine.js';
import { benchEvals } from './evals.js';
import { benchHttp } from './http.js';
import { benchInputWalks, inputWalksTitle } from './input-walks.js';
import { benchReader, readerTitle } from './reader.js';
import { benchDocxThread, docxThreadTitle } from './docx-thread.js';
import { benchSoak } from './soak.js';
import { benchFirstStart } from './first-start.js';
import { benchConnectionSync, connectionSyncTitle } from './connections-sync.js';
import { benchKnowledge, knowledgeTitle } from './knowledge.js';
import { benchIngestResponsiveness, ingestResponsivenessTitle } from './ingest-responsiveness.js';
import { analysisProbeTitle, benchAnalysisProbe } from './analysis-probe.js';
import { printTable } from './report.js';
import { benchRetrievalRealSpeech, retrievalRealSpeechTitle } from './retrieval-real-speech.js';
import { benchRelevanceRealSpeech, relevanceRealSpeechTitle } from './relevance-real-speech.js';
import { benchSearchFilter, filterTitle } from './search-filter.js';
import { benchSearchFuzzy, fuzzyTitle } from './search-fuzzy.js';
import { benchSearchSemantic, semanticTitle } from './search-semantic.js';
import {
  benchSearchSemanticFilters,
  semanticFilterReadsTitle,
  semanticFiltersTitle,
} from './search-semantic-filters.js';
import {
  benchEnrich,
  benchLookalike,
  enrichTitle,
  lookalikeScaling,
  lookalikeScalingTitle,
  lookalikeTitle,
  type LookalikeFigures,
} from './lookalike-enrich.js';
import { benchSimulate, simulateTitle } from './simulate.js';
import { benchSqlQueryCost, sqlQueryCostTitle } from './sql-query-cost.js';

const quick = process.argv.includes('--quick');
const scales = quick ? [1] : [1, 10];
const started = Date.now();
await benchHttp(quick ? 3 : 5, quick ? 1 : 3);
await benchSoak(quick ? { seconds: 20, ingestMb: 2 } : { seconds: 120, ingestMb: 10 });
await benchEvals();
printTable(
  'Run engine: 20 runs x 10 stages through the local transport vs. the same stages in a plain loop',
  await benchEngine(),
);
printTable(
  "Agent loop: 10 runs x 20 turns with a zero-latency model vs. the engine's bare stages in the same process",
  await benchAgentLoop(),
);
printTable(inputWalksTitle, benchInputWalks());
printTable(readerTitle, await benchReader());
printTable('Tool schemas a hosted model is offered, per library agent (est. tokens = chars / 4)', benchAgentTools());
printTable(
  'Routine scheduler: one tick over 10,000 routines, 100 due, vs. the bare read of the due routines',
  await benchRoutineTick(),
);
printTable(connectionSyncTitle, await benchConnectionSync(quick));
printTable(knowledgeTitle, await benchKnowledge(quick ? { sizesMb: [5, 20], nodes: 10_000 } : {}));
printTable(ingestResponsivenessTitle, await benchIngestResponsiveness());
printTable(analysisProbeTitle, await benchAnalysisProbe(scales));
printTable(docxThreadTitle, await benchDocxThread());
printTable(
  retrievalRealSpeechTitle('validation meetings, the reported half'),
  await benchRetrievalRealSpeech('report'),
);
printTable(relevanceRealSpeechTitle, benchRelevanceRealSpeech());
const firstStart = await benchFirstStart(scales);
printTable('First start: create, migrate, generate, load, index', firstStart);

const lookalikeFigures: LookalikeFigures[] = [];
for (const scale of scales) {
  const corpus = await openBenchCorpus(scale);
  try {
    process.stdout.write(
      `\nSearch benchmarks at ${scale}x: corpus created, migrated and loaded in ${(corpus.setupMs / 1000).toFixed(1)} s\n`,
    );
    printTable(filterTitle(corpus), await benchSearchFilter(corpus));
    const semantic = await benchSearchSemantic(corpus);
    printTable(semanticTitle(corpus), semantic.rows);
    const missed = semantic.perQuery.filter((q) => Number(q['recall@10']) < 1);
    if (missed.length > 0) printTable(`  Semantic queries at ${scale}x whose top 10 missed exact neighbours`, missed);
    const semanticFilters = await benchSearchSemanticFilters(corpus);
    printTable(semanticFiltersTitle(corpus), semanticFilters.rows);
    printTable(semanticFilterReadsTitle(corpus), semanticFilters.reads);
    const fuzzy = await benchSearchFuzzy(corpus);
    printTable(fuzzyTitle(corpus, fuzzy.laneReady), fuzzy.rows);
    printTable(sqlQueryCostTitle(corpus), await benchSqlQueryCost(corpus));
    if (scale === 1)
      printTable(
        'Local model: first answer to the reference questions (chat run start to committed answer) vs. one semantic search',
        await benchLocalAnswers(corpus),
      );
    printTable(
      `Research test set at ${scale}x, local model: complete answers beside the search calls they made (target: median under 3 s at 1x)`,
      await benchResearch(corpus),
    );
    if (corpus.load.vectorIndexes?.some((r) => r.status === 'built')) {
      // The HNSW build is randomized and recall varies per build: rebuild twice more and measure each.
      for (const build of [2, 3]) {
        await corpus.db.execute(sql`drop index if exists utterance_vectors_embedding_hnsw_idx`);
        const [report] = await ensureVectorIndexes(corpus.db);
        const again = await benchSearchSemantic(corpus);
        printTable(
          `${semanticTitle(corpus)} -- HNSW build ${build} of 3 (built in ${((report?.buildMs ?? 0) / 1000).toFixed(1)} s)`,
          again.rows,
        );
        const againMissed = again.perQuery.filter((q) => Number(q['recall@10']) < 1);
        if (againMissed.length > 0)
          printTable(
            `  Semantic queries at ${scale}x (HNSW build ${build}) whose top 10 missed exact neighbours`,
            againMissed,
          );
      }
    }
    // The work that grows with the accounts, on the same corpus. Enrichment last: it
    // re-links interactions to build its 1,000-interaction account (and links them back when done).
    const lookalike = await benchLookalike(corpus);
    lookalikeFigures.push(lookalike);
    printTable(lookalikeTitle(corpus), lookalike.rows);
    printTable(simulateTitle(corpus), await benchSimulate(corpus));
    printTable(enrichTitle(corpus), await benchEnrich(corpus));
  } finally {
    await corpus.close();
  }
}
if (lookalikeFigures.length > 1) printTable(lookalikeScalingTitle, lookalikeScaling(lookalikeFigures));
process.stdout.write(`\nAll benchmarks done in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(0);
