/**
 * The relevance check of the grounding verifier (functions/agents/relevance.ts) on real speech: for
 * each specific query of the QMSum meetings (test-data/qmsum), every external turn of its meeting
 * (the side a quote can come from: the chair is ours) scored against the query's topic; a turn is on
 * the topic when it lies inside the query's gold spans. Precision and recall of keeping a turn at
 * RELEVANCE_THRESHOLD, macro-averaged over the queries, per domain and half, beside the demo
 * corpus's figures (bench/relevance-threshold.ts) at the same threshold: the turn scored alone (what
 * the verifier does) and, measured beside it, two readings of a turn in its conversation (SCORERS);
 * the demo corpus in its calls scores each customer line of every call with the turns around its turn.
 *
 *   npx tsx bench/relevance-real-speech.ts
 */
import {
  type QuestionTopic,
  RELEVANCE_THRESHOLD,
  relevanceScore,
  spokenContent,
  topicOf,
} from '../functions/agents/relevance.js';
import { generateCorpus } from '../functions/embedded/demo/corpus-generator.js';
import { TOPICS } from '../functions/embedded/demo/corpus/topics.js';
import { goldTurns, isChair, loadQmsum, type QmsumMeeting } from './qmsum-data.js';
import { measureAt, scoredSentences, TOPIC_QUESTIONS } from './relevance-threshold.js';
import { themeLabeller } from './semantic-labels.js';
import { printTable } from './report.js';

export const relevanceRealSpeechTitle = `Relevance check at ${RELEVANCE_THRESHOLD}: precision and recall of keeping a turn, real meetings (gold spans) beside the demo corpus (topic labels)`;

/**
 * Reading a turn in its conversation, measured and not shipped (docs/benchmarks.md): a turn of
 * NEIGHBOUR_MIN_WORDS words or more takes NEIGHBOUR_SHARE of the best score among the turns within
 * NEIGHBOUR_TURNS of it (`next to`: either side), or of the weaker of the best before and the best
 * after it (`inside`: a discussion on both sides).
 */
const NEIGHBOUR_TURNS = 2;
const NEIGHBOUR_SHARE = 0.5;
const NEIGHBOUR_MIN_WORDS = 6;

interface Neighbours {
  before: string[];
  after: string[];
}
type Scorer = (topic: QuestionTopic, text: string, neighbours: () => Neighbours) => number;

const alone: Scorer = (topic, text) => relevanceScore(topic, text);
const lifted =
  (side: 'next to' | 'inside'): Scorer =>
  (topic, text, neighbours) => {
    const own = relevanceScore(topic, text);
    if (own >= 1 || (spokenContent(text).match(/[A-Za-z0-9][\w'-]*/g) ?? []).length < NEIGHBOUR_MIN_WORDS) return own;
    const { before, after } = neighbours();
    const best = (texts: readonly string[]) => Math.max(0, ...texts.map((n) => relevanceScore(topic, n)));
    const borrowed = side === 'inside' ? Math.min(best(before), best(after)) : best([...before, ...after]);
    return Math.max(own, NEIGHBOUR_SHARE * borrowed);
  };
const SCORERS = { alone, 'next to': lifted('next to'), inside: lifted('inside') } as const;

/** The texts of the turns within NEIGHBOUR_TURNS before and after turn `i`. */
const around = (texts: readonly string[], i: number): Neighbours => ({
  before: texts.slice(Math.max(0, i - NEIGHBOUR_TURNS), i),
  after: texts.slice(i + 1, i + 1 + NEIGHBOUR_TURNS),
});

function measure(
  meetings: readonly QmsumMeeting[],
  threshold: number,
  score: Scorer,
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
      const texts = m.turns.map((t) => t.text);
      const kept = turns.filter(({ t, i }) => score(topic, t.text, () => around(texts, i)) >= threshold);
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
      const of = meetings.filter((m) => m.split === split && m.domain === domain);
      rows.push({
        set: `QMSum ${domain}, ${split === 'train' ? 'tuning' : 'reported'} half`,
        queries: measure(of, threshold, alone).queries,
        ...figures((score) => measure(of, threshold, score)),
      });
    }
  const demo = measureAt(scoredSentences(), threshold);
  rows.push({
    set: 'demo corpus (13 topic questions), distinct sentences',
    queries: 13,
    'alone P/R': `${demo.precision.toFixed(3)}/${demo.recall.toFixed(3)}`,
  });
  rows.push({
    set: 'demo corpus (13 topic questions), every line in its call',
    queries: 13,
    ...figures((score) => measureAt(scoredInCalls(score), threshold)),
  });
  return rows;
}

/** Precision/recall under each reading of a turn. */
function figures(measured: (score: Scorer) => { precision: number; recall: number }): Record<string, string> {
  return Object.fromEntries(
    Object.entries(SCORERS).map(([name, score]) => {
      const f = measured(score);
      return [`${name} P/R`, `${f.precision.toFixed(3)}/${f.recall.toFixed(3)}`];
    }),
  );
}

/**
 * Every customer line of the demo corpus's calls scored against each topic question, with the other
 * turns within NEIGHBOUR_TURNS of its turn as its neighbours; on the topic when the generator wrote
 * the line for it (bench/relevance-threshold.ts labels it the same way).
 */
function scoredInCalls(score: Scorer): ReturnType<typeof scoredSentences> {
  const corpus = generateCorpus({
    workspaceId: '0193b000-0000-7000-8000-00000000c0de',
    now: new Date('2026-11-20T12:00:00.000Z'),
  });
  const label = themeLabeller();
  const turnsOf = new Map<string, { id: string; index: number; text: string }[]>();
  for (const t of corpus.turns)
    turnsOf.set(t.interactionId, [
      ...(turnsOf.get(t.interactionId) ?? []),
      { id: t.id, index: t.turnIndex, text: t.text },
    ]);
  const placeOf = new Map<string, { texts: string[]; at: number }>();
  for (const turns of turnsOf.values()) {
    turns.sort((a, b) => a.index - b.index);
    const texts = turns.map((t) => t.text);
    turns.forEach((t, at) => placeOf.set(t.id, { texts, at }));
  }
  const lines = corpus.utterances.filter((u) => u.side === 'external');
  const labels = lines.map((u) => label(u.text));
  return TOPIC_QUESTIONS.flatMap((question) => {
    const topic = topicOf(question.question);
    if (!topic) throw new Error(`no topic in "${question.question}"`);
    const themes = new Set(TOPICS.filter((t) => question.topics.includes(t.key)).flatMap((t) => Object.keys(t.buyer)));
    const memo = new Map<string, number>();
    return lines.map((u, i) => {
      const place = u.turnId ? placeOf.get(u.turnId) : undefined;
      const key = `${u.text}\u0000${u.turnId ?? ''}`;
      let s = memo.get(key);
      if (s === undefined) {
        s = score(topic, u.text, () => (place ? around(place.texts, place.at) : { before: [], after: [] }));
        memo.set(key, s);
      }
      return { question, score: s, onTopic: themes.has(labels[i] ?? '') };
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(relevanceRealSpeechTitle, benchRelevanceRealSpeech());
  process.exit(0);
}
