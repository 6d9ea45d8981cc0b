/**
 * Quality of the local embedder on the demo corpus: top-10 precision of a brute-force cosine search
 * over the external utterances of the 1x corpus, for the labelled queries of bench/semantic-labels.ts
 * (pricing, security, integrations, champion leaving, competitors, churn), v1 and v2 against the
 * current embedder. v1 and v2 are reproduced here verbatim as baselines (the service no longer runs them).
 *
 *   npx tsx bench/embedder-quality.ts [--verbose]
 */
import { generateCorpus } from '../functions/embedded/demo/corpus-generator.js';
import { fnv1a } from '../platform/fnv1a.js';
import { embedLocally, LocalHashEmbedder } from '../platform/model/local-embedder.js';
import { contentWords, embeddingTerms } from '../platform/model/local-text.js';
import { printTable } from './report.js';
import { LABELLED_QUERIES, precisionAt10, themeLabeller } from './semantic-labels.js';

/** `local:hash-ngram-v1`, as it was: one bucket per feature, and the log applied to the feature weight. */
export function embedHashNgramV1(text: string): number[] {
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  const words = contentWords(text);
  words.forEach((w, i) => {
    add(`w:${w}`, 1);
    const next = words[i + 1];
    if (next) add(`b:${w}_${next}`, 0.7);
    const padded = `^${w}$`;
    for (let j = 0; j + 3 <= padded.length; j++) add(`c:${padded.slice(j, j + 3)}`, 0.35);
  });
  const vector = new Array<number>(384).fill(0);
  for (const [feature, weight] of counts) {
    const index = fnv1a(feature) % 384;
    const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
    vector[index] = (vector[index] ?? 0) + sign * (1 + Math.log(weight));
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  return norm === 0 ? vector : vector.map((v) => v / norm);
}

/** `local:hash-ngram-v2`, as it was: v3 without the inverse document frequency of each word. */
export function embedHashNgramV2(text: string): number[] {
  const { words, stems } = embeddingTerms(text);
  const features = new Map<string, { n: number; weight: number }>();
  const add = (feature: string, weight: number) => {
    const seen = features.get(feature);
    if (seen) seen.n++;
    else features.set(feature, { n: 1, weight });
  };
  stems.forEach((stem, i) => {
    add(`w:${stem}`, 1);
    const next = stems[i + 1];
    if (next) add(`b:${stem}_${next}`, 0.5);
    const padded = `^${words[i]}$`;
    const trigrams = padded.length - 2;
    for (let j = 0; j < trigrams; j++) add(`c:${padded.slice(j, j + 3)}`, 0.3 / Math.sqrt(trigrams));
  });
  const vector = new Array<number>(384).fill(0);
  for (const [feature, { n, weight }] of features) {
    const value = weight * (1 + Math.log(n)) * Math.SQRT1_2;
    for (const seed of [0x811c9dc5, (0x811c9dc5 + 0x9e3779b9) >>> 0]) {
      const h = fnv1a(feature, seed);
      vector[h % 384] = (vector[h % 384] ?? 0) + ((h >>> 16) & 1 ? value : -value);
    }
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  return norm === 0 ? vector : vector.map((v) => v / norm);
}

const dot = (a: readonly number[], b: readonly number[]) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] ?? 0) * (b[i] ?? 0);
  return s;
};

export interface EmbedderQuality {
  embedder: string;
  mean: number;
  byTopic: Record<string, number>;
  perQuery: number[];
}

export function measureEmbedder(
  name: string,
  embed: (text: string) => number[],
  texts: readonly string[],
): EmbedderQuality {
  const label = themeLabeller();
  const vectors = texts.map(embed);
  const byTopic = new Map<string, number[]>();
  const perQuery = LABELLED_QUERIES.map((q) => {
    const qv = embed(q.query);
    const top = vectors
      .map((v, i) => ({ i, s: dot(qv, v) }))
      .sort((a, b) => b.s - a.s || a.i - b.i)
      .slice(0, 10)
      .map((x) => texts[x.i] as string);
    const p = precisionAt10(q, top, label);
    byTopic.set(q.topic, [...(byTopic.get(q.topic) ?? []), p]);
    return p;
  });
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return {
    embedder: name,
    mean: mean(perQuery),
    byTopic: Object.fromEntries([...byTopic].map(([k, v]) => [k, mean(v)])),
    perQuery,
  };
}

export function benchEmbedderQuality(): Record<string, string | number>[] {
  const corpus = generateCorpus({
    workspaceId: '0193b000-0000-7000-8000-00000000c0de',
    now: new Date('2026-11-20T12:00:00.000Z'),
  });
  const texts = corpus.utterances.filter((u) => u.side === 'external').map((u) => u.text);
  const results = [
    measureEmbedder('local:hash-ngram-v1', embedHashNgramV1, texts),
    measureEmbedder('local:hash-ngram-v2', embedHashNgramV2, texts),
    measureEmbedder(new LocalHashEmbedder().id, embedLocally, texts),
  ];
  const topics = [...new Set(LABELLED_QUERIES.map((q) => q.topic))];
  return results.map((r) => ({
    embedder: r.embedder,
    'P@10 (mean)': r.mean.toFixed(3),
    ...Object.fromEntries(topics.map((t) => [t, (r.byTopic[t] ?? 0).toFixed(2)])),
    queries: r.perQuery.length,
    utterances: texts.length,
  }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(
    'Local embedder: top-10 precision on labelled corpus queries (brute-force cosine, 1x corpus external utterances)',
    benchEmbedderQuality(),
  );
  if (process.argv.includes('--verbose')) {
    for (const q of LABELLED_QUERIES) process.stdout.write(`${q.topic.padEnd(12)} ${q.query}\n`);
  }
  process.exit(0);
}
