import { sql } from 'drizzle-orm';
import { type Queryable, queryRows } from '../../platform/db/port.js';
import { embedLocally } from '../../platform/model/local-embedder.js';
import { embeddingTerms, stemWord } from '../../platform/model/local-text.js';
import { termWeight } from '../../platform/model/term-weights.js';
import type { BlockDraft } from './answer.js';
import { competitorsNamedIn } from './understanding/competitors.js';
import type { ReadMemo } from '../read-memo.js';
import { REQUEST_CUE } from './understanding/request-language.js';
import { isNotQuoteTopic } from './understanding/question-words.js';
import { narrowedHeads } from './understanding/topic-heads.js';
import { type TopicTerms, topicTerms } from '../search/index.js';

/**
 * Is a quote about what was asked? (agents.md, "Grounding is checked": a verbatim quote about
 * something else is still a wrong answer.) It works from the question's text alone, so it judges
 * a hosted model's quotes exactly as the local policy's: the question's topic is its salient words
 * (question scaffolding, periods and the workspace's own account and contact names taken out),
 * and a quote scores the larger of
 *
 * - its similarity to the topic under the local embedder (cosine; the local one whatever the
 *   configured embedder, so the calibrated threshold below means the same thing everywhere and
 *   the check costs no network call), and
 * - the share of the topic's words it holds, each word weighted by its inverse document frequency
 *   (platform/model/term-weights.ts), so "security" counts and "often" does not.
 *
 * A question with no salient word left ("list deals closing this quarter") has no topic, and
 * nothing is judged against it.
 */

/**
 * Below this a quote is off the topic. Calibrated on the demo corpus's own topic labels by
 * bench/relevance-threshold.ts: every distinct customer sentence of the 1x corpus (3,000) scored
 * against one seller's question per topic of the generator (13 questions: pricing, budget,
 * security, privacy, integrations, competitors, churn, a champion leaving, implementation, adoption,
 * procurement, ROI, the platform), a sentence on the topic when the generator wrote it for that
 * topic. 0.25 has the best macro F1 (0.506: precision 0.560, recall 0.567) among thresholds up to
 * 0.25, what a quote holding one of four equally weighted words of a question scores (a list of
 * topics is an or); the best above it, 0.521 at 0.34, came from failing those. The figures are those
 * of a lexical check: a paraphrase sharing no word (or CONCEPTS entry) with the question is lost,
 * which test/agents/relevance.test.ts recomputes and holds to a floor.
 */
export const RELEVANCE_THRESHOLD = 0.25;

/**
 * How a question about a meeting or a discussion asks, beside what it asks about ("What's the
 * conclusion on the age group when discussing the target group?" is about the age and the target
 * group): the discussion, its presentation and its conclusion are never what a quote must say. Read so spoken
 * turns are judged on the subject's words, not on whether they repeat "discuss" or "presentation".
 */
const DISCUSSION_WORDS = new Set(
  (
    'discuss discussed discusses discussing discussion discussions summarise summarize summarised summarized ' +
    'present presented presenting presentation presentations conclusion conclusions ' +
    'conclude concluded opinion opinions attitude attitudes following toward towards reason reasons'
  ).split(' '),
);

/** Below this weight a word is too common to name a topic (termWeight: 1 for rare, ~0.23 for "often"). */
const SALIENT_WEIGHT = 0.3;

/** Whether a word (its stem) is rare enough to name something: not a filler common everywhere. */
export const isSalient = (stem: string): boolean => termWeight(stem) >= SALIENT_WEIGHT;

/**
 * How sales conversations say the common topics without naming them: a buyer objecting to the price
 * says "budget" or "expensive", a security review is "SOC 2" and "SSO", churn is "cancel" and
 * "renewal". A topic word listed here is held by a quote that holds any of its words. General
 * B2B sales vocabulary, not the demo corpus's: a topic not listed ("mobile") is matched by its own
 * words only, which is the point of the check.
 */
const CONCEPTS: readonly string[] = [
  'price pricing cost costs expensive cheap cheaper discount discounts license licence licensing afford',
  'security secure soc sso saml okta scim encryption encrypted pen questionnaire compliance gdpr residency dpa privacy permissions audit',
  'integration integrations integrate sync syncs salesforce hubspot slack api connector export snowflake bigquery webhook crm',
  'competitor competitors competition alternative alternatives vendor vendors switch switching bake-off compare compared comparison versus incumbent',
  'champion champions sponsor sponsors',
  'churn churning cancel cancelling canceling cancellation renewal renew renewing downgrade fewer adoption logging usage',
  'risk risks blocker blockers',
];

const CONCEPT_OF = new Map<string, Set<string>>();
for (const line of CONCEPTS) {
  const stems = new Set(line.split(' ').flatMap((w) => embeddingTerms(w).stems));
  for (const stem of stems) CONCEPT_OF.set(stem, new Set([...(CONCEPT_OF.get(stem) ?? []), ...stems]));
}

export interface QuestionTopic {
  /** The topic in the question's own words, for messages ("nothing in the data mentions 'mobile'"). */
  label: string;
  /** Each salient word of the question, with the words that say the same thing (CONCEPTS). */
  terms: { stem: string; word: string; weight: number; alike: ReadonlySet<string> }[];
  vector: number[];
  /**
   * The question's acronyms both ways (search/topic-terms.ts): a quote saying "single sign-on" holds
   * the question's "SSO", one writing "MFA" its "multi-factor authentication".
   */
  acronyms: TopicTerms;
  /**
   * Stems of the topic's compound heads that its modifiers narrow (understanding/topic-heads.ts): a
   * text holding only these is about another of their kind ("a BigQuery connector" for "zapier connector").
   */
  narrowed: ReadonlySet<string>;
}

/**
 * The topic of a question, or null when it has none. `names` are names of accounts and contacts the
 * question mentions (namesInQuestion): who is asked about is not what is asked about.
 */
export function topicOf(
  question: string,
  names: readonly string[] = [],
  heads: readonly string[] = [],
): QuestionTopic | null {
  const nameWords = new Set(names.flatMap((n) => embeddingTerms(n).words));
  const { words } = embeddingTerms(question);
  const kept: string[] = [];
  const terms = new Map<string, number>();
  const wordOf = new Map<string, string>();
  for (const word of words) {
    if (isNotQuoteTopic(word) || DISCUSSION_WORDS.has(word) || nameWords.has(word) || /\d/.test(word)) continue;
    const stem = stemWord(word);
    const weight = termWeight(stem);
    if (weight < SALIENT_WEIGHT) continue;
    kept.push(word);
    terms.set(stem, weight);
    if (!wordOf.has(stem)) wordOf.set(stem, word);
  }
  if (terms.size === 0) return null;
  // A long topic (an eval's drafted message) is named by its first words in messages.
  const label = kept.length > 6 ? `${kept.slice(0, 6).join(' ')} …` : kept.join(' ');
  const headWords = new Set(heads.map((h) => h.toLowerCase()));
  const standing = new Set(kept.filter((w) => !headWords.has(w)).map(stemWord));
  const narrowed = new Set(kept.filter((w) => headWords.has(w)).map(stemWord));
  for (const stem of standing) narrowed.delete(stem);
  return {
    label,
    terms: [...terms].map(([stem, weight]) => ({
      stem,
      word: wordOf.get(stem) ?? stem,
      weight,
      alike: CONCEPT_OF.get(stem) ?? new Set([stem]),
    })),
    vector: embedLocally(kept.join(' ')),
    // Read from the question as written: its case tells an acronym ("IT") from a word ("it").
    acronyms: topicTerms(question, { stems: [] }),
    // Only while another word stands alone, a topic never narrowed to nothing; and a long topic (a
    // drafted message) is about any one of its words, so nothing in it is narrowed.
    narrowed: standing.size > 0 && terms.size <= TOPIC_WEIGHT_CAP ? narrowed : new Set(),
  };
}

/**
 * A quote's stem matches a topic stem when equal, when one is a prefix (of 4+ letters) of the other
 * ("secur", "security"), or when the two agree on all but the shorter one's last letter and run to 6
 * letters or more: one word in another part of speech, which the suffix stemmer leaves apart
 * ("recognit"/"recognis" for recognition/recognise, "technolog-y"/"technolog-ical"). Speech says a
 * topic in whichever form the sentence needed.
 */
function stemMatches(topicStem: string, stems: ReadonlySet<string>): boolean {
  if (stems.has(topicStem)) return true;
  if (topicStem.length < 4) return false;
  for (const s of stems) {
    if (s.length < 4) continue;
    if (s.startsWith(topicStem) || topicStem.startsWith(s)) return true;
    if (sameWordOtherForm(topicStem, s)) return true;
  }
  return false;
}

const DERIVED_FORM_MIN = 6;

function sameWordOtherForm(a: string, b: string): boolean {
  const shorter = Math.min(a.length, b.length);
  const needed = Math.max(DERIVED_FORM_MIN, shorter - 1);
  if (shorter < needed) return false;
  for (let i = 0; i < needed; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What a transcript turn says, without what was only sounded: transcription marks ("{vocalsound}",
 * "{disfmarker}", "[laughter]") and hesitations ("um", "uh", "mm-hmm") out, and a name spelled
 * letter by letter written as one word ("T_V_" is "TV", "L_C_D_" is "LCD": the word a question
 * uses). Marks and hesitations carry no topic, and in the hashed embedding each one is a chance
 * collision with the topic's words.
 */
export function spokenContent(text: string): string {
  return text
    .replace(SPELLED_LETTERS, (letters) => letters.replace(/_/g, ''))
    .replace(TRANSCRIPTION_MARK, ' ')
    .replace(HESITATION, ' ');
}

const SPELLED_LETTERS = /\b(?:[A-Za-z]_){2,}/g;

const TRANSCRIPTION_MARK = /\{[^{}]{1,40}\}|\[[^[\]]{1,40}\]/g;
const HESITATION = /\b(?:u+h+m*|u+m+|h+m+|m+-?hm+|mm+|e+r+m*|a+h+|uh-huh|huh)\b/gi;

/**
 * How much a text says, in salient words: the sum of their weights (termWeight), at most 1 for each
 * word. Below INFORMATION_FULL the cosine counts in proportion: a two-word reply ("Of course
 * yeah", "Thank you") shares trigrams with any topic by chance, and a high cosine of so little
 * text is that chance, not a paraphrase. Words of the topic held are counted whatever the length.
 */
function information(stems: readonly string[]): number {
  let sum = 0;
  for (const stem of new Set(stems)) sum += termWeight(stem);
  return sum;
}

/** A text saying this much or more is judged by its full cosine: a clause with a subject and what is said of it. */
const INFORMATION_FULL = 4;

/**
 * The topic weight a quote's words are counted against, at most: four full-weight words. A long
 * topic (an eval's drafted message, a question naming five things) is about any one of its words,
 * not all of them at once; up to four words a quote holding one of them scores 0.25 or more.
 */
const TOPIC_WEIGHT_CAP = 4;

/**
 * How much a text is about the topic, in [0, 1]: max(cosine under the local embedder, weighted by
 * how much the text says, IDF-weighted share of the topic's words it holds), both read on its spoken
 * content (spokenContent).
 */
export function relevanceScore(topic: QuestionTopic, text: string): number {
  const spoken = spokenContent(text);
  const { stems } = embeddingTerms(spoken);
  const vector = embedLocally(spoken);
  let cosine = 0;
  for (let i = 0; i < vector.length; i++) cosine += (vector[i] ?? 0) * (topic.vector[i] ?? 0);
  cosine *= Math.min(1, information(stems) / INFORMATION_FULL);
  const held = new Set(termsHeldIn(topic, stems, spoken));
  // Holding only what the topic's modifiers narrow, the text is about another of the kind.
  if (held.size > 0 && [...held].every((stem) => topic.narrowed.has(stem))) return 0;
  let heldWeight = 0;
  let total = 0;
  for (const { stem, weight } of topic.terms) {
    total += weight;
    if (held.has(stem)) heldWeight += weight;
  }
  return Math.max(cosine, total > 0 ? Math.min(1, heldWeight / Math.min(total, TOPIC_WEIGHT_CAP)) : 0);
}

/**
 * The stems of the topic's words a text holds: the word itself, a word alike (CONCEPTS), or an
 * acronym of the topic either way (the text spells out an acronym the question names, or writes the
 * acronym of words the question spells out).
 */
export function termsHeld(topic: QuestionTopic, text: string): string[] {
  const spoken = spokenContent(text);
  return termsHeldIn(topic, embeddingTerms(spoken).stems, spoken);
}

function termsHeldIn(topic: QuestionTopic, textStems: readonly string[], spoken: string): string[] {
  const stems = new Set(textStems);
  const byAcronym = new Set(
    topic.acronyms.acronymsIn(spoken).flatMap((acronym) => acronym.words.flatMap((w) => embeddingTerms(w).stems)),
  );
  return topic.terms
    .filter(({ stem, alike }) => byAcronym.has(stem) || [...alike].some((s) => stemMatches(s, stems)))
    .map((t) => t.stem);
}

export const isOnTopic = (topic: QuestionTopic, text: string): boolean =>
  relevanceScore(topic, text) >= RELEVANCE_THRESHOLD;

/**
 * Names of this workspace's accounts, contacts, industries and regions that the question mentions (who
 * spoke is never what they spoke about: "EMEA", "healthcare"): the whole name, or
 * the first word of an account's name written capitalised ("Acme" for "Acme Logistics") or, when it
 * has seven letters or more, in any case ("tidewater" for "Tidewater Logistics"). Read so
 * the topic of "what did Acme Security say about pricing" is pricing, not security.
 */
export async function namesInQuestion(db: Queryable, workspaceId: string, question: string): Promise<string[]> {
  // A first word written in lower case ("what did tidewater say") counts when it is long enough not
  // to be an everyday word: the rule the question's understanding links accounts by (entities.ts).
  const capitalised = [
    ...new Set([...(question.match(/\b[A-Z][\w'-]+/g) ?? []), ...(question.match(/\b[a-z][\w'-]{6,}/g) ?? [])]),
  ].map((w) => w.toLowerCase());
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select name from accounts
        where workspace_id = ${workspaceId}
          and (strpos(lower(${question}), lower(name)) > 0
               or lower(split_part(name, ' ', 1)) = any(string_to_array(${capitalised.join(',')}, ',')))
        union
        select name from contacts
        where workspace_id = ${workspaceId} and strpos(lower(${question}), lower(name)) > 0
        union
        select industry from accounts
        where workspace_id = ${workspaceId} and industry is not null and strpos(lower(${question}), lower(industry)) > 0
        union
        select region from accounts
        where workspace_id = ${workspaceId} and region is not null and strpos(lower(${question}), lower(region)) > 0
        limit 50`,
  );
  return rows
    .map((r) => r.name)
    .filter((name) => {
      // strpos matched inside a word ("Ion" in "integration") is not a mention.
      const re = new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i');
      return re.test(question) || capitalised.includes(name.split(' ')[0]?.toLowerCase() ?? '');
    });
}

/** The topic of a question asked of this workspace: its salient words, the names it mentions taken out. */
export async function topicAskedOf(
  db: Queryable,
  workspaceId: string,
  question: string,
): Promise<QuestionTopic | null> {
  return topicOf(question, await namesInQuestion(db, workspaceId, question), await narrowedHeads(question));
}

// ---- the verifier's use ------------------------------------------------------------------------

/**
 * What an analysis's quotes are about when the reading names no topic of its own: the asks of a
 * feature-request ranking, the rivals of a competitor count. The words are the ones the checks below
 * recognise, so a quote the analysis picked for being an ask or naming a rival is on its topic.
 */
const ANALYSIS_SUBJECTS: Readonly<Record<string, string>> = {
  feature_requests: 'feature requests',
  competitors: 'competitors',
};

/**
 * The text quotes are judged against: the answer's own reading when it reported one (its topic, or
 * the subject of the analysis it answered by), so the words the reader placed elsewhere — a period,
 * an audience, a verb of asking ("what product gaps keep coming up with prospects this year") — are
 * not taken for the topic; the question's words otherwise.
 */
export function topicTextOf(question: { text: string; reading?: { analysis: string; topic: string | null } }): string {
  const reading = question.reading;
  if (!reading) return question.text;
  return reading.topic ?? ANALYSIS_SUBJECTS[reading.analysis] ?? question.text;
}

/** Fewer on-topic quotes than this and the evidence is thin (the evals' floor too). */
export const THIN_EVIDENCE = 3;

export interface QuoteRelevance {
  topic: QuestionTopic;
  /** Quote blocks (by index) off the topic, with their scores. */
  offTopic: Map<number, number>;
  /** Quote blocks on the topic. */
  onTopic: number;
}

/**
 * Judge the verbatim quotes of an answer against the question: null when the question has no topic
 * (nothing is judged then) or the answer quotes nothing.
 */
export async function judgeQuotes(
  db: Queryable,
  workspaceId: string,
  question: string,
  blocks: readonly BlockDraft[],
  verbatim: (index: number) => boolean,
  memo?: ReadMemo,
): Promise<QuoteRelevance | null> {
  const quotes = blocks.flatMap((b, i) => (b.kind === 'quote' && verbatim(i) ? [{ i, text: b.text }] : []));
  if (quotes.length === 0) return null;
  const topic = await topicAskedOf(db, workspaceId, question);
  if (!topic) return null;
  const offTopic = new Map<number, number>();
  for (const { i, text } of quotes) {
    const score = relevanceScore(topic, text);
    if (score < RELEVANCE_THRESHOLD) offTopic.set(i, score);
  }
  if (offTopic.size > 0 && asksAboutCompetitors(topic)) {
    // A topic's members count as the topic: a buyer naming a rival ("we're looking at Pipewell") is
    // about competitors without saying the word.
    const rivals = (await competitorsNamedIn(db, workspaceId, memo)).map(
      (name) => new RegExp(`\\b${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`),
    );
    for (const { i, text } of quotes) if (offTopic.has(i) && rivals.some((re) => re.test(text))) offTopic.delete(i);
  }
  // Likewise a customer asking for something ("can we route alerts to Slack?") is a feature request
  // without saying the words, when the question asks for requests and nothing narrower.
  if (offTopic.size > 0 && asksOnlyForRequests(topic))
    for (const { i, text } of quotes) if (offTopic.has(i) && REQUEST_CUE.test(text)) offTopic.delete(i);
  return { topic, offTopic, onTopic: quotes.length - offTopic.size };
}

const REQUEST_STEMS = new Set(
  ['feature', 'request', 'wishlist', 'wish', 'enhancement', 'ask', 'want', 'build'].map(stemWord),
);
const asksOnlyForRequests = (topic: QuestionTopic): boolean =>
  topic.terms.some((t) => REQUEST_STEMS.has(t.stem)) && topic.terms.every((t) => REQUEST_STEMS.has(t.stem));

const COMPETITOR_STEM = stemWord('competitor');
const asksAboutCompetitors = (topic: QuestionTopic): boolean => topic.terms.some((t) => t.alike.has(COMPETITOR_STEM));

/**
 * The prose without the lines that quoted a removed quote (a bullet of it, a sentence around it),
 * and without a heading whose lines were all removed: an empty "What buyers said:" is not left
 * standing over nothing. A heading is a markdown heading or a line ending in a colon; its section
 * runs to the next heading.
 */
export function withoutQuotedLines(text: string, removedQuotes: readonly string[]): string {
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  const gone = removedQuotes.map(squash).filter((q) => q.length > 0);
  if (gone.length === 0) return text;
  const lines = text.split('\n');
  const isHeading = (line: string) => /^#{1,6}\s/.test(line) || /:\s*$/.test(line.trim());
  const removed = lines.map((line) => gone.some((q) => squash(line).includes(q)));
  for (let h = 0; h < lines.length; h++) {
    if (removed[h] || !isHeading(lines[h] ?? '')) continue;
    let end = h + 1;
    while (end < lines.length && !isHeading(lines[end] ?? '')) end++;
    const section = lines.slice(h + 1, end).map((line, k) => ({ line, gone: removed[h + 1 + k] }));
    const lostSome = section.some((l) => l.gone);
    const keptAny = section.some((l) => !l.gone && l.line.trim() !== '');
    if (lostSome && !keptAny) removed[h] = true;
  }
  return lines
    .filter((_, i) => !removed[i])
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * What the answer says about it (added after the prose's numbers are checked: these counts describe
 * the check, not the data): with no quote left on the topic the answer opens by saying so; with
 * few, a warning says the evidence is thin, counting on-topic quotes only, whatever the draft
 * itself claimed; quotes left out are counted in a note.
 */
export function relevanceNotes(
  judged: QuoteRelevance,
  otherEvidence = false,
): { opening: string | null; callouts: BlockDraft[] } {
  const off = judged.offTopic.size;
  const label = judged.topic.label;
  const callouts: BlockDraft[] = [];
  if (judged.onTopic === 0 && otherEvidence) {
    // The answer stands on its tables and metrics (a ranking of competitors, a count): "nothing
    // mentions X" above them would contradict them; only the quotes are said to be off the topic.
    callouts.push({
      kind: 'callout',
      tone: 'info',
      markdown: `${off === 1 ? 'The one quote found was' : `The ${off} quotes found were`} left out: verbatim, but about something other than “${label}”.`,
    });
    return { opening: null, callouts };
  }
  if (judged.onTopic === 0) {
    const quotes = off === 1 ? 'the one quote found was' : `the ${off} quotes found were`;
    return {
      opening: `Nothing in the data mentions “${label}”: ${quotes} about other things and left out.`,
      callouts,
    };
  }
  if (judged.onTopic < THIN_EVIDENCE) {
    callouts.push({
      kind: 'callout',
      tone: 'warning',
      markdown: `Thin evidence: only ${judged.onTopic === 1 ? 'one quote is' : `${judged.onTopic} quotes are`} about “${label}”. Treat this as a lead, not a pattern.`,
    });
  }
  if (off > 0) {
    callouts.push({
      kind: 'callout',
      tone: 'info',
      markdown: `${off === 1 ? 'One quote was' : `${off} quotes were`} left out: verbatim, but about something other than “${label}”.`,
    });
  }
  return { opening: null, callouts };
}
