/**
 * The relevance check of the grounding verifier (functions/agents/relevance.ts) on real speech: for
 * each specific query of the QMSum meetings (test-data/qmsum), every external turn of its meeting
 * (the side a quote can come from: the chair is ours) scored against the query's topic; a turn is on
 * the topic when it lies inside the query's gold spans. Precision and recall of keeping a turn at
 * RELEVANCE_THRESHOLD, macro-averaged over the queries, per domain and half, beside the demo
 * corpus's figures (bench/relevance-threshold.ts) at the same threshold.
 *
 *   npx tsx bench/relevance-real-speech.ts
 */
import { RELEVANCE_THRESHOLD, relevanceScore, topicOf } from '../functions/agents/relevance.js';
import { goldTurns, isChair, loadQmsum, type QmsumMeeting } from './qmsum-data.js';
import { measureAt, scoredSentences } from './relevance-threshold.js';
import { printTable } from './report.js';

export const relevanceRealSpeechTitle = `Relevance check at ${RELEVANCE_THRESHOLD}: precision and recall of keeping a turn, real meetings (gold spans) beside the demo corpus (topic labels)`;

function measure(
  meetings: readonly QmsumMeeting[],
  threshold: number,
): { precision: number; recall: number; queries: number } {
  let p = 0;
  let r = 0;
  let n = 0;
  for (const m of meetings)
    for (const q of m.queries) {
      const topic = topicOf(q.query);
      if (!topic) continue;
      const gold = goldTurns(q);
      const turns = m.turns.map((t, i) => ({ t, i })).filter(({ t }) => !isChair(m, t.speaker) && t.text.trim());
      const kept = turns.filter(({ t }) => relevanceScore(topic, t.text) >= threshold);
      const hits = kept.filter(({ i }) => gold.has(i)).length;
      const relevant = turns.filter(({ i }) => gold.has(i)).length;
      if (relevant === 0) continue;
      p += kept.length > 0 ? hits / kept.length : 1;
      r += hits / relevant;
      n++;
    }
  return { precision: n ? p / n : 0, recall: n ? r / n : 0, queries: n };
}

export function benchRelevanceRealSpeech(threshold = RELEVANCE_THRESHOLD): Record<string, string | number>[] {
  const { meetings } = loadQmsum();
  const rows: Record<string, string | number>[] = [];
  for (const split of ['train', 'val'] as const)
    for (const domain of ['product', 'committee'] as const) {
      const f = measure(
        meetings.filter((m) => m.split === split && m.domain === domain),
        threshold,
      );
      rows.push({
        set: `QMSum ${domain}, ${split === 'train' ? 'tuning' : 'reported'} half`,
        queries: f.queries,
        precision: f.precision.toFixed(3),
        recall: f.recall.toFixed(3),
      });
    }
  const demo = measureAt(scoredSentences(), threshold);
  rows.push({
    set: 'demo corpus (13 topic questions)',
    queries: 13,
    precision: demo.precision.toFixed(3),
    recall: demo.recall.toFixed(3),
  });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(relevanceRealSpeechTitle, benchRelevanceRealSpeech());
  process.exit(0);
}
