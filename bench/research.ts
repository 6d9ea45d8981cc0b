/**
 * Research jobs with the local model: time to a complete answer for each question of the research
 * test set, beside the time its search calls took (from the runs' tool.completed events), so the
 * loop's own share is visible. At 1x and 10x the demo corpus.
 *
 *   npx tsx bench/research.ts [--quick]
 */
import { eq } from 'drizzle-orm';
import { RESEARCH_KIND } from '../functions/agents/run-state.js';
import { startAgentRun } from '../functions/agents/start.js';
import { authenticateApiKey } from '../functions/identity/api-keys.js';
import type { LocalTransport } from '../queues/transport/local.js';
import { runEvents } from '../schema/runs.js';
import { openBenchCorpus, type BenchCorpus } from './corpus-db.js';
import { printTable } from './report.js';
import { RESEARCH_QUESTIONS } from './research-questions.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)] ?? 0;

export async function benchResearch(corpus: BenchCorpus): Promise<Record<string, string | number>[]> {
  const caller = await authenticateApiKey(corpus.db, corpus.apiKey, corpus.services.clock.now());
  const queue = corpus.services.queue as LocalTransport;
  const totals: number[] = [];
  const searches: number[] = [];
  for (const question of RESEARCH_QUESTIONS) {
    const started = performance.now();
    const { run_id } = await startAgentRun(corpus.services, caller, {
      kind: RESEARCH_KIND,
      input: question,
      agent: 'researcher',
      onQuestion: 'auto',
      pauses: { question: false, approval: false, budget: false },
      depth: 'standard',
      trigger: 'api',
    });
    await queue.drain();
    totals.push(performance.now() - started);
    const events = await corpus.db
      .select({ type: runEvents.type, data: runEvents.data })
      .from(runEvents)
      .where(eq(runEvents.runId, run_id));
    searches.push(
      events
        .filter((e) => e.type === 'tool.completed' && e.data.tool === 'search_query')
        .reduce((sum, e) => sum + Number(e.data.ms ?? 0), 0),
    );
  }
  const loop = totals.map((t, i) => t - (searches[i] ?? 0));
  const ms = (x: number) => x.toFixed(0);
  return [
    {
      measure: 'questions',
      'complete answer': RESEARCH_QUESTIONS.length,
      'its search calls': '',
      'the rest (loop, model, grounding)': '',
    },
    {
      measure: 'median ms',
      'complete answer': ms(median(totals)),
      'its search calls': ms(median(searches)),
      'the rest (loop, model, grounding)': ms(median(loop)),
    },
    {
      measure: 'p90 ms',
      'complete answer': ms(p90(totals)),
      'its search calls': ms(p90(searches)),
      'the rest (loop, model, grounding)': ms(p90(loop)),
    },
    {
      measure: 'max ms',
      'complete answer': ms(Math.max(...totals)),
      'its search calls': ms(Math.max(...searches)),
      'the rest (loop, model, grounding)': ms(Math.max(...loop)),
    },
    {
      measure: 'search share of the total',
      'complete answer': '',
      'its search calls': `${((100 * searches.reduce((a, b) => a + b, 0)) / totals.reduce((a, b) => a + b, 0)).toFixed(0)}%`,
      'the rest (loop, model, grounding)': '',
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const scale of process.argv.includes('--quick') ? [1] : [1, 10]) {
    const corpus = await openBenchCorpus(scale);
    try {
      printTable(
        `Research test set (${RESEARCH_QUESTIONS.length} questions) at ${scale}x, local model (target: median under 3 s at 1x)`,
        await benchResearch(corpus),
      );
    } finally {
      await corpus.close();
    }
  }
  process.exit(0);
}
