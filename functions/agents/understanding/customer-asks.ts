import type { Token } from './tokens.js';

/**
 * A customer asking, said with whatever verb the asker chose: "anyone pushing for a HubSpot
 * integration", "who's been pressing us for SSO", "which customers are crying out for exports", "how
 * many accounts want a Slack integration". What makes it a request is the grammar, not the verb: the
 * customer side (customers, accounts, prospects, anyone, who) is the subject, and the verb takes what
 * is wanted — after "for" (a goal: "pushing for", "lobbying for", "begging for"), or directly after
 * "want" or "need". The asker's own wanting ("I want to see deals", "we need the pipeline") has another
 * subject and is not read so.
 */

/** The customer side as a group a question picks from ("which customers", "what accounts"). */
const CUSTOMER_GROUP = new Set(['customer', 'client', 'account', 'buyer', 'prospect', 'user', 'lead']);

/** Who is on the customer side of a question: the ones whose asks a question can be about. */
const CUSTOMER_SIDE = new Set([...CUSTOMER_GROUP, 'anyone', 'anybody', 'someone', 'somebody', 'who', 'people', 'they']);

/** Whether a word names the customer side ("anybody", "customers"): who asks, never what is asked for. */
export const isCustomerSide = (word: string): boolean => {
  const w = word.toLowerCase().replace(/['’]s$/u, '');
  return CUSTOMER_SIDE.has(w) || CUSTOMER_SIDE.has(w.replace(/s$/, ''));
};

/**
 * Verbs whose "for" is not what is wanted: a price ("pay for", "charge for"), a reason ("thank for"), a
 * time ("wait for", "prepare for") or a standing ("account for", "stand for", "work for").
 */
const FOR_IS_NOT_WANTED = new Set([
  'pay',
  'charge',
  'bill',
  'budget',
  'thank',
  'wait',
  'prepare',
  'account',
  'stand',
  'work',
  'vote',
  'sell',
  'go',
  'head',
  'leave',
  'use',
  'qualify',
]);

/** Verbs that take what is wanted as their object. */
const WANTING = new Set(['want', 'need', 'require']);

/** Words between the verb and "for" that are who is asked ("pressing us for"). */
const ASKED_ONE = new Set(['us', 'you', 'them', 'me']);

/** A clause boundary: the subject of a verb is looked for after the last one. */
const CLAUSE_BREAK = /^(?:[,;:?.!]|and|but|or|so)$/;

export interface CustomerAsk {
  /** The first token of the asking words and one past the last ("pushing for": the verb and "for"). */
  from: number;
  to: number;
}

/** The asking words at `i`, when the verb there is a customer's asking; null otherwise. */
export function customerAskAt(tokens: readonly Token[], i: number, free: (j: number) => boolean): CustomerAsk | null {
  const verb = tokens[i]!;
  if (!free(i) || !isVerbInUse(tokens, i) || !hasCustomerSubject(tokens, i)) return null;
  // "Want" and "need" take what is wanted right after them ("accounts want a Slack integration"); with
  // none there ("what do customers want from reporting?") the question is what they say of a subject.
  if (WANTING.has(verb.lemma)) return takesObject(tokens[i + 1]) ? { from: i, to: i + 1 } : null;
  if (FOR_IS_NOT_WANTED.has(verb.lemma)) return null;
  // Who is asked and how hard may come between the verb and "for" ("pressing us for", "pushing hardest for").
  let j = i + 1;
  if (tokens[j] && ASKED_ONE.has(tokens[j]!.lower)) j++;
  for (let k = 0; k < 2 && tokens[j] && isDegree(tokens[j]!); k++) j++;
  if (tokens[j]?.lower !== 'for' || !free(j)) return null;
  // What is wanted follows "for", or is what the question asks ("what are EMEA accounts pushing for?").
  const wanted = tokens[j + 1] !== undefined || tokens.slice(0, i).some((t) => WH_OBJECT.has(t.lower));
  return wanted ? { from: i, to: j + 1 } : null;
}

/** Question words that can stand for what is wanted, its "for" left at the end. */
const WH_OBJECT = new Set(['what', 'which']);

/** How hard or how often ("hardest", "really", "most"): an adverb, or an adjective's superlative. */
const isDegree = (t: Token): boolean => t.pos === 'r' || (t.pos === 'a' && /est$/.test(t.lower)) || t.lower === 'most';

/**
 * A verb in use: tagged a verb, or an -ing form after "be" or "keep" that the tagger took for a noun
 * ("who's been nagging us for").
 */
function isVerbInUse(tokens: readonly Token[], i: number): boolean {
  const t = tokens[i]!;
  if (t.pos === 'v') return true;
  const before = tokens[i - 1];
  return /ing$/.test(t.lower) && before !== undefined && (before.lemma === 'be' || before.lemma === 'keep');
}

/** Words that open a noun phrase: what a verb's object starts with. */
const DETERMINERS = new Set(['a', 'an', 'the', 'some', 'more', 'better', 'our', 'their', 'any']);
const takesObject = (t: Token | undefined): boolean =>
  t !== undefined && (DETERMINERS.has(t.lower) || t.pos === 'n' || t.pos === 'a' || /^\p{Lu}/u.test(t.text));

/** Whether the verb's clause names the customer side before it ("which accounts keep pushing for"). */
function hasCustomerSubject(tokens: readonly Token[], i: number): boolean {
  for (let j = i - 1; j >= 0; j--) {
    const t = tokens[j]!;
    if (CLAUSE_BREAK.test(t.lower)) return false;
    if (isCustomerSide(t.lemma) || isCustomerSide(t.lower)) return true;
  }
  return false;
}

/**
 * Whether the question asks who: "who asked for SSO", "which customers want webhooks", "what accounts
 * keep pushing for exports". An answer to it names the accounts, not only how many there are.
 */
export function asksWhichAccounts(tokens: readonly Token[]): boolean {
  return tokens.some((t, i) => {
    if (t.lower === 'who' || t.lower === 'whose' || t.lower === "who's") return true;
    if (t.lower !== 'which' && t.lower !== 'what') return false;
    // The group is what the question word picks, after an adjective or two ("which existing customers",
    // "what big accounts"); in "what features are customers asking for" it picks features.
    let j = i + 1;
    while (j < i + 3 && tokens[j]?.pos === 'a') j++;
    return tokens[j] !== undefined && CUSTOMER_GROUP.has(tokens[j]!.lemma);
  });
}
