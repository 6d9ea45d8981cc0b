import { stemWord } from '../../../platform/model/local.js';
import type { StepResult } from '../../../platform/model/port.js';
import type { BlockDraft } from '../answer.js';
import type { AskedPeriod } from '../../search/index.js';
import { rowsOf, type PolicyContext } from './context.js';
import { scopedQuery } from './search-scope.js';
import type { SegmentFilter } from './intent.js';
import {
  distinctStatements,
  externalTurnsOf,
  quoteBlock,
  recurringWords,
  semanticTurnsOf,
  tableBlock,
  type QuoteCandidate,
} from './evidence.js';
import { call, calls, finish, inPeriod, said, type Query } from './steps.js';
import { staleNote, whyEmpty } from './search-notes.js';
import { synonymsOf, withSynonyms } from './topic-synonyms.js';
import { narrowedHeadsOf } from '../understanding/topic-heads.js';

/**
 * What customers say about a topic: turns found by meaning (semantic lane, customer voice) and by
 * their words (fuzzy lane), kept only when they name the topic's specific words and fall inside
 * the asked period. A topic nobody mentions is said out loud, with no quotes standing in for it.
 */

/** Words of a voice question that say nothing about its subject. */
const NOT_TOPIC = new Set(
  // The crowd ("accounts", "deals in negotiation") and the form of the answer ("direct quotes", "exactly") too.
  'push back pushback objection objections worried worry anyone top come comes main biggest most common complaint complaints issue issues problem problems feedback think account accounts deal deals quotes direct exactly verbatim'.split(
    ' ',
  ),
);
/** Words that narrow a topic but alone would match anything ("review", "sync", "app"). */
const GENERIC = new Set(
  'review reviews integration integrations sync syncing app apps team teams data process feature features tool tools product platform support experience thing things stuff'.split(
    ' ',
  ),
);

const wordsOf = (s: string): string[] =>
  (s.toLowerCase().match(/[a-z][a-z0-9'-]+/g) ?? []).filter((w) => !NOT_TOPIC.has(w));

/**
 * The stems a quote must share: the topic's specific words, neither generic nor a compound's head its
 * modifier narrows (a quote saying only "connector" is about another connector than the "zapier
 * connector" asked); failing those, the words that are not generic; failing those, all its words.
 */
export function requiredStems(topic: string): string[] {
  const words = wordsOf(topic);
  // A head only a generic word modifies ("data residency") is not narrowed: the generic word is no kind.
  const heads = new Set(narrowedHeadsOf(words.filter((w) => !GENERIC.has(w)).join(' ')));
  const specific = words.filter((w) => !GENERIC.has(w));
  const narrowest = specific.filter((w) => !heads.has(w));
  const chosen = narrowest.length > 0 ? narrowest : specific.length > 0 ? specific : words;
  return [...new Set(chosen.map(stemWord))];
}

export const mentionsTopic = (text: string, required: readonly string[]): boolean => {
  if (required.length === 0) return true;
  const have = new Set((text.toLowerCase().match(/[a-z][a-z0-9'-]+/g) ?? []).map(stemWord));
  return required.some((w) => have.has(w));
};

const VOICE_QUERIES = {
  // Hybrid: the nearest by meaning, ordered by the words of the conversation around each as well, so
  // an informative turn on the topic outranks a short generic one (functions/search/semantic-hybrid.ts).
  meaning: (topic: string, period: AskedPeriod | null, segment: readonly SegmentFilter[] = []): Query =>
    scopedQuery(
      {
        query: topic,
        mode: 'semantic',
        ranking: 'hybrid',
        hydrate: true,
        audience: 'customer_voice',
        limit: 40,
        ...(segment.length > 0 ? { filters: [...segment] } : {}),
      },
      { period },
    ),
  words: (topic: string, period: AskedPeriod | null): Query => ({
    query: `${topic}${period ? ` ${period.phrase}` : ''}`,
    mode: 'fuzzy',
    limit: 30,
  }),
  sources: (ids: string[]): Query => ({
    surface: 'interactions',
    filters: [{ field: 'id', op: 'in', value: ids }],
    order_by: { field: 'occurred_at', dir: 'desc' },
    limit: ids.length,
  }),
};

/** " from EMEA accounts on deals in negotiation": who the quotes were searched among. */
const segmentWords = (segment: readonly SegmentFilter[]): string =>
  segment
    .map((f) =>
      f.field === 'deal_stage'
        ? ` on deals in ${f.value.join(' or ')}`
        : ` from ${f.value.join(' or ')} ${f.field === 'account_region' ? 'accounts' : 'industry accounts'}`,
    )
    .join('');

export function voiceStep(
  ctx: PolicyContext,
  rawTopic: string,
  period: AskedPeriod | null,
  segment: readonly SegmentFilter[] = [],
): StepResult {
  const topic = wordsOf(rawTopic).join(' ') || rawTopic;
  const meaning = ctx.results.get('voice');
  // A segment (a region, an industry, a stage) narrows the semantic lane inside its vector search; the
  // fuzzy lane cannot filter, so the topic's other words are searched by meaning in the same segment.
  if (!meaning && !ctx.mustFinish)
    return calls(
      call(ctx, 'voice', VOICE_QUERIES.meaning(topic, period, segment)),
      segment.length > 0
        ? call(ctx, 'voice_words', VOICE_QUERIES.meaning(withSynonyms(topic), period, segment))
        : call(ctx, 'voice_words', VOICE_QUERIES.words(withSynonyms(topic), period)),
    );
  const required = [...new Set([...requiredStems(topic), ...synonymsOf(topic).map((w) => stemWord(w.toLowerCase()))])];
  const byMeaning = semanticTurnsOf(rowsOf(meaning), 40);
  const byWords =
    segment.length > 0
      ? semanticTurnsOf(rowsOf(ctx.results.get('voice_words')), 40)
      : externalTurnsOf(rowsOf(ctx.results.get('voice_words')), 30);
  const seen = new Set<string>();
  const all: QuoteCandidate[] = [];
  for (const c of [...byMeaning, ...byWords]) {
    if (seen.has(c.turnId) || !mentionsTopic(c.text, required)) continue;
    seen.add(c.turnId);
    all.push(c);
  }
  const within = all.filter((c) => inPeriod(c.occurredAt, period));
  const distinct = distinctStatements(within, topic);
  // Said again by others in other words: not more evidence of something else, and not thin evidence either.
  const repeated = distinct.length < within.length;
  const chosen = distinct.slice(0, 6);
  const when = `${segmentWords(segment)}${period ? ` ${said(period.phrase)}` : ''}`;
  if (chosen.length === 0) {
    const reason =
      all.length > 0
        ? `customers did mention ${topic}, but not${when}`
        : rowsOf(meaning).length + byWords.length > 0
          ? `nothing in the data mentions "${topic}": the closest matches are about other things, so I am not quoting them`
          : whyEmpty(meaning);
    return finish({
      text: `I found no customer statements about ${topic}${when} in this workspace's calls, meetings and emails: ${reason}. ${staleNote(meaning)}`.trim(),
      content_blocks: [],
      follow_ups: ['What do customers talk about most?', 'What do customers say about pricing?'],
    });
  }
  const ids = [...new Set(chosen.map((c) => c.interactionId))];
  const sources = ctx.results.get('voice_sources');
  if (!sources && !ctx.mustFinish) return calls(call(ctx, 'voice_sources', VOICE_QUERIES.sources(ids)));
  const quotes = chosen.map((c) => quoteBlock(c, topic));
  const lines = [
    `What customers said about ${topic}${when}, in their own words (buyers only, not investors, vendors or partners; each quote carries its date):`,
    '',
  ];
  for (const q of quotes)
    lines.push(`- **${q.source.account ?? 'No linked account'}**, ${q.source.speaker ?? 'a customer'}: “${q.text}”`);
  const recurring = recurringWords(
    quotes.map((q) => q.text),
    topic,
  );
  if (recurring.length > 0) lines.push('', `Words that come back across these quotes: ${recurring.join(', ')}.`);
  if (quotes.length < 3 && repeated)
    lines.push(
      '',
      `Customers said ${quotes.length === 1 ? 'this' : 'these things'} many times over, in other words; each statement is quoted once.`,
    );
  else if (quotes.length < 3)
    lines.push('', `The evidence is thin: only a few customer remarks match, so treat this as a lead, not a pattern.`);
  else if (repeated) lines.push('', `What other customers repeated in other words is quoted once.`);
  const blocks: BlockDraft[] = [...quotes];
  if (rowsOf(sources).length > 0) {
    lines.push('', `The conversations they come from are in the table, newest first.`);
    blocks.push(
      tableBlock(
        'Conversations behind these quotes',
        [
          ['occurred_at', 'When'],
          ['kind', 'Kind'],
          ['title', 'Title'],
          ['account_name', 'Account'],
        ],
        rowsOf(sources),
        VOICE_QUERIES.sources(ids),
      ),
    );
  }
  lines.push('', `These are matches by meaning and by words, not a count of how often it comes up.`);
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: [
      `Which accounts raise ${topic} most often?`,
      `How has talk about ${topic} changed over the last quarter?`,
    ],
  });
}
