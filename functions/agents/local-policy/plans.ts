import type { StepResult } from '../../../platform/model/port.js';
import { INTERACTION_KINDS } from '../../../schema/warehouse-interactions.js';
import type { AnswerDraft, BlockDraft } from '../answer.js';
import { ASK_USER } from '../tool-names.js';
import { changesStep } from './shape-changes.js';
import { churnStep } from './shape-churn.js';
import { compareStep } from './shape-compare.js';
import { analysisStep, competitorsReading } from './shape-analysis.js';
import { lossesStep } from './shape-losses.js';
import { qualificationStep } from './shape-qualification.js';
import { quietStep } from './shape-quiet.js';
import { notUnderstood } from './shape-refusal.js';
import { voiceStep } from './shape-voice.js';
import { dealsStep } from './shape-deals.js';
import { call, calls, capitalize, finish, inPeriod, said, type Query } from './steps.js';
import { staleNote, whyEmpty } from './search-notes.js';
import { synonymsOf, withSynonyms } from './topic-synonyms.js';
import { matchedAccounts, rowsOf, searchNotes, type PolicyContext, type Result } from './context.js';
import {
  customerSaidOf,
  day,
  distinctStatements,
  externalTurnsOf,
  money,
  quoteBlock,
  semanticTurnsOf,
  tableBlock,
} from './evidence.js';
import { scopedQuery } from './search-scope.js';
import type { AskedPeriod } from '../../search/index.js';
import { mentionsTopic, requiredStems } from './shape-voice.js';
import { stemWord } from '../../../platform/model/local.js';
import type { Intent } from './intent.js';
import { topicWords } from './intent.js';
import { withCoverage, withDocument } from './coverage.js';

/**
 * What to do next for each kind of ask: the searches still missing, or the answer composed from the
 * searches' results. Every table and metric carries the exact request its cells came from; every
 * quote is cut verbatim from a turn a search returned; prose numbers come only from those cells.
 */

/** The request a result was produced by, read back from the transcript is not needed: each plan rebuilds it identically. */
const QUERIES = {
  resolve: (name: string): Query => ({ query: name, mode: 'fuzzy', limit: 1 }),
  recent: (account: string): Query => ({
    surface: 'interactions',
    filters: [{ field: 'account_name', op: 'eq', value: account }],
    order_by: { field: 'occurred_at', dir: 'desc' },
    limit: 5,
  }),
  openDeals: (account: string): Query => ({
    surface: 'deals',
    filters: [
      { field: 'account_name', op: 'eq', value: account },
      { field: 'is_closed', op: 'eq', value: false },
    ],
    order_by: { field: 'close_date', dir: 'asc' },
    limit: 10,
  }),
  /**
   * What one account's people said about a topic, by meaning: the semantic lane kept to the account
   * (and the asked period) inside its vector search, hybrid-ranked so an informative turn on the topic
   * outranks a short generic one. Beside the fuzzy `accountTopic` search, which finds the turns that
   * say the topic's words.
   */
  accountMeaning: (topic: string, account: string, period: AskedPeriod | null): Query =>
    scopedQuery(
      {
        query: topic,
        mode: 'semantic',
        ranking: 'hybrid',
        hydrate: true,
        audience: 'customer_voice',
        limit: 20,
        filters: [{ field: 'account_name', op: 'eq', value: account }],
      },
      { period },
    ),
  accountVoice: (account: string, period?: string): Query => ({
    query: `${account}: pricing, budget, security, renewal, timeline${period ? ` ${period}` : ''}`,
    mode: 'fuzzy',
    max_subqueries: 5,
    limit: 8,
  }),
  voice: (topic: string): Query => ({
    query: topic,
    mode: 'semantic',
    ranking: 'hybrid',
    hydrate: true,
    audience: 'customer_voice',
    limit: 8,
  }),
  accountsOf: (ids: string[]): Query => ({
    surface: 'interactions',
    filters: [{ field: 'id', op: 'in', value: ids }],
    limit: ids.length,
  }),
  fuzzy: (text: string): Query => ({ query: text, mode: 'fuzzy', limit: 8 }),
  /** Deeper than `fuzzy`: one account's conversations rank its name's mentions high, so the topic's turns need room. */
  accountTopic: (text: string): Query => ({ query: text, mode: 'fuzzy', limit: 20 }),
};

export function nextStep(ctx: PolicyContext, intent: Intent): StepResult {
  const searched = [...ctx.results.keys()].some((k) => !k.startsWith('vocab_'));
  if (ctx.mustFinish && !searched && intent.kind !== 'no_search') return finish(nothingYet(ctx));
  return withDocument(ctx, withCoverage(ctx, intent, intentStep(ctx, intent)));
}

function intentStep(ctx: PolicyContext, intent: Intent): StepResult {
  switch (intent.kind) {
    case 'no_search':
      return finish({
        text: "I can't search this workspace's calls, emails or CRM from this run: the search tool is not available to it (the agent's tool blocklist or the credential's scopes leave it out). So I have no evidence to answer with, and I won't guess.",
        content_blocks: [],
        follow_ups: [],
      });
    case 'account_brief':
    case 'account_topic':
      return accountStep(ctx, intent);
    case 'activity_count':
      return intent.account ? accountStep(ctx, intent) : activityStep(ctx, intent, null);
    case 'deals':
      return dealsStep(ctx, intent);
    case 'voice':
      return voiceStep(ctx, intent.topic, intent.period, intent.segment);
    case 'segment_voice':
      return segmentStep(ctx, intent.topic);
    case 'general':
      return generalStep(ctx, intent.question);
    case 'not_understood':
      return finish(notUnderstood(intent.understood, intent.missingField));
    case 'account_changes':
      return changesStep(ctx, intent);
    case 'qualification':
      return qualificationStep(ctx, intent);
    case 'quiet':
      return quietStep(ctx, intent);
    case 'losses':
      return lossesStep(ctx, intent);
    case 'competitors':
      return analysisStep(ctx, competitorsReading(intent.period, intent.name, intent.limit ?? null));
    case 'compare':
      return compareStep(ctx, intent);
    case 'churn':
      return churnStep(ctx, intent);
  }
}

// ---- accounts: resolve the name, ask or assume when it is ambiguous ----------------------------

type AccountIntent = Extract<Intent, { kind: 'account_brief' | 'account_topic' | 'activity_count' }>;

interface Resolution {
  name: string | null;
  /** How the name was settled, said in the answer when it was an assumption. */
  note: string | null;
}

function accountStep(ctx: PolicyContext, intent: AccountIntent): StepResult {
  const asked = intent.account ?? '';
  const resolved = ctx.results.get('resolve');
  if (!resolved) return ctx.mustFinish ? finish(nothingYet(ctx)) : calls(call(ctx, 'resolve', QUERIES.resolve(asked)));
  const matches = matchedAccounts(resolved)[0]?.matched ?? [];
  const reply = ctx.results.get('ask');
  let resolution: Resolution;
  if (matches.length === 0) {
    return finish({
      text: `I couldn't find an account called **${asked}** in this workspace's CRM, so I have nothing to ${intent.kind === 'account_brief' ? 'brief you on' : 'report'} for it. Check the spelling, or ask about the account by its full CRM name.`,
      content_blocks: [],
      follow_ups: ['Which accounts do we have calls with?'],
    });
  }
  const exact = matches.find((m) => m.name.toLowerCase() === asked.toLowerCase());
  if (exact || matches.length === 1) {
    resolution = { name: (exact ?? matches[0]!).name, note: null };
  } else if (reply?.ok) {
    const answer = reply.output as { answer?: string; option_id?: string | null };
    const chosen =
      matches.find((m) => m.id === answer.option_id) ??
      matches.find(
        (m) =>
          m.name.toLowerCase() ===
          String(answer.answer ?? '')
            .trim()
            .toLowerCase(),
      );
    resolution = { name: chosen?.name ?? String(answer.answer ?? '').trim(), note: null };
  } else if (ctx.mayAsk && !reply && !ctx.mustFinish) {
    return calls(
      call(
        ctx,
        'ask',
        {
          question: `"${asked}" matches ${matches.map((m) => m.name).join(' and ')} in your CRM. Which one do you mean?`,
          options: matches.map((m) => ({ id: m.id, label: m.name })),
        },
        ASK_USER,
      ),
    );
  } else {
    const [first, ...others] = matches;
    resolution = {
      name: first!.name,
      note: `I took "${asked}" to mean **${first!.name}**; ${others.map((o) => o.name).join(' and ')} also ${others.length === 1 ? 'matches' : 'match'}. Ask again with the full name for ${others.length === 1 ? 'it' : 'them'}.`,
    };
  }
  const name = resolution.name ?? asked;
  if (intent.kind === 'account_brief') return briefStep(ctx, name, resolution.note);
  if (intent.kind === 'account_topic') return accountTopicStep(ctx, intent, name, resolution.note);
  return activityStep(ctx, intent, { name, note: resolution.note });
}

// ---- a brief on one account ------------------------------------------------------------------

function briefStep(ctx: PolicyContext, account: string, note: string | null): StepResult {
  const recent = ctx.results.get('recent');
  const deals = ctx.results.get('deals');
  const voice = ctx.results.get('voice');
  if (!recent && !ctx.mustFinish) {
    return calls(
      call(ctx, 'recent', QUERIES.recent(account)),
      call(ctx, 'deals', QUERIES.openDeals(account)),
      call(ctx, 'voice', QUERIES.accountVoice(account)),
    );
  }
  const blocks: BlockDraft[] = [];
  const lines: string[] = [];
  if (note) lines.push(note, '');
  const recentRows = rowsOf(recent);
  const dealRows = rowsOf(deals);
  const quotes = externalTurnsOf(rowsOf(voice), 4).map((c) =>
    quoteBlock(c, 'pricing budget security renewal timeline concern', 'context'),
  );

  lines.push(`### Where things stand with ${account}`);
  if (recentRows.length === 0) {
    lines.push(
      `I found no calls, meetings, emails or posts with ${account} in this workspace. ${staleNote(recent)}`.trim(),
    );
  } else {
    const last = recentRows[0]!;
    lines.push(
      `The latest touchpoint is the ${String(last.kind)} **${String(last.title)}** on ${day(last.occurred_at) ?? 'an unknown date'}. The most recent interactions are in the table below.`,
    );
    blocks.push(
      tableBlock(
        `Recent interactions with ${account}`,
        [
          ['occurred_at', 'When'],
          ['kind', 'Kind'],
          ['title', 'Title'],
        ],
        recentRows,
        QUERIES.recent(account),
      ),
    );
  }
  if (dealRows.length === 0) {
    // No section for what is not there: one line says so (a section that only says it has nothing is unfinished).
    lines.push(
      '',
      deals?.ok
        ? `No open deals are recorded for ${account}.`
        : `I could not read ${account}'s deals: ${whyEmpty(deals)}.`,
    );
  } else {
    lines.push('', '### Open deals');
    for (const d of dealRows)
      lines.push(
        `- **${String(d.name)}**: ${String(d.stage)}${money(d.amount) ? `, ${money(d.amount)}` : ', amount unknown'}${day(d.close_date) ? `, closing ${day(d.close_date)}` : ''}`,
      );
    blocks.push(
      tableBlock(
        `Open deals with ${account}`,
        [
          ['name', 'Deal'],
          ['stage', 'Stage'],
          ['amount', 'Amount'],
          ['close_date', 'Close date'],
        ],
        dealRows,
        QUERIES.openDeals(account),
      ),
    );
  }
  lines.push('', '### What they said');
  if (quotes.length === 0) {
    lines.push(
      `I found no customer-side remarks from ${account} about pricing, budget, security, renewal or timelines in the transcripts, so the call should find out where they stand.`,
    );
  } else {
    lines.push(`In their own words, from recent conversations (customer side only):`);
    for (const q of quotes) lines.push(`> “${q.text}” — ${q.source.speaker ?? 'a customer'}`);
    blocks.push(...quotes);
  }
  if (ctx.mustFinish)
    lines.push('', '_I ran out of turns before every search finished; this brief may be incomplete._');
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: [
      `What are ${account}'s decision criteria and who signs off?`,
      dealRows.length > 0
        ? `What could push the open deal's close date?`
        : `Is there a new opportunity to open with ${account}?`,
      `Which concerns from the last call are still open?`,
      `What do other customers like ${account} say about pricing?`,
    ],
  });
}

// ---- one account, one topic, maybe a window ---------------------------------------------------

function accountTopicStep(
  ctx: PolicyContext,
  intent: Extract<Intent, { kind: 'account_topic' }>,
  account: string,
  note: string | null,
): StepResult {
  const named = intent.question.replace(new RegExp(escapeRegExp(matchedAsked(ctx) ?? account), 'i'), account);
  // A follow-up ("what did they say about pricing?") names the account only through the thread.
  const question = withSynonyms(named.toLowerCase().includes(account.toLowerCase()) ? named : `${account}: ${named}`);
  // Who is asked about is not what is asked about: the account's name, as asked and as resolved, is no topic word.
  const nameWords = new Set(
    [account, matchedAsked(ctx) ?? ''].flatMap((n) => n.toLowerCase().split(/\s+/)).filter(Boolean),
  );
  const topic =
    topicWords(intent.question)
      .filter((w) => !nameWords.has(w))
      .join(' ') || 'this';
  const found = ctx.results.get('topic');
  if (!found && !ctx.mustFinish)
    return calls(
      call(ctx, 'topic', QUERIES.accountTopic(question)),
      ...(topic === 'this' ? [] : [call(ctx, 'topic_meaning', QUERIES.accountMeaning(topic, account, intent.period))]),
    );
  const plan = planOf(found);
  const window = plan.date_phrase;
  // The customer's words that name the topic (or a word customers use for it), inside the window:
  // every matching turn and every email they wrote, not the first turn that matched the account's name.
  const required = [...new Set([...requiredStems(topic), ...synonymsOf(topic).map((w) => stemWord(w.toLowerCase()))])];
  const excerptTopic = [topic, ...synonymsOf(topic)].join(' ');
  // One quote per statement: the same sentence in several calls is said once (distinctStatements).
  // The turns found by meaning first (hybrid-ranked, already kept to the account and period), then the
  // ones found by their words; each must name the topic.
  const namesTopic = (text: string) => topic === 'this' || mentionsTopic(text, required);
  const byMeaning = semanticTurnsOf(rowsOf(ctx.results.get('topic_meaning')), 20).filter((c) => namesTopic(c.text));
  const byWords = customerSaidOf(
    rowsOf(found).filter((r) => inPeriod(r.occurred_at, intent.period)),
    namesTopic,
  );
  const seenTurns = new Set<string>();
  const inWindow = distinctStatements(
    [...byMeaning, ...byWords].filter((c) => !seenTurns.has(c.turnId) && Boolean(seenTurns.add(c.turnId))),
    excerptTopic,
  ).slice(0, 5);
  const widened = ctx.results.get('widen');
  if (rowsOf(found).length === 0 && window && !widened && !ctx.mustFinish) {
    const period = ctx.results.get('period');
    // The period asked for lies outside the data: ask which to use when the run may ask; else widen and say so.
    if (searchNotes(found).emptyReason === 'scope_disjoint' && ctx.mayAsk && !period) {
      const span = rowsOf(ctx.results.get('coverage'))[0];
      const held = span ? ` The data runs from ${day(span.min_occurred_at)} to ${day(span.max_occurred_at)}.` : '';
      return calls(
        call(
          ctx,
          'period',
          {
            question: `There is no data for "${window}".${held} Which period should I use?`,
            options: [{ id: 'all', label: 'All the data there is' }],
          },
          ASK_USER,
        ),
      );
    }
    const reply = period?.ok ? (period.output as { answer?: string; option_id?: string | null }) : null;
    const replacement = reply && reply.option_id !== 'all' && reply.answer ? reply.answer : ' ';
    return calls(
      call(
        ctx,
        'widen',
        QUERIES.accountTopic(
          question
            .replace(new RegExp(escapeRegExp(window), 'i'), replacement)
            .replace(/\s+/g, ' ')
            .trim(),
        ),
      ),
    );
  }
  const lines: string[] = [];
  if (note) lines.push(note, '');
  const blocks: BlockDraft[] = [];
  const matchedRows = rowsOf(found);
  if (inWindow.length > 0) {
    lines.push(
      `Here is what people at **${account}** said about ${topic}${window ? ` (${said(window)})` : ''}, verbatim from the transcripts:`,
    );
    for (const c of inWindow) {
      const q = quoteBlock(c, excerptTopic);
      lines.push(`> “${q.text}” — ${q.source.speaker ?? 'a customer'}`);
      blocks.push(q);
    }
    // The table is the search by words; quotes found by meaning alone may come from conversations it lacks.
    const tabled = new Set(matchedRows.map((r) => String(r.id)));
    if (matchedRows.length > 0) {
      lines.push(
        '',
        inWindow.every((c) => tabled.has(c.interactionId))
          ? `The conversations these come from are in the table.`
          : `The table lists the conversations that name the topic in their words.`,
      );
      blocks.push(
        tableBlock(
          `Interactions with ${account} about ${topic}`,
          [
            ['occurred_at', 'When'],
            ['kind', 'Kind'],
            ['title', 'Title'],
          ],
          matchedRows,
          QUERIES.accountTopic(question),
        ),
      );
    }
  } else if (matchedRows.length > 0) {
    // The topic came up (in titles or summaries) but nobody on the customer side said it in a transcript turn.
    lines.push(
      `No one on **${account}**'s side said anything about ${topic}${window ? ` ${said(window)}` : ''} in a transcript I can quote. The topic does come up in these interactions' titles or summaries (in the table), so they are the place to look.`,
    );
    blocks.push(
      tableBlock(
        `Interactions with ${account} about ${topic}`,
        [
          ['occurred_at', 'When'],
          ['kind', 'Kind'],
          ['title', 'Title'],
          ['summary', 'Summary'],
        ],
        matchedRows,
        QUERIES.accountTopic(question),
      ),
    );
  } else {
    lines.push(
      `I found nothing that people at **${account}** said about ${topic}${window ? ` ${said(window)}` : ''}: ${whyEmpty(found)}. ${staleNote(found)}`.trim(),
    );
    const outside = externalTurnsOf(rowsOf(widened), 3);
    if (outside.length > 0) {
      lines.push(
        '',
        ctx.results.get('period')?.ok ? `Over the period you chose, they said:` : `Outside that window, they did say:`,
      );
      for (const c of outside) {
        const q = quoteBlock(c, topic, 'context');
        lines.push(`> “${q.text}” — ${q.source.speaker ?? 'a customer'}`);
        blocks.push(q);
      }
    }
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: [`Prep me for my next call with ${account}`, `What do other customers say about ${topic}?`],
  });
}

// ---- counts of activity ------------------------------------------------------------------------

function activityStep(
  ctx: PolicyContext,
  intent: Extract<Intent, { kind: 'activity_count' }>,
  account: { name: string; note: string | null } | null,
): StepResult {
  const filters: Query[] = [];
  if (intent.interaction) filters.push({ field: 'kind', op: 'eq', value: intent.interaction });
  if (account) filters.push({ field: 'account_name', op: 'eq', value: account.name });
  if (intent.period)
    filters.push(
      { field: 'occurred_at', op: 'gte', value: intent.period.from },
      { field: 'occurred_at', op: 'lt', value: intent.period.to },
    );
  if (filters.length === 0) filters.push({ field: 'kind', op: 'in', value: [...INTERACTION_KINDS] });
  const countQuery: Query = { surface: 'interactions', filters, metrics: [{ fn: 'count' }] };
  const listQuery: Query = {
    surface: 'interactions',
    filters,
    order_by: { field: 'occurred_at', dir: 'desc' },
    limit: 10,
  };
  const counted = ctx.results.get('count');
  if (!counted && !ctx.mustFinish) {
    return calls(
      call(ctx, 'count', countQuery),
      call(ctx, 'list', listQuery),
      ...(account ? [call(ctx, 'voice', QUERIES.accountVoice(account.name, intent.period?.phrase))] : []),
    );
  }
  const n = rowsOf(counted)[0]?.count;
  const kinds = (one: boolean) =>
    intent.interaction
      ? `${intent.interaction}${one ? '' : 's'}`
      : one
        ? 'call, meeting, email or post'
        : 'calls, meetings, emails and posts';
  const scope = `${account ? ` with ${account.name}` : ''}${intent.period ? ` ${said(intent.period.phrase)}` : ''}`;
  const what = `${kinds(false)}${scope}`;
  const lines: string[] = account?.note ? [account.note, ''] : [];
  const blocks: BlockDraft[] = [];
  if (typeof n !== 'number') {
    lines.push(`I could not count the ${what}: ${whyEmpty(counted)}.`);
  } else {
    blocks.push({ kind: 'metric', label: capitalize(what), value: n, column: 'count', query: countQuery });
    // A word the count could not be narrowed by is said, never dropped in silence: this is a count of
    // every such conversation, not of those ("how many calls mentioned onboarding").
    const unplaced = intent.unplaced ?? [];
    if (unplaced.length > 0)
      lines.push(
        `I could not narrow this count by ${unplaced.map((w) => `"${w}"`).join(', ')}: it counts every one of the ${what}, not only those.`,
        '',
      );
    lines.push(
      n === 0
        ? `There were no ${what} in the workspace's data. ${staleNote(counted)}`.trim()
        : n === 1
          ? `There was **1** ${kinds(true)}${scope}.`
          : `There were **${n}** ${what}.`,
    );
    const rows = rowsOf(ctx.results.get('list'));
    if (rows.length > 0)
      blocks.push(
        tableBlock(
          `Most recent ${what}`,
          [
            ['occurred_at', 'When'],
            ['kind', 'Kind'],
            ['title', 'Title'],
            ['account_name', 'Account'],
          ],
          rows,
          listQuery,
        ),
      );
    const said = externalTurnsOf(
      rowsOf(ctx.results.get('voice')).filter((r) => inPeriod(r.occurred_at, intent.period)),
      2,
    ).map((c) => quoteBlock(c, 'pricing budget security renewal timeline', 'context'));
    if (account && said.length > 0) {
      lines.push('', `What people at ${account.name} said recently:`);
      for (const q of said) lines.push(`> “${q.text}” — ${q.source.speaker ?? 'a customer'}`);
      blocks.push(...said);
    }
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: account ? [`Prep me for my next call with ${account.name}`] : [],
  });
}

// ---- a segment with two readings ---------------------------------------------------------------

/** "Prospects" reads two ways in the data: accounts the CRM types as sales targets, or accounts whose deals are early. */
const PROSPECT_READINGS = {
  crm_type: { label: 'Accounts the CRM marks as prospects (sales targets)', phrase: 'with prospects' },
  early_deals: { label: 'Accounts with a deal still in the discovery stage', phrase: 'deals in discovery' },
} as const;
type Reading = keyof typeof PROSPECT_READINGS;

function segmentStep(ctx: PolicyContext, topic: string): StepResult {
  const reply = ctx.results.get('segment');
  if (!reply && ctx.mayAsk && !ctx.mustFinish) {
    return calls(
      call(
        ctx,
        'segment',
        {
          question: '"Prospects" can mean two different groups in your data. Which one do you mean?',
          options: Object.entries(PROSPECT_READINGS).map(([id, r]) => ({ id, label: r.label })),
        },
        ASK_USER,
      ),
    );
  }
  const chosen = reply?.ok ? (reply.output as { option_id?: string | null }).option_id : null;
  const reading: Reading = chosen === 'early_deals' ? 'early_deals' : 'crm_type';
  const note = reply
    ? null
    : `"Prospects" can mean two groups in the data; I took it to mean ${PROSPECT_READINGS.crm_type.label.toLowerCase()}, not ${PROSPECT_READINGS.early_deals.label.toLowerCase()}.`;
  const query = QUERIES.fuzzy(`${topic} ${PROSPECT_READINGS[reading].phrase}`);
  const found = ctx.results.get('segment_search');
  if (!found && !ctx.mustFinish) return calls(call(ctx, 'segment_search', query));
  const rows = rowsOf(found);
  const quotes = distinctStatements(externalTurnsOf(rows, 20), topic)
    .slice(0, 5)
    .map((c) => quoteBlock(c, topic));
  const lines: string[] = note ? [note, ''] : [];
  const group = PROSPECT_READINGS[reading].label.toLowerCase();
  const blocks: BlockDraft[] = [];
  if (rows.length === 0) {
    lines.push(`Nothing from ${group} matched ${topic}: ${whyEmpty(found)}.`);
  } else {
    lines.push(
      quotes.length > 0
        ? `What ${group} said about ${topic}, in their own words:`
        : `Conversations with ${group} touch on ${topic} (in the table), but nobody on their side said it in a transcript I can quote.`,
    );
    for (const q of quotes)
      lines.push(`- **${q.source.account ?? 'No linked account'}**, ${q.source.speaker ?? 'a customer'}: “${q.text}”`);
    blocks.push(
      ...quotes,
      tableBlock(
        `Conversations with ${group} about ${topic}`,
        [
          ['occurred_at', 'When'],
          ['kind', 'Kind'],
          ['title', 'Title'],
          ['account_name', 'Account'],
        ],
        rows,
        query,
      ),
    );
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: blocks,
    follow_ups: [`What do existing customers say about ${topic}?`],
  });
}

// ---- anything else ----------------------------------------------------------------------------

function generalStep(ctx: PolicyContext, question: string): StepResult {
  const query = QUERIES.fuzzy(question);
  const found = ctx.results.get('search');
  if (!found && !ctx.mustFinish) return calls(call(ctx, 'search', query));
  const rows = rowsOf(found);
  const topic = topicWords(question).join(' ');
  // Rows that match none of the ask's words (only its period, say) answer nothing: say what was understood instead.
  if (rows.length === 0 || topic === '') return finish(notUnderstood([], null));
  const quotes = externalTurnsOf(rows, 4).map((c) => quoteBlock(c, topic, 'context'));
  const lines = [`These calls, meetings, emails and posts match best (most relevant first):`, ''];
  for (const r of rows.slice(0, 8))
    lines.push(
      `- ${day(r.occurred_at) ?? ''} ${String(r.kind)} **${String(r.title)}**${r.account_name ? ` (${String(r.account_name)})` : ''}`,
    );
  if (quotes.length > 0) {
    lines.push('', 'What customers said in them:');
    for (const q of quotes) lines.push(`> “${q.text}” — ${q.source.speaker ?? 'a customer'}`);
  }
  return finish({
    text: lines.join('\n'),
    content_blocks: [
      tableBlock(
        'Matching interactions',
        [
          ['occurred_at', 'When'],
          ['kind', 'Kind'],
          ['title', 'Title'],
          ['account_name', 'Account'],
        ],
        rows,
        query,
      ),
      ...quotes,
    ],
    follow_ups: [],
  });
}

// ---- small helpers -----------------------------------------------------------------------------

function nothingYet(ctx: PolicyContext): AnswerDraft {
  return {
    text: `I ran out of turns before I could search for an answer to "${ctx.ask}". Ask again with a larger budget (depth standard or deep).`,
    content_blocks: [],
    follow_ups: [],
  };
}

function planOf(result: Result | undefined): { date_phrase: string | null } {
  if (!result?.ok) return { date_phrase: null };
  const plan = (result.output as { detail?: { internal?: { plan?: { date_phrase?: string | null } } } }).detail
    ?.internal?.plan;
  return { date_phrase: plan?.date_phrase ?? null };
}

/** The company name as the user wrote it (the first one the resolve step looked up). */
function matchedAsked(ctx: PolicyContext): string | null {
  return matchedAccounts(ctx.results.get('resolve'))[0]?.asked ?? null;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
