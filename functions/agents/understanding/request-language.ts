/**
 * How a customer asks for something, and what they ask for. A request is a sentence of the customer's
 * own words (an external transcript turn, an inbound email) that uses request language — "it would be
 * great to", "can we", "do you support", "is there a", "we need", "we want", "asked for" — and its
 * object is the thing named after that language: the first proper name or acronym there ("Slack",
 * "API", "BigQuery"), or else its first noun phrase ("status page", "transcription"), read with an
 * English part-of-speech tagger. Requests are grouped by that object, so "can we route notifications
 * to different Slack channels" and "it would be great to get alerts in a Slack channel" are one request.
 * Sentences asking about price, terms or seats are commercial asks, not what the product should do.
 */

const CUE_PHRASES = [
  'it would be (?:great|nice|helpful|good|useful) (?:to|if)',
  "(?:we|i)(?:'d| would) (?:love|like) (?:to|a|an|the|it|if|you)",
  'would love',
  'i wish',
  'we wish',
  'do you (?:support|have|offer|integrate)',
  'does (?:it|the|your) ',
  'is there (?:a|an|any|some)',
  'are there (?:any )?',
  'can (?:you|we|it|a|an|the|our|admins|managers)',
  'could (?:you|we|it|a|an|the|our)',
  '(?:we|they|i|team|managers|engineers|reps) (?:need|want)s?',
  'needs? (?:to|a|an|the|your|our|role|api)',
  'wants? (?:a|an|the|to)',
  'asked (?:for|whether|if)',
  'should (?:be able|only|see)',
  '(?:has|have) to be',
  'would pay for',
  'looking for',
];

/**
 * Request language, case-insensitive, as JavaScript and as Postgres (ARE) write it. A cue ending in a
 * letter ends at a word's end ("can a" is not the start of "can admins", "need a" not of "need at"); the
 * Postgres form, a filter before the sentence is read here, may match more.
 */
export const REQUEST_CUE = new RegExp(`\\b(?:${CUE_PHRASES.join('|')})(?!(?<=\\w)\\w)`, 'i');
export const REQUEST_CUE_SQL = `\\m(${CUE_PHRASES.join('|')})`;

/** Nouns that say nothing about what is asked for ("we need an answer", "can you help"). */
const EMPTY_OBJECTS = new Set([
  'answer',
  'help',
  'thing',
  'something',
  'anything',
  'everything',
  'way',
  'time',
  'lot',
  'bit',
  'idea',
  'sense',
  'people',
  'point',
  'question',
  'list',
  'one',
  'there',
  'here',
  'person',
  'thing',
  'way',
]);

/**
 * Who asks or is asked about, not what: roles, teams and groups of people ("roll this out to the customer
 * success team", "leadership asked for", "calls with their counsel").
 */
const WHO = new Set([
  'team',
  'leadership',
  'counsel',
  'lawyer',
  'manager',
  'admin',
  'administrator',
  'rep',
  'executive',
  'exec',
  'cfo',
  'ceo',
  'cro',
  'cto',
  'vp',
  'director',
  'board',
  'staff',
  'department',
  'employee',
  'colleague',
  'stakeholder',
  'champion',
  'hire',
  'customer',
  'user',
]);

/** Commercial asks: price, terms, seats and paperwork are what the deal costs, not what the product does. */
const COMMERCIAL = new Set([
  'price',
  'pricing',
  'discount',
  'cost',
  'budget',
  'contract',
  'payment',
  'invoice',
  'term',
  'seat',
  'license',
  'licence',
  'margin',
  'rate',
  'flexibility',
  'number',
  'payback',
  'roi',
  'fee',
  'spend',
  'refund',
  'quote',
]);

/**
 * A count of seats or licences to add ("another 38 seats", "twenty more licences", "5 extra logins"):
 * wherever it sits in the sentence, an ask it explains ("the EMEA team asked for access, so we may need
 * another 38 seats") is the deal growing, not the product doing something new. A product named as the
 * ask is still asked for ("we need SSO before we add 40 seats").
 */
const COUNT_WORD =
  '\\d[\\d,]*|another|more|additional|extra|several|a few|a dozen|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred';
const SEATS_COUNTED = new RegExp(
  `\\b(?:${COUNT_WORD})\\s+(?:(?:more|new|extra|additional|paid|user)\\s+)?(?:seats?|licen[cs]es?|logins?)\\b`,
  'i',
);

interface TaggedTerm {
  text: string;
  normal?: string;
  root?: string;
  tags?: string[];
}
type Nlp = (text: string) => { compute(method: string): unknown; json(): { terms: TaggedTerm[] }[] };

let nlp: Nlp | null = null;

/** Load the tagger once per process (a few hundred milliseconds); objectOf needs it. */
export async function loadRequestTagger(): Promise<void> {
  if (nlp) return;
  const mod = (await import('compromise/two')) as unknown as { default: Nlp };
  nlp = mod.default;
}

export interface RequestObject {
  /** The grouping key: lower case, singular. */
  key: string;
  /** How the request is named: a proper name as written, a noun phrase in lower case. */
  label: string;
}

/** The words after a cue recur across customers (only the openers before it vary): each is tagged once. */
const TAGGED = new Map<string, TaggedTerm[]>();
const MAX_CACHED = 20_000;

function tag(text: string): TaggedTerm[] {
  const known = TAGGED.get(text);
  if (known) return known;
  if (!nlp) throw new Error('requestObjectOf before loadRequestTagger');
  // Tagged after a conjunction, so a name opening the words is not read as a capitalised first word.
  const doc = nlp(`and ${text}`);
  doc.compute('root');
  const terms = doc
    .json()
    .flatMap((s) => s.terms)
    .slice(1);
  if (TAGGED.size < MAX_CACHED) TAGGED.set(text, terms);
  return terms;
}

const tagsOf = (t: TaggedTerm): string[] => t.tags ?? [];
const POSSESSIVES = new Set(['our', 'your', 'their', 'my', 'his', 'her', 'its']);
const isNoun = (t: TaggedTerm): boolean =>
  tagsOf(t).includes('Noun') &&
  !tagsOf(t).some((g) => g === 'Pronoun' || g === 'Date' || g === 'Value') &&
  !POSSESSIVES.has(t.text.toLowerCase());
/** The first word after "can you", "could we": the verb of the ask ("show", "map"), even when it could be a noun. */
const couldBeVerb = (t: TaggedTerm): boolean =>
  tagsOf(t).some((g) => g === 'Verb' || g === 'Infinitive' || g === 'Imperative');
const bare = (t: TaggedTerm): string => t.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
/** A product, company or acronym written with a capital; people and places are who and where, not what. */
const isName = (t: TaggedTerm): boolean =>
  isNoun(t) &&
  /^\p{Lu}/u.test(bare(t)) &&
  bare(t).length > 1 &&
  tagsOf(t).some((g) => g === 'ProperNoun' || g === 'Acronym') &&
  !tagsOf(t).some((g) => g === 'Person' || g === 'FirstName' || g === 'Place' || g === 'Month') &&
  !WHO.has(bare(t).toLowerCase());
/** Words that open a noun phrase: a noun between another noun and one of these is the verb ("a report show which deals"). */
const OPENS_PHRASE = new Set(
  'the a an this that these those which what whether how our your their my his her its some any every each certain all'.split(
    ' ',
  ),
);
const opensPhrase = (t: TaggedTerm | undefined): boolean => !!t && OPENS_PHRASE.has(bare(t).toLowerCase());
/** Words after which a noun says when or how, not what ("live before sales kickoff", "filter by segment"). */
const NOT_WHAT_BEFORE = new Set(['before', 'after', 'until', 'during', 'by', 'since']);
const singular = (t: TaggedTerm): string =>
  (t.root ?? t.normal ?? bare(t)).toLowerCase().replace(/[^\p{L}\p{N} -]/gu, '');

/** The object of a request in the words after its cue: a name first, else the first noun phrase. */
function objectIn(
  terms: readonly TaggedTerm[],
  notObjects: ReadonlySet<string>,
  verbFirst: boolean | 'never' = false,
): RequestObject | null {
  const name = terms.find((t) => isName(t) && !notObjects.has(bare(t).toLowerCase()));
  if (name) {
    const label = bare(name);
    return COMMERCIAL.has(label.toLowerCase()) ? null : { key: label.toLowerCase(), label };
  }
  for (let i = 0; i < terms.length; i++) {
    if (!isNoun(terms[i]!) || (i === 0 && verbFirst !== 'never' && (verbFirst || couldBeVerb(terms[i]!)))) continue;
    let end = i;
    while (
      end + 1 < terms.length &&
      isNoun(terms[end + 1]!) &&
      !/[,;:]$/.test(terms[end]!.text) &&
      !opensPhrase(terms[end + 2])
    )
      end++;
    if (i > 0 && NOT_WHAT_BEFORE.has(bare(terms[i - 1]!).toLowerCase())) {
      i = end;
      continue;
    }
    const words = terms.slice(i, end + 1);
    const head = singular(words.at(-1)!);
    if (!head || EMPTY_OBJECTS.has(head) || WHO.has(head) || notObjects.has(head)) {
      i = end;
      continue;
    }
    if (words.some((w) => COMMERCIAL.has(singular(w)))) return null;
    const phrase = [...words.slice(0, -1).map((w) => bare(w).toLowerCase()), head].join(' ');
    return { key: phrase, label: phrase };
  }
  return null;
}

/** A cue ending in who is asked ("can you", "could we"): the word after it is the verb ("show", "map"). */
const ASKED_OF_SOMEONE = /\b(?:you|we|it|they|i|admins|managers)$/i;
/** A cue ending in a determiner ("can a", "is there an"): the word after it opens a noun phrase. */
const DETERMINED = /\b(?:a|an|the|our|your|any|some)$/i;
/** A cue that opens with the requirement itself ("need to", "has to be"): the words before it are what must. */
const REQUIREMENT_FIRST = /^(?:needs?|wants?|(?:has|have) to be|should)\b/i;

/** Where an ask's own clause ends: what follows a comma, a semicolon or "so" is another thought. */
const CLAUSE_END = /[,;:]|\s(?:so|because|or|but)\s/i;

/**
 * What a sentence asks for, or null when it uses no request language or asks for nothing the product
 * does. `notObjects` are the workspace's own names (regions, industries, accounts, people): where and
 * who, never what. `loadRequestTagger` must have run.
 */
export function requestObjectOf(sentence: string, notObjects: ReadonlySet<string> = new Set()): RequestObject | null {
  const object = askedObjectOf(sentence, notObjects);
  // A name keeps its capitals in the label; a noun phrase is written in lower case.
  const named = object !== null && object.label !== object.key;
  return object && !named && SEATS_COUNTED.test(sentence) ? null : object;
}

function askedObjectOf(sentence: string, notObjects: ReadonlySet<string>): RequestObject | null {
  const cue = REQUEST_CUE.exec(sentence);
  if (!cue) return null;
  const rest = sentence.slice(cue.index + cue[0].length);
  const clause = rest.split(CLAUSE_END)[0]!.trim();
  // After "can a", "is there an" the first word is a noun whatever else it could be ("can a report
  // show"): it is tagged after its determiner, as it was said.
  const determiner = DETERMINED.exec(cue[0].trim())?.[0];
  const after = !clause ? [] : determiner ? tag(`${determiner} ${clause}`).slice(1) : tag(clause);
  const verbFirst = ASKED_OF_SOMEONE.test(cue[0]) ? true : determiner ? 'never' : false;
  // A thing that must do or be something is what is asked for ("the dashboards need to filter by
  // segment", "onboarding material has to be self-serve"), unless a name after the cue is ("our data
  // has to stay in the EU"); a person or team who needs something is who asks, and what follows is what.
  const subject = REQUIREMENT_FIRST.test(cue[0]) ? subjectBefore(sentence.slice(0, cue.index), notObjects) : null;
  const named = after.some((t) => isName(t) && !notObjects.has(bare(t).toLowerCase()));
  if (subject && !named) return subject;
  // The object is named after the cue; a name before it ("our managers live in Slack, so summaries
  // need to show up there") is what the request is about when nothing after the cue is.
  return (
    (clause ? objectIn(after, notObjects, verbFirst) : null) ??
    objectIn(
      // Its first word is capitalised as every sentence's is ("Honestly, ..."): not a name.
      tag(sentence.slice(0, cue.index).trim())
        .slice(1)
        .filter((t) => isName(t)),
      notObjects,
    )
  );
}

/** The noun phrase that ends the words before a requirement, in their own clause ("..., the dashboards"). */
function subjectBefore(before: string, notObjects: ReadonlySet<string>): RequestObject | null {
  const own = before.split(CLAUSE_END).at(-1)!.trim();
  if (!own) return null;
  const terms = tag(own);
  // Only a phrase that runs to the cue is its subject ("the Slack alerts need"), not a noun further back.
  if (terms.length === 0 || !isNoun(terms.at(-1)!)) return null;
  if (WHO.has(singular(terms.at(-1)!))) return null;
  let start = terms.length - 1;
  while (start > 0 && isNoun(terms[start - 1]!)) start--;
  return objectIn(terms.slice(start), notObjects);
}
