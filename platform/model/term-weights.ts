import { stemWord } from './local-text.js';
import { TERM_DOCUMENT_FREQUENCIES, TERM_FREQUENCY_DOCUMENTS } from './term-frequencies.js';

/**
 * Inverse document frequency of a stem, scaled to [0, 1]: how much a shared word says that two
 * texts are about the same thing. "the" says nothing, "pricing" something, "SOC" a lot.
 *
 * Where the frequencies come from (a choice, written down): a table shipped with the code, not one
 * per workspace. A stored vector must stay a pure function of its text: with counts that move at
 * every ingest, each new call would shift the weights under every vector already stored, and a
 * query would no longer be comparable with them until the whole store was embedded again (and the
 * Embedder port has no workspace to count in). The table (term-frequencies.ts) counts sentences of
 * the demo generator's sales calls, at another seed than the demo workspace's, both sides, texts
 * only (bench/term-frequencies.ts). Templated text under-counts words that are common in any
 * English conversation and in any sales conversation ("often" is in 0.3% of its sentences): those
 * below, words a question is phrased with or that every sales call holds, are counted as if in at
 * least half of all sentences (weight 0.23). A stem the table has not seen is rare: full weight.
 */

/**
 * Words a question about conversations is phrased with ("which competitors come up most often",
 * "what do customers say about") and the nouns every sales call holds: they carry no topic, whatever
 * a templated corpus says. Kept short on purpose: "different", "company" or "fewer" look generic and
 * are not (they are how a comparison, a departure or a downsizing is said; each cost precision).
 */
const COMMON_WORDS =
  'how why where often usually always sometimes ever most many much come comes came coming say says saying ' +
  'talk talks talked talking tell told mention mentions mentioned mentioning ask asks asked know think find show ' +
  'list give top up about account accounts customer customers client clients deal deals call calls meeting ' +
  'meetings email emails conversation conversations rep reps buyer buyers';

const COMMON_FLOOR = 0.5;

const documents = TERM_FREQUENCY_DOCUMENTS;
const frequencies = new Map<string, number>();
for (const pair of TERM_DOCUMENT_FREQUENCIES.trim().split(/\s+/)) {
  const at = pair.lastIndexOf(':');
  frequencies.set(pair.slice(0, at), Number(pair.slice(at + 1)));
}
for (const word of COMMON_WORDS.split(' ')) {
  const stem = stemWord(word);
  frequencies.set(stem, Math.max(frequencies.get(stem) ?? 0, Math.round(documents * COMMON_FLOOR)));
}

/**
 * A stem in at most this share of sentences weighs 1: past it rarity says nothing more about the
 * topic (an unseen word is as likely a name or a typo as the point), and an uncapped IDF let one
 * unseen query word decide a ranking through its trigrams' hash collisions. The one knob that was
 * tuned on the labelled queries (bench/embedder-quality.ts): 1% gave 0.829, 2% 0.825, 5% 0.839,
 * 10% 0.836, uncapped 0.800.
 */
const SATURATION_SHARE = 0.05;
const SATURATION_IDF = Math.log(1 / SATURATION_SHARE);

/** ln(N / df), capped at that of 5% of sentences and scaled by it: 1 for a rare stem, 0 for one in every sentence. */
export function termWeight(stem: string): number {
  const df = Math.max(1, frequencies.get(stem) ?? 0);
  return Math.min(1, Math.log(documents / df) / SATURATION_IDF);
}
