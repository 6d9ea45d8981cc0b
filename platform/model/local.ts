import { ApiError } from '../errors.js';
import { fnv1a } from '../fnv1a.js';
import {
  EMBEDDING_DIMENSIONS,
  type Embedder,
  type ModelProvider,
  type ModelRunOptions,
  type ModelTask,
  type StepRequest,
  type StepResult,
  type StepTask,
} from './port.js';
import { StepResultSchema } from './step-schema.js';

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

  /** The task's own deterministic policy, its result checked like a hosted model's. */
  async step(task: StepTask, request: StepRequest, options?: ModelRunOptions): Promise<StepResult> {
    const parsed = StepResultSchema.safeParse(await task.local(request, options));
    if (!parsed.success)
      throw new ApiError('internal', `Local model task ${task.name} produced a step outside its schema.`);
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

/**
 * Discourse fillers and modal verbs of spoken English: frequent in transcripts ("honestly", "look",
 * "just", "would"), they say nothing about the topic, and in a hashed space every shared filler is
 * a false match. Dropped by the embedder only (contentWords keeps them).
 */
const SPOKEN_FILLERS = new Set(
  "just really actually honestly frankly candidly realistically basically literally look okay ok yeah yes well also very quite pretty much lot lots thing things something anything stuff kind sort maybe perhaps probably would could should can may might must shall me my us i'm we're it's that's there here then than now right one".split(
    ' ',
  ),
);

/** A few irregular forms the suffix rules cannot reach ("left" as in "our champion left"). */
const IRREGULAR_STEMS: Record<string, string> = {
  left: 'leav',
  gone: 'go',
  went: 'go',
  took: 'tak',
  taken: 'tak',
  bought: 'buy',
  sold: 'sell',
  paid: 'pay',
  spent: 'spend',
  chose: 'choos',
  chosen: 'choos',
  said: 'say',
  told: 'tell',
  saw: 'see',
  seen: 'see',
  cheaper: 'cheap',
  cheapest: 'cheap',
};

const PLURAL_RULES: readonly (readonly [RegExp, string])[] = [
  [/ies$/, 'y'],
  [/(ss)es$/, '$1'],
  [/([^s])s$/, '$1'],
];
const SUFFIX_RULES: readonly (readonly [RegExp, string])[] = [
  [/ational$/, 'ate'],
  [/ization$/, 'ize'],
  [/ations?$/, 'ate'],
  [/ments?$/, ''],
  [/ness$/, ''],
  [/ingly$/, ''],
  [/edly$/, ''],
  [/ions?$/, ''],
  [/ing$/, ''],
  [/ed$/, ''],
  [/ly$/, ''],
  [/e$/, ''],
];

/**
 * A tiny suffix stemmer (plural, then one derivational or inflectional suffix, then a doubled final
 * consonant): "leaving", "leaves", "leave" and "left" all become "leav"; "pricing", "priced" and
 * "price" become "pric"; "objections" becomes "object". Crude next to Porter's, but it never
 * shortens a word below three letters and is deterministic, which is all the embedder needs.
 */
export function stemWord(word: string): string {
  const irregular = IRREGULAR_STEMS[word];
  if (irregular) return irregular;
  if (word.length <= 3) return word;
  let s = word.replace(/'s$/, '');
  for (const [re, to] of PLURAL_RULES) {
    if (s.length > 4 && re.test(s)) {
      s = s.replace(re, to);
      break;
    }
  }
  for (const [re, to] of SUFFIX_RULES) {
    if (!re.test(s)) continue;
    const stripped = s.replace(re, to);
    if (stripped.length >= 3) {
      s = stripped;
      break;
    }
  }
  if (/([bdfgkmnprt])\1$/.test(s)) s = s.slice(0, -1);
  return s;
}

/** Weights of the feature kinds: whole words carry the topic; trigrams only soften spelling variants. */
const WORD_WEIGHT = 1;
const BIGRAM_WEIGHT = 0.5;
/** Spread over a word's trigrams (divided by the square root of their count), so long words do not drown short ones. */
const TRIGRAM_WEIGHT = 0.3;
/** Each feature lands in this many hashed buckets (count-sketch style), so one collision no longer decides a match. */
const BUCKETS_PER_FEATURE = 2;

/**
 * A feature-hashing embedder, v2: lower-cased tokens (hyphenated words split; stopwords and spoken
 * fillers dropped), stemmed word unigrams (weight 1), stemmed word bigrams (0.5) and the character
 * trigrams of each word (0.3 in total per word), each feature with sublinear term frequency
 * (1 + ln n) times its weight, hashed into two of 384 dimensions with hashed signs, then
 * L2-normalised. It captures lexical and some morphological similarity, not meaning (a paraphrase
 * with no shared word still scores low); it is what the embedded default can compute offline, and
 * it says so in its id.
 *
 * v1 (`local:hash-ngram-v1`) applied the log to the weight itself, so a trigram seen once counted
 * 1 + ln 0.35 = -0.05 and a bigram 0.64, and it hashed each feature to one bucket: collisions made
 * unrelated sentences outscore related ones. Top-10 precision on a labelled set of corpus queries
 * (bench/embedder-quality.ts) went from 0.67 (v1) to 0.87 (v2). Vectors changed, so the id did.
 */
export class LocalHashEmbedder implements Embedder {
  readonly id = 'local:hash-ngram-v2';
  readonly dimensions = EMBEDDING_DIMENSIONS;

  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((t) => embedLocally(t));
  }
}

const BUCKET_SEEDS = Array.from({ length: BUCKETS_PER_FEATURE }, (_, k) => (0x811c9dc5 + k * 0x9e3779b9) >>> 0);

export function embedLocally(text: string): number[] {
  const raw = (text.toLowerCase().match(/[a-z0-9][a-z0-9']*/g) ?? []).filter(
    (w) => w.length > 1 && !STOPWORDS.has(w) && !SPOKEN_FILLERS.has(w),
  );
  const stems = raw.map(stemWord);
  const features = new Map<string, { n: number; weight: number }>();
  const add = (feature: string, weight: number) => {
    const seen = features.get(feature);
    if (seen) seen.n++;
    else features.set(feature, { n: 1, weight });
  };
  stems.forEach((stem, i) => {
    add(`w:${stem}`, WORD_WEIGHT);
    const next = stems[i + 1];
    if (next) add(`b:${stem}_${next}`, BIGRAM_WEIGHT);
    const padded = `^${raw[i]}$`;
    const trigrams = padded.length - 2;
    const weight = TRIGRAM_WEIGHT / Math.sqrt(trigrams);
    for (let j = 0; j < trigrams; j++) add(`c:${padded.slice(j, j + 3)}`, weight);
  });
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  const spread = 1 / Math.sqrt(BUCKETS_PER_FEATURE);
  for (const [feature, { n, weight }] of features) {
    const value = weight * (1 + Math.log(n)) * spread;
    for (const seed of BUCKET_SEEDS) {
      const h = fnv1a(feature, seed);
      const index = h % EMBEDDING_DIMENSIONS;
      vector[index] = (vector[index] ?? 0) + ((h >>> 16) & 1 ? value : -value);
    }
  }
  const norm = Math.sqrt(vector.reduce((s, v) => s + v * v, 0));
  return norm === 0 ? vector : vector.map((v) => v / norm);
}
