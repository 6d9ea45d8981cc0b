import { STOPWORDS } from '../../../platform/model/local-text.js';
import { isKnownAdjective, loadTokenizer, type Token, tokenize } from './tokens.js';

/**
 * The words of a topic that do not stand for it on their own: the head of a noun compound whose
 * modifier narrows it. A "zapier connector" is a connector, but a text saying only "connector" (a
 * BigQuery one) is not about it; a "pipeline report" is not any report. A describing word does not
 * narrow ("better reporting" is about any reporting): a word the dictionary knows as an adjective,
 * or an adverb. The topic is tagged where a request's object stands ("they asked for …"), so a name
 * reads as the noun it is there ("slack" in "a slack integration").
 */

const FRAME = 'they asked for ';

/** Parts of speech a compound is made of: nouns, adjectives, -ing nouns, words the tagger leaves untagged. */
const inCompound = (token: Token): boolean =>
  !STOPWORDS.has(token.lower) && (token.pos !== 'v' || token.gerund) && token.pos !== 'r' && /\p{L}/u.test(token.text);

const narrows = (token: Token): boolean => !(token.pos === 'a' && isKnownAdjective(token.lower));

/** A name is no kind of thing a modifier could narrow ("residency EU" is not a kind of EU). */
const isHead = (token: Token): boolean => (token.pos === 'n' || token.gerund) && !token.proper;

/**
 * A topic names a thing: a word in -s the tagger reads as a verb after a noun ("audit logs", "rate
 * limits", subject and verb to it) is the compound's plural head when nothing it could take as its
 * object follows (the topic ends, or a preposition does). "The email finds you" keeps its verb.
 */
const pluralHead = (token: Token, previous: Token | undefined, next: Token | undefined): Token =>
  token.pos === 'v' &&
  !token.gerund &&
  /[a-z]s$/.test(token.lower) &&
  previous?.pos === 'n' &&
  (!next || PREPOSITIONS.has(next.lower))
    ? { ...token, pos: 'n' }
    : token;

/** Words after which a plural head's phrase goes on ("audit logs for admins", "rate limits on the API"). */
const PREPOSITIONS: ReadonlySet<string> = new Set(
  'for on in of at to from with without by about across into per via and or'.split(' '),
);

/** The topic's compound heads that a modifier narrows, in lower case as written. */
export async function narrowedHeads(topic: string): Promise<string[]> {
  await loadTokenizer();
  return narrowedHeadsOf(topic);
}

/** narrowedHeads once the tokenizer is loaded (a question's reading loads it): for steps that cannot wait. */
export function narrowedHeadsOf(topic: string): string[] {
  const tokens = tokenize(`${FRAME}${topic}`).filter((t) => t.start >= FRAME.length);
  const heads: string[] = [];
  let run: Token[] = [];
  const close = () => {
    const headAt = run.findLastIndex(isHead);
    if (headAt > 0 && run.slice(0, headAt).some(narrows)) heads.push(run[headAt]!.lower);
    run = [];
  };
  for (const [i, tagged] of tokens.entries()) {
    // Words next to each other in the text, nothing between them but a space or a hyphen.
    const previous = run.at(-1);
    const token = pluralHead(tagged, previous, tokens[i + 1]);
    const adjacent = previous && /^[\s-]*$/.test(`${FRAME}${topic}`.slice(previous.end, token.start));
    if (!inCompound(token) || (previous && !adjacent)) close();
    if (inCompound(token)) run.push(token);
  }
  close();
  return heads;
}
