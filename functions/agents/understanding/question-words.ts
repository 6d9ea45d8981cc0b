/**
 * Which words of a question name what it is about, in one place for every reader of a question's
 * topic: the relevance check (relevance.ts: the topic a quote must be about, for every model) and the
 * local model's topic of a question about what customers say (voiceTopic, topicWords in
 * local-policy/intent.ts). Two jobs, two lists:
 *
 * - SCAFFOLD: how any question asks (who, what, "say about", "come up", auxiliaries, periods, the
 *   little words between them). Never the topic, for any reader.
 * - RECORD_WORDS: the records, fields and outputs a question selects ("deals over $50K in
 *   negotiation", "a weekly digest", "the deal value"). They pick rows, so the quotes under them need
 *   not say them: the relevance check sets them aside too. The local model's topic readers do not,
 *   because a question that reaches them is about what customers say, where "value", "docs" or
 *   "reports" can be the subject ("what do customers say about value?").
 */

const words = (text: string): string[] => text.split(' ').filter(Boolean);

const SCAFFOLD: ReadonlySet<string> = new Set(
  words(
    'what which who whom whose why how where when list show give tell tells telling told find get pull summarise summarize ' +
      'summary brief briefing prep prepare overview update status anything everything something nothing catch ' +
      'any anywhere anyone question questions concern concerns worry worries worried complaint complaints ' +
      'issue issues problem problems thing things review reviews case cases theme themes topic topics ' +
      'customer customers client clients buyer buyers prospect prospects people person folks anyone someone everyone team ' +
      'call calls meeting meetings email emails post posts conversation conversations transcript transcripts note notes interaction interactions ' +
      'say says said saying talk talks talked talking mention mentions mentioned mentioning raise raised ' +
      'come comes came coming up bring brought feel think thought hear heard ask asked asking feedback ' +
      // "Push back on pricing" is an objection to pricing: the topic is pricing, and "back" would match "get back to you".
      'push pushes pushing pushed pushback back ' +
      // Auxiliaries: too rare in transcripts to fall under the relevance check's salience floor, never what a question is about.
      'be been being is are was were am has have had having do does did doing can could would should will shall might ' +
      // How a drafted message asks (an eval's topic is a whole email): "would a call help?" is not its subject.
      'help helps helpful useful hi hello dear thanks thank regards ' +
      'most more many much top main biggest common often usually recent recently latest lately new ' +
      'last this next past previous current since ago before after between during within today yesterday tomorrow ' +
      'day days week weeks month months quarter quarters year years ytd qtd mtd q1 q2 q3 q4 h1 h2 ' +
      'january february march april may june july august september october november december ' +
      "their they them our we my me us what's going goes happening happened exchange exchanged " +
      // The little words between them: a topic read as text for a search ("push back pricing") keeps none.
      // "w/" and "w" are chat shorthand for "with"; "gimme", "lemme" for give me, let me.
      'the a an of on in to with w for about regarding gimme lemme',
  ),
);

const RECORD_WORDS: ReadonlySet<string> = new Set(
  words(
    'write draft doc docs document report digest recap daily weekly monthly quarterly ' +
      'account accounts company companies deal deals opportunity opportunities pipeline teams ' +
      'open opened closing close closed won win wins lost lose losing stage stages amount amounts total totals ' +
      'count number value size sum average rep reps owner owners ' +
      // A deal's stage and an amount's comparison filter which deals are asked about; they are not what
      // the buyers' quotes must be about ("deals over $50K in negotiation").
      'prospecting qualification discovery evaluation proposal negotiation over under above below greater less than',
  ),
);

/** A pronoun with its verb contracted onto it ("we've", "they're", "i'd"): grammar, as its two words are. */
const CONTRACTED_PRONOUN = /^(?:i|we|you|they|he|she|it|there|that)['’](?:ve|re|ll|d|m|s)$/;

/** Whether a word (lower case) is how a question asks, never what it asks about. */
export const isScaffoldWord = (word: string): boolean => SCAFFOLD.has(word) || CONTRACTED_PRONOUN.test(word);

/** Whether a word (lower case) is no part of the topic the quotes under an answer must be about (relevance.ts). */
export const isNotQuoteTopic = (word: string): boolean => isScaffoldWord(word) || RECORD_WORDS.has(word);

/**
 * The text without its scaffolding, the rest in order: the subject of a question about what customers
 * say, as text for a search ("Why do customers push back on pricing?" → "pricing").
 */
export const withoutScaffold = (text: string): string =>
  text
    .replace(/[?!.]/g, ' ')
    .replace(/[\p{L}\p{N}'’]+/gu, (word) => (isScaffoldWord(word.toLowerCase().replace('’', "'")) ? ' ' : word))
    .replace(/\s+/g, ' ')
    .trim();
