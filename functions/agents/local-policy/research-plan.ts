import { contentWords, stemWord } from '../../../platform/model/local.js';
import type { StepResult, ToolCall } from '../../../platform/model/port.js';
import type { AnswerDraft, BlockDraft } from '../answer.js';
import { FINAL_ANSWER } from '../tool-names.js';
import { matchedAccounts, rowsOf, type PolicyContext } from './context.js';
import {
  externalTurnsOf,
  quoteBlock,
  recurringWords,
  semanticTurnsOf,
  tableBlock,
  type QuoteCandidate,
} from './evidence.js';
import { topicWords, type Intent } from './intent.js';
import { asksForQuiet, parseAskedPeriod } from '../../search/index.js';
import { nextStep } from './plans.js';
import { tidyAnswer } from '../grounding-finished.js';
import { call, calls, finish } from './steps.js';
import { scopedQuery } from './search-scope.js';
import { isOnTopic, isSalient, topicOf as topicOfQuestion, withoutQuotedLines } from '../relevance.js';
import { isScaffoldWord } from '../understanding/question-words.js';
import { disagreementSection, disagreementsIn } from './research-disagreements.js';

/**
 * The research plan: how a run at the deep depth tier goes further than a chat
 * answer. It runs the chat plan first (nextStep: the same searches and the same answer), then plans
 * the facets a researcher would — what (evidence grouped by theme, and where the sources disagree),
 * who (by account), when (a trend over the last four quarters), how many (counts) — runs those
 * searches, and returns a sectioned report whose summary states the answer first (one sentence and
 * the counts it rests on) and then the chat answer, and whose last section says what it all rests on.
 * A breakdown is shown only where the data has one: no "By account" when every quote is from one
 * account or none is linked, no "Over time" when fewer than two quarters hold any of it. A question
 * about one account is answered from that account's conversations only.
 *
 * Its own calls carry purposes `r_*`, so they never collide with the chat plan's. Every block is an
 * ordinary quote, table or metric carrying the request its cells came from: the grounding verifier
 * checks the report like any answer. Prose numbers appear only inside cells or their queries (the
 * quarter boundaries are filter values), never counted by the policy itself.
 */

type Query = Record<string, unknown>;
type QuoteBlock = Extract<BlockDraft, { kind: 'quote' }>;

/**
 * The chat answer the report builds on, without the quotes the verifier's relevance rule would take
 * out for this question (a report goes further than chat, so it reads the chat's evidence as asked),
 * and without the prose lines that quoted them.
 */
function onTheAskedTopic(chat: AnswerDraft, ctx: PolicyContext, names: readonly string[]): AnswerDraft {
  const topic = topicOfQuestion(ctx.ask, names);
  if (!topic) return chat;
  const off = chat.content_blocks.flatMap((b) => (b.kind === 'quote' && !isOnTopic(topic, b.text) ? [b.text] : []));
  if (off.length === 0) return chat;
  return {
    ...chat,
    text: withoutQuotedLines(chat.text, off),
    content_blocks: chat.content_blocks.filter((b) => b.kind !== 'quote' || !off.includes(b.text)),
  };
}

/** The section the coverage step (coverage.ts) appends; the report keeps it last. */
const RESTS_ON = '### What this rests on';
/** Filter-lane `in` lists take at most this many values (SEARCH_LIMITS.inValues). */
const MAX_IDS = 200;
const NEW_QUOTES = 12;
const QUARTERS = 4;

export function researchStep(ctx: PolicyContext, intent: Intent): StepResult {
  const base = nextStep(ctx, intent);
  const final = base.tool_calls.find((c) => c.name === FINAL_ANSWER);
  // The chat plan is still searching (or asking, or has no search tool): let it.
  if (!final || intent.kind === 'no_search' || ctx.mustFinish) return base;
  const chat = onTheAskedTopic(final.arguments as unknown as AnswerDraft, ctx, resolvedAccountNames(ctx, intent));
  const facets = intent.kind === 'deals' ? dealFacets(ctx, intent, chat) : evidenceFacets(ctx, intent, chat);
  if (facets.pending.length > 0) return calls(...facets.pending);
  // The renderer's pass: a section left empty or saying only that it has nothing is not shown.
  const drafted = report(chat, facets.sections, facets.searched, facets.lead ?? null);
  const tidied = tidyAnswer(drafted.text, drafted.content_blocks);
  return finish({ ...drafted, text: tidied.text, content_blocks: tidied.blocks });
}

interface Section {
  heading: string;
  lines: string[];
  blocks: BlockDraft[];
}

interface Facets {
  /** Searches still to run, or none when every facet has its result. */
  pending: ToolCall[];
  sections: Section[];
  /** What each facet search read, in words, for "What this rests on". */
  searched: string[];
  /** The answer in one sentence, put first in the summary (null: the chat answer already opens with it). */
  lead?: string | null;
}

// ---- questions about what customers say, about an account, about activity ----------------------

function evidenceFacets(ctx: PolicyContext, intent: Intent, chat: AnswerDraft): Facets {
  const account = accountOf(ctx, intent);
  const topic = topicOf(ctx, intent);
  const subject = [account, topic].filter(Boolean).join(': ') || ctx.ask;
  // A period the question names bounds the sections' counts too: a count over all the evidence found
  // would read as the period's (the verifier's period-count rule refuses it, grounding-counts.ts).
  const asked = asksForQuiet(ctx.ask) ? null : parseAskedPeriod(ctx.ask, ctx.today);
  // The account and period the question fixes narrow the search by meaning itself. Research ranks by
  // similarity: its quotes are picked by the topic's words, which hybrid's conversation-ordered turns
  // hold less often (fewer attributed, on-topic quotes in the research tests).
  const voiceQuery: Query = scopedQuery(
    {
      query: topic || subject,
      mode: 'semantic',
      hydrate: true,
      audience: 'customer_voice',
      limit: 30,
    },
    { accountIds: resolvedAccountIds(ctx, intent), period: asked },
  );
  const wordsQuery: Query = { query: subject, mode: 'fuzzy', max_subqueries: 5, limit: 25 };
  // What: the whole topic by meaning and by words, then each of its salient words by meaning (the
  // local embedder matches words, so "competitors" alone reaches turns the whole phrase does not).
  const facetWords = salientWords(topic).slice(0, 3);
  const wordQuery = (word: string): Query => ({ ...voiceQuery, query: word, limit: 15 });
  const first: [string, Query][] = [
    ['r_voice', voiceQuery],
    ['r_words', wordsQuery],
    // The figures customers gave on the topic (discounts, seats, prices): where two disagree, the report says so.
    [
      'r_figures',
      { ...voiceQuery, query: `${topic || subject} discount percent seats reps price per seat`, limit: 30 },
    ],
    ['r_figure_words', { ...wordsQuery, query: `${subject} percent discount per seat`, limit: 25 }],
    ...facetWords.map((w, i) => [`r_voice_${i}`, wordQuery(w)] as [string, Query]),
    ...facetWords.map((w, i) => [`r_words_${i}`, { ...wordsQuery, query: w, limit: 15 }] as [string, Query]),
  ];
  const unasked = first.filter(([purpose]) => !ctx.results.has(purpose));
  if (unasked.length > 0) return pending(unasked.map(([purpose, query]) => call(ctx, purpose, query)));
  // A question about one account is answered from that account's conversations: the search by words
  // reads every account's, so its rows are kept to the account's (the search by meaning is scoped already).
  const askedAccounts = new Set(resolvedAccountNames(ctx, intent));
  const ofAskedAccount = (r: Record<string, unknown>) =>
    askedAccounts.size === 0 || askedAccounts.has(String(r.account_name ?? ''));
  const fuzzyRows = ['r_words', 'r_figure_words', ...facetWords.map((_, i) => `r_words_${i}`)]
    .flatMap((purpose) => rowsOf(ctx.results.get(purpose)))
    .filter(ofAskedAccount);

  const chatQuotes = chat.content_blocks.filter((b): b is QuoteBlock => b.kind === 'quote');
  const semanticRows = ['r_voice', 'r_figures', ...facetWords.map((_, i) => `r_voice_${i}`)]
    .flatMap((purpose) => rowsOf(ctx.results.get(purpose)))
    .filter((r) => r.side === 'external')
    .filter(ofAskedAccount);
  const ids = distinct([
    ...chatQuotes.map((q) => q.source.interaction_id),
    ...semanticRows.map((r) => String(r.interaction_id)),
    ...fuzzyRows.map((r) => String(r.id)),
  ]).slice(0, MAX_IDS);
  if (ids.length === 0) return done([emptySection(subject)], searchedWords(subject, facetWords));

  const inEvidence = { field: 'id', op: 'in', value: ids };
  const inPeriod = asked
    ? [
        { field: 'occurred_at', op: 'gte', value: asked.from },
        { field: 'occurred_at', op: 'lt', value: asked.to },
      ]
    : [];
  const sourcesQuery: Query = { surface: 'interactions', filters: [inEvidence], limit: ids.length };
  const byAccountQuery: Query = {
    surface: 'interactions',
    filters: [inEvidence, ...inPeriod],
    group_by: ['account_name'],
    metrics: [{ fn: 'count' }],
    order_by: { field: 'count', dir: 'desc' },
  };
  const countsQuery: Query = {
    surface: 'interactions',
    filters: [inEvidence, ...inPeriod],
    metrics: [
      { fn: 'count' },
      { fn: 'count_distinct', field: 'account_name' },
      { fn: 'min', field: 'occurred_at' },
      { fn: 'max', field: 'occurred_at' },
    ],
  };
  const windows = quarters(ctx.today);
  const trendQuery = (w: Window): Query => ({
    surface: 'interactions',
    filters: [
      inEvidence,
      { field: 'occurred_at', op: 'gte', value: w.from },
      { field: 'occurred_at', op: 'lt', value: w.to },
    ],
    metrics: [{ fn: 'count' }],
  });
  const missing = [
    ['r_sources', sourcesQuery],
    ['r_by_account', byAccountQuery],
    ['r_counts', countsQuery],
    ...windows.map((w, i) => [`r_trend_${i}`, trendQuery(w)] as const),
  ].filter(([purpose]) => !ctx.results.has(purpose as string)) as [string, Query][];
  if (missing.length > 0) return pending(missing.map(([purpose, query]) => call(ctx, purpose, query)));

  // What: the new evidence (quotes the chat answer did not show), grouped by the words customers repeat.
  const shown = new Set(chatQuotes.map((q) => q.source.turn_id ?? q.text));
  const candidates = [...semanticTurnsOf(semanticRows, 40), ...externalTurnsOf(fuzzyRows, 40)].filter(
    (c) => !shown.has(c.turnId),
  );
  // The verifier's relevance rule, on the question alone: a quote it would take out is never offered.
  const askedTopic = topicOfQuestion(ctx.ask, [...askedAccounts, ...(account ? [account] : [])]);
  const standsAsAsked = (text: string) => !askedTopic || isOnTopic(askedTopic, text);
  const onTopicCandidates = onTopic(distinctTurns(candidates), topic).filter((c) => standsAsAsked(c.text));
  // Every remark found, the summary's included (a figure the summary quotes may be the one another
  // contradicts); the verifier's relevance rule, concepts and all, judges each quote of a pair below.
  const allCandidates = distinctTurns([...semanticTurnsOf(semanticRows, 80), ...externalTurnsOf(fuzzyRows, 80)]);
  const quotes = onTopicCandidates.slice(0, NEW_QUOTES).map((c) => quoteBlock(c, topic || subject));
  const sections: Section[] = [themeSection(quotes, topic)];
  // Where the sources disagree: figures customers gave that do not agree (research-disagreements.ts).
  const disagreements = disagreementsIn(allCandidates, standsAsAsked);
  const disagreeing = disagreementSection(disagreements);
  if (disagreeing) sections.push(disagreeing);

  // Who: the accounts the evidence comes from, when it comes from more than one.
  const byAccount = rowsOf(ctx.results.get('r_by_account'));
  const named = byAccount.map((r) => nameOf(r.account_name)).filter((n): n is string => n !== null);
  const reportQuotes = [...chatQuotes, ...quotes, ...(disagreeing?.blocks ?? [])];
  const quotedAccounts = new Set(
    reportQuotes.flatMap((b) => (b.kind === 'quote' && b.source.account ? [b.source.account] : [])),
  );
  // Not when every quote is from one account, or none is linked to one: the table would break nothing down.
  if (named.length > 1 && (reportQuotes.length === 0 || quotedAccounts.size > 1))
    sections.push({
      heading: '### By account',
      lines: [
        named.length > 0
          ? `The evidence comes from conversations with ${list(named.slice(0, 6).map((n) => `**${n}**`))}${named.length > 6 ? ' and others' : ''}; the table counts the conversations per account.`
          : 'None of the conversations behind this evidence is linked to a CRM account.',
      ],
      blocks:
        byAccount.length > 0
          ? [
              tableBlock(
                'Conversations behind the evidence, by account',
                [
                  ['account_name', 'Account'],
                  ['count', 'Conversations'],
                ],
                byAccount,
                byAccountQuery,
              ),
            ]
          : [],
    });

  // When: the same conversations per quarter, when more than one quarter holds them.
  const trend = trendSection(ctx, windows, trendQuery, 'conversations behind the evidence');
  if (trend) sections.push(trend);

  // How many: the size and span of the evidence.
  const counts = rowsOf(ctx.results.get('r_counts'))[0];
  sections.push({
    heading: '### Counts',
    lines: [
      'How much this report rests on: the conversations behind the evidence, the accounts they involve and the span they cover.',
    ],
    blocks: counts
      ? [
          {
            kind: 'metric',
            // Bounded by the asked period, it says so: the quarters under "Over time" are not its parts.
            label: `Conversations behind the evidence${asked ? `, ${asked.phrase}` : ''}`,
            value: num(counts.count),
            column: 'count',
            query: countsQuery,
          },
          {
            kind: 'metric',
            label: 'Accounts they involve',
            value: num(counts.count_distinct_account_name),
            column: 'count_distinct_account_name',
            query: countsQuery,
          },
          tableBlock(
            'Span of the evidence',
            [
              ['min_occurred_at', 'Earliest'],
              ['max_occurred_at', 'Latest'],
            ],
            [counts],
            countsQuery,
          ),
        ]
      : [],
  });
  sections.push({
    heading: '### The conversations',
    lines: ['Every conversation the evidence above was read from is in the table.'],
    blocks: [
      tableBlock(
        'Conversations behind the evidence',
        [
          ['occurred_at', 'When'],
          ['kind', 'Kind'],
          ['title', 'Title'],
          ['account_name', 'Account'],
        ],
        rowsOf(ctx.results.get('r_sources')),
        sourcesQuery,
      ),
    ],
  });
  const lead = evidenceLead(
    counts,
    // An account brief reads the usual topics, not one the question asked: its answer is where things stand.
    intent.kind === 'account_brief' ? null : topic,
    account,
    [...chatQuotes.map((q) => q.text), ...onTopicCandidates.map((c) => c.text)],
    disagreements.length > 0,
    asked?.phrase ?? null,
  );
  const searched = [
    ...searchedWords(subject, facetWords),
    'the figures customers gave on it (discounts, seats, per-seat prices), to see whether they agree',
  ];
  return { ...done(sections, searched), lead };
}

/**
 * The answer first: what the evidence says, in one sentence, and what it rests on (the conversations
 * and accounts the Counts section's metrics hold), before the quotes it rests on.
 */
function evidenceLead(
  counts: Record<string, unknown> | undefined,
  /** The topic asked about; null for an account brief ('' for a question with no topic: no lead). */
  topic: string | null,
  account: string | null,
  texts: readonly string[],
  disagree: boolean,
  period: string | null,
): string | null {
  const conversations = num(counts?.count);
  if (topic === '' || conversations === null || conversations === 0) return null;
  if (topic === null && !account) return null;
  const accountCount = num(counts?.count_distinct_account_name);
  const words = topic ? mostRepeated(texts, topic, 3) : [];
  const says =
    topic === null
      ? `below is where things stand with **${account}**: its latest touchpoint, its open deals and what its people said`
      : words.length > 0
        ? `customers' remarks on ${topic} most often mention ${list(words.map((w) => `“${w}”`))}`
        : `customers raise ${topic} in their own words, with no word coming back across their remarks`;
  const disagreeing = disagree ? '; the figures they give do not agree (see where the sources disagree, below)' : '';
  const span = `**${conversations}** conversation${conversations === 1 ? '' : 's'}${
    accountCount ? ` with **${accountCount}** account${accountCount === 1 ? '' : 's'}` : ''
  }${period ? `, ${period}` : ''}`;
  return `**In short:** ${says}${disagreeing}. It rests on ${span}, quoted and counted below.`;
}

/** Words of spoken English too common to say what a remark is about. */
const COMMON = new Set(
  'that than this then there their they them what when where which while with would could should need needs want wants really honestly just also else look thing things point same part'.split(
    ' ',
  ),
);

/** The salient words most remarks hold (three at least), the topic's own aside, most held first. */
function mostRepeated(texts: readonly string[], topic: string, max: number): string[] {
  const skip = stemsOf(topic);
  const counts = new Map<string, { n: number; word: string }>();
  for (const text of new Set(texts)) {
    const seen = new Set<string>();
    for (const word of contentWords(text)) {
      const stem = stemWord(word);
      if (word.length < 4 || /\d/.test(word) || skip.has(stem) || seen.has(stem)) continue;
      if (!isSalient(stem) || isScaffoldWord(word) || COMMON.has(word)) continue;
      seen.add(stem);
      const entry = counts.get(stem) ?? { n: 0, word };
      entry.n++;
      counts.set(stem, entry);
    }
  }
  return [...counts.values()]
    .filter((e) => e.n >= 3)
    .sort((a, b) => b.n - a.n || a.word.localeCompare(b.word))
    .slice(0, max)
    .map((e) => e.word);
}

// ---- deal lists and totals ----------------------------------------------------------------------

function dealFacets(ctx: PolicyContext, intent: Extract<Intent, { kind: 'deals' }>, chat: AnswerDraft): Facets {
  const filters = intent.filters as unknown as Query[];
  const described = intent.described.length > 0 ? intent.described.join(', ') : 'in the pipeline';
  const byStageQuery: Query = {
    surface: 'deals',
    filters,
    group_by: ['stage'],
    metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }],
    order_by: { field: 'count', dir: 'desc' },
  };
  const byAccountQuery: Query = {
    surface: 'deals',
    filters,
    group_by: ['account_name'],
    metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }],
    order_by: { field: 'sum_amount', dir: 'desc' },
    limit: 50,
  };
  // Context: the same deals without their narrowest bounds (amount, close date, one account), by account,
  // so the report shows where the matching deals sit in the wider pipeline.
  const wider = intent.filters.filter((f) => !['amount', 'close_date', 'account_name'].includes(f.field));
  const widerDescribed = describeWider(wider);
  const contextQuery: Query | null =
    wider.length < intent.filters.length
      ? {
          surface: 'deals',
          filters: wider as unknown as Query[],
          group_by: ['account_name'],
          metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }],
          order_by: { field: 'sum_amount', dir: 'desc' },
          limit: 50,
        }
      : null;
  const idsQuery: Query = { surface: 'deals', filters, order_by: { field: 'amount', dir: 'desc' }, limit: MAX_IDS };
  const windows = quarters(ctx.today);
  const trendQuery = (w: Window): Query => ({
    surface: 'deals',
    filters: [
      ...filters,
      { field: 'occurred_at', op: 'gte', value: w.from },
      { field: 'occurred_at', op: 'lt', value: w.to },
    ],
    metrics: [{ fn: 'count' }, { fn: 'sum', field: 'amount' }],
  });
  const first = [
    ['r_by_stage', byStageQuery],
    ['r_by_account', byAccountQuery],
    ['r_deal_ids', idsQuery],
    ...(contextQuery ? [['r_context', contextQuery] as const] : []),
    ...windows.map((w, i) => [`r_trend_${i}`, trendQuery(w)] as const),
  ].filter(([purpose]) => !ctx.results.has(purpose as string)) as [string, Query][];
  if (first.length > 0) return pending(first.map(([purpose, query]) => call(ctx, purpose, query)));

  const byAccount = rowsOf(ctx.results.get('r_by_account'));
  const topAccounts = byAccount
    .map((r) => nameOf(r.account_name))
    .filter((n): n is string => n !== null)
    .slice(0, 3);
  const dealIds = rowsOf(ctx.results.get('r_deal_ids'))
    .map((r) => String(r.id))
    .filter(Boolean);
  const qualificationQuery: Query = {
    surface: 'deal_qualification',
    filters: [
      { field: 'deal_id', op: 'in', value: dealIds.length > 0 ? dealIds : ['00000000-0000-0000-0000-000000000000'] },
      { field: 'status', op: 'in', value: ['unknown', 'at_risk'] },
    ],
    group_by: ['criterion', 'status'],
    metrics: [{ fn: 'count' }],
    order_by: { field: 'count', dir: 'desc' },
  };
  const buyerQuery = (account: string): Query => ({
    query: `${account}: pricing, budget, timeline, decision, competitor`,
    mode: 'fuzzy',
    max_subqueries: 5,
    limit: 8,
  });
  const second = [
    ...(dealIds.length > 0 && !ctx.results.has('r_qualification')
      ? [call(ctx, 'r_qualification', qualificationQuery)]
      : []),
    ...topAccounts.flatMap((a, i) =>
      ctx.results.has(`r_buyers_${i}`) ? [] : [call(ctx, `r_buyers_${i}`, buyerQuery(a))],
    ),
  ];
  if (second.length > 0) return pending(second);

  const shown = new Set(chat.content_blocks.flatMap((b) => (b.kind === 'quote' ? [b.source.turn_id ?? b.text] : [])));
  const voices = distinctTurns(
    topAccounts.flatMap((_, i) => externalTurnsOf(rowsOf(ctx.results.get(`r_buyers_${i}`)), 4)),
  ).filter((c) => !shown.has(c.turnId));
  const quotes = voices
    .slice(0, NEW_QUOTES)
    .map((c) => quoteBlock(c, 'pricing budget timeline decision competitor', 'context'));
  const byStage = rowsOf(ctx.results.get('r_by_stage'));
  const qualification = rowsOf(ctx.results.get('r_qualification'));
  const contextRows = rowsOf(ctx.results.get('r_context'));
  const dealAccounts = byAccount.map((r) => nameOf(r.account_name)).filter((n): n is string => n !== null);
  const sections: (Section | null)[] = [
    themeSection(
      quotes,
      'pricing budget timeline decision competitor',
      'What the buyers on the largest of these deals said',
    ),
    // Who: only when the deals sit with more than one account, and the quotes are not all one account's.
    dealAccounts.length < 2 || (quotes.length > 0 && new Set(quotes.map((q) => q.source.account)).size < 2)
      ? null
      : {
          heading: '### By account',
          lines: [
            `The deals ${described} sit with ${list(topAccounts.map((n) => `**${n}**`))}${byAccount.length > topAccounts.length ? ' and others' : ''} first, by amount; the table has every account.`,
          ],
          blocks: [
            tableBlock(
              `Deals ${described}, by account`,
              [
                ['account_name', 'Account'],
                ['count', 'Deals'],
                ['sum_amount', 'Amount'],
              ],
              byAccount,
              byAccountQuery,
            ),
          ],
        },
    trendSection(ctx, windows, trendQuery, `deals ${described} created`),
    {
      heading: '### Counts',
      lines: [
        'The deals by stage, with their number and total amount:',
        // The wider pipeline these deals sit in, by account: context a breakdown of the few matching deals cannot give.
        ...(contextRows.length > 0
          ? [
              '',
              `For context, every deal ${widerDescribed}, by account, whatever its amount, close date or account, is in the last table.`,
            ]
          : []),
      ],
      blocks: [
        ...(byStage.length > 0
          ? [
              tableBlock(
                `Deals ${described}, by stage`,
                [
                  ['stage', 'Stage'],
                  ['count', 'Deals'],
                  ['sum_amount', 'Amount'],
                ],
                byStage,
                byStageQuery,
              ),
            ]
          : []),
        ...(contextQuery && contextRows.length > 0
          ? [
              tableBlock(
                `Every deal ${widerDescribed}, by account`,
                [
                  ['account_name', 'Account'],
                  ['count', 'Deals'],
                  ['sum_amount', 'Amount'],
                ],
                contextRows,
                contextQuery,
              ),
            ]
          : []),
      ],
    },
    {
      heading: '### Qualification gaps',
      lines: [
        qualification.length > 0
          ? 'The qualification criteria still unknown or at risk on these deals, by how many assessments say so:'
          : dealIds.length > 0
            ? 'No qualification criterion on these deals is recorded as unknown or at risk.'
            : 'There are no deals to read qualification for.',
      ],
      blocks:
        qualification.length > 0
          ? [
              tableBlock(
                'Qualification criteria unknown or at risk',
                [
                  ['criterion', 'Criterion'],
                  ['status', 'Status'],
                  ['count', 'Assessments'],
                ],
                qualification,
                qualificationQuery,
              ),
            ]
          : [],
    },
  ];
  return done(
    sections.filter((x): x is Section => x !== null),
    [
      `the deals ${described} grouped by stage, by account and by quarter created, with their qualification rows`,
      ...topAccounts.map((a) => `what the buyer side at ${a} said (searched by its words)`),
    ],
  );
}

// ---- sections ----------------------------------------------------------------------------------

/**
 * Evidence by theme: a theme is a word at least two of the quotes share (recurringWords), so every
 * heading is the customers' own word; quotes that share none are listed last.
 */
function themeSection(
  quotes: QuoteBlock[],
  topic: string,
  intro = 'More of what customers said, beyond the summary',
): Section {
  if (quotes.length === 0)
    return {
      heading: '### Evidence by theme',
      lines: ['The wider searches found no further customer remarks to quote.'],
      blocks: [],
    };
  const themes = recurringWords(
    quotes.map((q) => q.text),
    topic,
    4,
  );
  const lines = [`${intro}, grouped by the words that recur across the quotes:`];
  const placed = new Set<QuoteBlock>();
  for (const theme of themes) {
    const stem = stemWord(theme);
    const members = quotes.filter((q) => !placed.has(q) && stemsOf(q.text).has(stem)).slice(0, 4);
    if (members.length === 0) continue;
    lines.push('', `**“${theme}”**`);
    for (const q of members) {
      placed.add(q);
      lines.push(`- ${q.source.account ?? 'No linked account'}, ${q.source.speaker ?? 'a customer'}: “${q.text}”`);
    }
  }
  const rest = quotes.filter((q) => !placed.has(q));
  if (rest.length > 0) {
    lines.push('', themes.length > 0 ? '**Other remarks**' : '**What they said**');
    for (const q of rest)
      lines.push(`- ${q.source.account ?? 'No linked account'}, ${q.source.speaker ?? 'a customer'}: “${q.text}”`);
  }
  return { heading: '### Evidence by theme', lines, blocks: quotes };
}

interface Window {
  from: string;
  to: string;
  label: string;
}

/**
 * When: the records per quarter, oldest first. Only a breakdown the data has is shown: with fewer than
 * two quarters holding any, there is no trend to read and the section is left out (null).
 */
function trendSection(
  ctx: PolicyContext,
  windows: Window[],
  query: (w: Window) => Query,
  what: string,
): Section | null {
  const blocks: BlockDraft[] = [];
  const counts: (number | null)[] = [];
  windows.forEach((w, i) => {
    const row = rowsOf(ctx.results.get(`r_trend_${i}`))[0];
    const n = num(row?.count);
    counts.push(n);
    if (row)
      blocks.push({
        kind: 'metric',
        label: `${capitalize(what)}, ${w.label}`,
        value: n,
        column: 'count',
        query: query(w),
      });
  });
  const known = counts.filter((n): n is number => n !== null);
  if (known.filter((n) => n > 0).length < 2) return null;
  const latest = counts.at(-1);
  const earlier = counts.slice(0, -1).filter((n): n is number => n !== null);
  const direction =
    latest === null || latest === undefined
      ? `The current quarter (from ${windows.at(-1)!.from}) could not be read.`
      : latest > Math.max(...earlier)
        ? `The current quarter (from ${windows.at(-1)!.from}) has more ${what} than any of the three before it.`
        : latest === 0
          ? `The current quarter (from ${windows.at(-1)!.from}) has none of the ${what} yet.`
          : `The current quarter (from ${windows.at(-1)!.from}) has no more ${what} than the quarters before it.`;
  return {
    heading: '### Over time',
    lines: [`${capitalize(what)} per quarter, oldest first (metrics below). ${direction}`],
    blocks,
  };
}

function emptySection(subject: string): Section {
  return {
    heading: '### Evidence by theme',
    lines: [`The wider searches (by meaning and by words) found nothing more about ${subject}.`],
    blocks: [],
  };
}

/** The sectioned report: the chat answer as its summary, the facets, and what it rests on last. */
function report(chat: AnswerDraft, sections: Section[], searched: string[], lead: string | null): AnswerDraft {
  const at = chat.text.indexOf(RESTS_ON);
  const summary = (at >= 0 ? chat.text.slice(0, at) : chat.text).trim();
  const restsOn = at >= 0 ? chat.text.slice(at + RESTS_ON.length).trim() : '';
  // The coverage table belongs with "What this rests on"; every other chat block stays with the summary.
  const coverage = chat.content_blocks.filter((b) => b.kind === 'table' && (b.title ?? '').startsWith('What the '));
  const summaryBlocks = chat.content_blocks.filter((b) => !coverage.includes(b));
  const text = [
    '## Summary',
    ...(lead ? [lead, ''] : []),
    summary,
    ...sections.flatMap((s) => ['', s.heading, ...s.lines]),
    '',
    RESTS_ON,
    ...(restsOn ? [restsOn, ''] : []),
    'Beyond the searches behind the summary, this report read:',
    ...searched.map((s) => `- ${s}`),
  ].join('\n');
  return {
    text,
    content_blocks: [...summaryBlocks, ...sections.flatMap((s) => s.blocks), ...coverage].slice(0, 60),
    follow_ups: chat.follow_ups,
  };
}

// ---- small helpers -----------------------------------------------------------------------------

const pending = (toolCalls: ToolCall[]): Facets => ({ pending: toolCalls, sections: [], searched: [] });
const done = (sections: Section[], searched: string[]): Facets => ({ pending: [], sections, searched });

const searchedWords = (subject: string, words: readonly string[] = []): string[] => [
  `what customers said about ${subject}${words.length > 0 ? `, and about ${list(words.map((w) => `“${w}”`))} on ${words.length === 1 ? 'its' : 'their'} own` : ''}, by meaning (customer side only) and by words (calls, meetings, emails and posts)`,
  'the conversations that evidence came from: their accounts, their dates by quarter, their number and span',
];

/** The deal filters left once the narrow bounds are set aside, in words ("in negotiation, open"). */
function describeWider(filters: readonly { field: string; value: unknown }[]): string {
  const words = filters.map((f) => {
    if (f.field === 'is_closed') return f.value ? 'closed' : 'open';
    if (f.field === 'is_won') return f.value ? 'won' : 'not won';
    if (f.field === 'stage') return `in ${String(f.value)}`;
    return `with ${f.field.replace(/_/g, ' ')} ${String(f.value)}`;
  });
  return words.length > 0 ? words.join(', ') : 'in the pipeline';
}

/** The account a question is about, as the CRM names it when the chat plan resolved it. */
/** The ids of the accounts the workspace resolved the question's company to (none when it named none or none matched). */
function resolvedAccountIds(ctx: PolicyContext, intent: Intent): string[] {
  if (!('account' in intent) || !intent.account) return [];
  return (matchedAccounts(ctx.results.get('resolve'))[0]?.matched ?? []).map((a) => a.id);
}

function accountOf(ctx: PolicyContext, intent: Intent): string | null {
  if (!('account' in intent) || !intent.account) return null;
  return matchedAccounts(ctx.results.get('resolve'))[0]?.matched[0]?.name ?? intent.account;
}

function topicOf(ctx: PolicyContext, intent: Intent): string {
  if (intent.kind === 'voice' || intent.kind === 'segment_voice') return intent.topic;
  const words = topicWords(ctx.ask);
  if (words.length > 0) return words.join(' ');
  // An account brief reads the usual topics; a count ("how many calls in May?") has none to quote.
  return intent.kind === 'account_brief' ? 'pricing budget security renewal timeline' : '';
}

/** Quotes that share a content word with the topic, unless that leaves fewer than two. */
function onTopic(candidates: QuoteCandidate[], topic: string): QuoteCandidate[] {
  const wanted = [...stemsOf(topic)];
  if (wanted.length === 0) return candidates;
  const kept = candidates.filter((c) => {
    const have = stemsOf(c.text);
    return wanted.some((w) => have.has(w));
  });
  return kept.length >= 2 ? kept : candidates;
}

/** Content words of a topic worth a search of their own (four letters or more, not question scaffolding). */
function salientWords(topic: string): string[] {
  const skip = new Set([
    'them',
    'they',
    'their',
    'what',
    'which',
    'with',
    'from',
    'about',
    'does',
    'have',
    'that',
    'this',
    'come',
    'comes',
    'most',
    'more',
    'often',
    'anyone',
  ]);
  return [...new Set(topic.toLowerCase().match(/[a-z][a-z'-]{3,}/g) ?? [])].filter((w) => !skip.has(w));
}

const stemsOf = (text: string): Set<string> =>
  new Set((text.toLowerCase().match(/[a-z][a-z'-]{2,}/g) ?? []).map(stemWord));

function distinctTurns(candidates: QuoteCandidate[]): QuoteCandidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = c.turnId;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const distinct = (values: string[]): string[] => [...new Set(values.filter((v) => v && v !== 'undefined'))];
const nameOf = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const num = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'string' && v !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const list = (items: string[]): string =>
  items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** The last four calendar quarters up to today, oldest first, as [from, to) dates. */
function quarters(today: string): Window[] {
  const [y, m] = today.split('-').map(Number) as [number, number];
  const current = Date.UTC(y, Math.floor((m - 1) / 3) * 3, 1);
  const out: Window[] = [];
  for (let k = QUARTERS - 1; k >= 0; k--) {
    const start = new Date(current);
    start.setUTCMonth(start.getUTCMonth() - 3 * k);
    const end = new Date(start);
    end.setUTCMonth(end.getUTCMonth() + 3);
    const from = start.toISOString().slice(0, 10);
    const to = end.toISOString().slice(0, 10);
    out.push({ from, to, label: k === 0 ? `this quarter (from ${from})` : `the quarter from ${from}` });
  }
  return out;
}

/** The names of the accounts the workspace resolved the question's company to. */
function resolvedAccountNames(ctx: PolicyContext, intent: Intent): string[] {
  if (!('account' in intent) || !intent.account) return [];
  return (matchedAccounts(ctx.results.get('resolve'))[0]?.matched ?? []).map((a) => a.name);
}
