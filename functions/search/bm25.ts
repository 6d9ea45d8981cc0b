import { embeddingTerms } from '../../platform/model/local-text.js';

/**
 * Okapi BM25 (k1 1.2, b 0.75) over a fixed set of documents, with the project's tokenizer (lowercase
 * words, stopwords and spoken fillers out, stemmed): the keyword half of the semantic lane's hybrid
 * ranking (semantic-hybrid.ts), and the plain keyword baseline bench/retrieval-real-speech.ts
 * measures that ranking against.
 */
export class Bm25 {
  private readonly docs: Map<string, number>[];
  private readonly lengths: number[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  /** `stemsOf`: the tokenizer (a caller reading the same texts many times passes a memoized one). */
  constructor(
    texts: readonly string[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
    stemsOf: (text: string) => readonly string[] = (text) => embeddingTerms(text).stems,
  ) {
    this.docs = texts.map((text) => {
      const tf = new Map<string, number>();
      for (const stem of stemsOf(text)) tf.set(stem, (tf.get(stem) ?? 0) + 1);
      for (const stem of tf.keys()) this.df.set(stem, (this.df.get(stem) ?? 0) + 1);
      return tf;
    });
    this.lengths = this.docs.map((d) => [...d.values()].reduce((a, b) => a + b, 0));
    this.avgLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, texts.length);
  }

  /** Each document's score for the query, in document order. */
  scores(query: string): number[] {
    return this.scoresOf(embeddingTerms(query).stems);
  }

  /** Each document's score for query stems (as embeddingTerms makes them), in document order. */
  scoresOf(stems: readonly string[]): number[] {
    const n = this.docs.length;
    const terms = [...new Set(stems)];
    return this.docs.map((tf, i) => {
      let score = 0;
      for (const term of terms) {
        const f = tf.get(term) ?? 0;
        if (f === 0) continue;
        const df = this.df.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score +=
          (idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * (this.lengths[i] ?? 0)) / this.avgLength));
      }
      return score;
    });
  }

  /** Indexes of the `k` best-scoring documents with a positive score, best first (ties by index). */
  top(query: string, k: number): number[] {
    return this.scores(query)
      .map((score, i) => ({ score, i }))
      .filter((d) => d.score > 0)
      .sort((x, y) => y.score - x.score || x.i - y.i)
      .slice(0, k)
      .map((d) => d.i);
  }
}
