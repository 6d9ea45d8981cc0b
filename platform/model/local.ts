import { ApiError } from '../errors.js';
import { EMBEDDING_DIMENSIONS, type Embedder, type ModelProvider, type ModelTask } from './port.js';

/** Runs each task's own deterministic implementation, validating input and output like a hosted model. */
export class LocalModelProvider implements ModelProvider {
  readonly id = 'local';

  async run<I, O>(task: ModelTask<I, O>, input: I): Promise<O> {
    const parsedInput = task.input.parse(input);
    const output = await task.local(parsedInput);
    const parsed = task.output.safeParse(output);
    if (!parsed.success) {
      throw new ApiError('internal', `Local model task ${task.name} produced output outside its schema.`);
    }
    return parsed.data;
  }
}

const STOPWORDS = new Set(
  'a an and are as at be but by for from has have i in is it its of on or our so that the their them they this to was we were what when which who will with you your do does did not no'.split(
    ' ',
  ),
);

/** Lower-cased word tokens without stopwords; shared with lexical features elsewhere. */
export function contentWords(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9][a-z0-9'-]*/g) ?? []).filter((w) => !STOPWORDS.has(w) && w.length > 1);
}

function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * A feature-hashing embedder: word unigrams (weight 1), word bigrams (0.7) and character trigrams
 * of each word (0.35), each hashed to one of 384 dimensions with a hashed sign, sublinear term
 * frequency, then L2-normalised. It captures lexical and some morphological similarity, not
 * meaning; it is what the embedded default can compute offline, and it says so in its id.
 */
export class LocalHashEmbedder implements Embedder {
  readonly id = 'local:hash-ngram-v1';
  readonly dimensions = EMBEDDING_DIMENSIONS;

  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((t) => embedLocally(t));
  }
}

export function embedLocally(text: string): number[] {
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
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (const [feature, weight] of counts) {
    const h = fnv1a(feature);
    const index = h % EMBEDDING_DIMENSIONS;
    const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
    vector[index] = (vector[index] ?? 0) + sign * (1 + Math.log(weight));
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  return norm === 0 ? vector : vector.map((v) => v / norm);
}
