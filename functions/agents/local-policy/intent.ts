import { DEAL_STAGES } from '../../../schema/index.js';
import type { InteractionKind } from '../../../schema/warehouse-interactions.js';
import { linkEntities, type Entities } from '../understanding/entities.js';
import { isScaffoldWord, withoutScaffold } from '../understanding/question-words.js';
import { asksForQuiet, parseAskedPeriod, type AskedPeriod } from '../../search/index.js';
import type { Vocabulary } from '../understanding/vocabulary.js';
import { planLocally } from '../../search/index.js';
import { readDeals, type DealAsk } from './intent-deals.js';
import { unplacedWords } from '../understanding/reader.js';

/**
 * Reading the ask: which shape of question it is, what it names (linked against the workspace's
 * vocabulary, see understanding/entities.ts) and the period it asks about (search/asked-period.ts, shared with the search lanes).
 * A follow-up ("And which of those close this quarter?", "What did they say about pricing?")
 * borrows what it leaves out from the thread's earlier asks.
 */

export type Intent =
  | { kind: 'no_search' }
  | { kind: 'not_understood'; understood: string[]; missingField: string | null }
  | { kind: 'account_brief'; account: string }
  | { kind: 'account_topic'; account: string; question: string; period: AskedPeriod | null }
  | { kind: 'account_changes'; account: string; period: AskedPeriod }
  | {
      kind: 'activity_count';
      account: string | null;
      interaction: InteractionKind | null;
      period: AskedPeriod | null;
      /** Words of the ask nothing placed: the count is not narrowed by them, and the answer says so. */
      unplaced?: string[];
    }
  | ({ kind: 'deals' } & DealAsk)
  | {
      kind: 'qualification';
      criterion: 'champion' | 'economic_buyer';
      accounts: string[];
      deals: string[];
      status: string | null;
    }
  | { kind: 'quiet'; target: 'deals' | 'accounts'; period: AskedPeriod; owner: string | null }
  /** `filters`: other deal filters the reader gave (an owner, a region, a stage), on the deals surface. */
  | {
      kind: 'losses';
      period: AskedPeriod | null;
      accounts: string[];
      deals: string[];
      filters?: { field: string; op: string; value: unknown }[];
    }
  /** Answered by the competitors analysis, whose accounts-and-deals table says which accounts mentioned them. */
  | { kind: 'competitors'; period: AskedPeriod | null; name: string | null; limit?: number }
  | {
      kind: 'compare';
      periods: AskedPeriod[];
      regions: string[];
      subject: 'won' | 'lost' | 'pipeline' | InteractionKind | 'interactions';
    }
  | { kind: 'churn'; account: string | null }
  /** `segment`: the filters the question's segment words give (a region, an industry, a deal stage), for the semantic lane. */
  | { kind: 'voice'; topic: string; period: AskedPeriod | null; segment: SegmentFilter[] }
  /** What a segment with two readings in the data says ("prospects": the CRM's type, or deals still early). */
  | { kind: 'segment_voice'; topic: string; segment: 'prospects' }
  | { kind: 'general'; question: string };

export type { DealFilter } from './intent-deals.js';

const CROWD = /\b(customers?|buyers?|prospects?|clients?|people|anyone|everyone|users|accounts)\b/i;
const CROWD_WORDS = new RegExp(CROWD.source, 'gi');
/** The account is an example of the crowd, not where it speaks ("other customers like Acme"). */
const LIKE_AN_ACCOUNT = /\b(like|such as|similar to|other|others)\b/i;
const BRIEF =
  /\b(prep(are)?|brief|briefing|get me ready|going on with|status of|update on|catch me up|overview of|before my (call|meeting)|tell me about)\b/i;
const CHANGES = /\b(what('s| has| have)? changed|changes|what('s| is) new|anything new|what happened|happening)\b/i;
const COUNT = /\bhow many\b|\bnumber of\b|\bcount of\b/i;
const DEALS = /\b(deals?|pipeline|opportunit(y|ies)|closing|close this|close next|won|lost|lose|losing|booked)\b/i;
const VOICE =
  /\b(objections?|push ?back|pushing back|worr(y|ied|ies)|complain\w*|concerns?|say(ing)?|said|feel|think|ask(ing|ed)? (for|about)|mention\w*|pain points?|feedback|themes?)\b/i;
const FOLLOW_UP = /^\s*(and|also|what about|how about|same for|ok|okay|then|so)\b/i;
const REFERS_BACK =
  /\b(they|them|their|theirs|those|these|that account|this account|that deal|that customer|of those|it)\b/i;
const QUALIFICATION =
  /\b(champions?|economic buyers?|decision[- ]makers?|who signs|signs? off|sign-?off|meddpicc|qualification)\b/i;
const CHURN = /\bchurn\w*|\bat risk of (leaving|losing)|\brisk of losing\b|\brenewal risk\b/i;
const COMPETITION = /\bcompetit\w*|\brivals?\b/i;
/** An item of an earlier ranking referred to by its place in it. */
const BY_ITS_PLACE = /\b(?:the )?(?:top|first|leading|number one|no\.? ?1|#1)(?: one)?\b/i;
/** "Which accounts mentioned Pipewell?", "who brought them up?": the accounts behind the mentions, not quotes. */
const WHICH_ACCOUNTS = /\b(which|what) (accounts?|customers?|companies|clients|buyers)\b|\bwho\b/i;
const MENTIONED =
  /\b(mention\w*|brought up|bring (it|them) up|br(ing|ought) up|name[sd]?|talk(ed|s)? about|compar\w*|rais\w*)\b/i;
const LOSSES = /\bwhy\b.*\b(lose|lost|losing)\b|\bloss reasons?\b|\breasons? (we|for) (lost|losing|loss)/i;
const COMPARE = /\bcompar\w*|\bvs\.?\s|\bversus\b/i;
const OFTEN = /\bhow (often|many times|frequently)\b|\bmentions? of\b/i;

/** Asks this model cannot act on or has no data for, with the field a data answer would need. */
const OUT_OF_SCOPE =
  /\b(weather|forecast for|stock price|book (a|the|me)|schedule (a|the)|send (a|an|the)|draft (a|an)|remind me|translate|write (a|an) (poem|song|joke)|tell me a joke)\b/i;
const MISSING_FIELDS: [RegExp, string][] = [
  [
    /\b(nrr|net revenue retention|net retention|gross retention|grr)\b/i,
    'revenue by customer over time (no ARR or retention field)',
  ],
  [
    /\b(arr|mrr|annual recurring revenue|monthly recurring revenue)\b/i,
    'recurring revenue (deals hold one amount, no ARR field)',
  ],
  [/\b(nps|csat|satisfaction score)\b/i, 'survey scores (no NPS or CSAT field)'],
  [/\b(quota|attainment)\b/i, 'quotas (no quota field for members)'],
  [/\b(margin|profit|cost of goods)\b/i, 'costs and margins (no cost field)'],
];

export interface AskContext {
  ask: string;
  earlierAsks: readonly string[];
  today: string;
}

export function readIntent(ctx: AskContext, vocab: Vocabulary): Intent {
  const previous = ctx.earlierAsks.at(-1) ?? null;
  const own = linkEntities(ctx.ask.trim(), vocab);
  const followUp = previous !== null && (FOLLOW_UP.test(ctx.ask) || REFERS_BACK.test(ctx.ask));
  const carried = followUp ? carryFrom(ctx.earlierAsks, vocab) : null;
  const entities: Entities =
    carried && own.accounts.length === 0 && own.owners.length === 0
      ? {
          ...own,
          accounts: carried.accounts,
          owners: carried.owners,
          deals: own.deals.length ? own.deals : carried.deals,
        }
      : own;
  const one = readOne(ctx.ask, entities, ctx.today);
  const read: Intent =
    one.kind === 'activity_count' ? { ...one, unplaced: unplacedWords(ctx.ask, ctx.today, vocab) } : one;
  if (!followUp || !previous) return read;
  const before = readOne(previous, linkEntities(previous, vocab), ctx.today);
  // "And which accounts mentioned the top one?" after a competitor ranking: the accounts behind its mentions.
  // One of the ranking named by its place ("the top one", "the first", "number one") is that competitor alone.
  if (before.kind === 'competitors' && WHICH_ACCOUNTS.test(ctx.ask) && read.kind !== 'competitors')
    return {
      ...before,
      period: parseAskedPeriod(ctx.ask, ctx.today) ?? before.period,
      ...(BY_ITS_PLACE.test(ctx.ask) ? { limit: 1 } : {}),
    };
  // "And which of those close this quarter?", "And what is the total?": the earlier deal ask's filters, narrowed.
  if (before.kind !== 'deals') return read;
  const intent: Intent =
    read.kind === 'general' || read.kind === 'voice' || read.kind === 'not_understood'
      ? { kind: 'deals', ...readDeals(ctx.ask, entities, parseAskedPeriod(ctx.ask, ctx.today), ctx.today) }
      : read;
  if (intent.kind !== 'deals') return intent;
  const fields = new Set(intent.filters.map((f) => f.field));
  return {
    ...intent,
    filters: [...before.filters.filter((f) => !fields.has(f.field)), ...intent.filters],
    described: [...before.described, ...intent.described.filter((d) => !before.described.includes(d))],
  };
}

/** The accounts, owners and deals the latest earlier ask that named any of them named. */
function carryFrom(asks: readonly string[], vocab: Vocabulary): Entities | null {
  for (let i = asks.length - 1; i >= 0; i--) {
    const e = linkEntities(asks[i] ?? '', vocab);
    if (e.accounts.length > 0 || e.owners.length > 0 || e.deals.length > 0) return e;
  }
  return null;
}

const single = (e: Entities): string | null => {
  const a = e.accounts[0];
  if (!a) return null;
  return a.matches.length === 1 ? a.matches[0]! : a.asked;
};

function readOne(ask: string, e: Entities, today: string): Intent {
  const period = parseAskedPeriod(ask, today);
  const account = single(e);
  const understood = understoodParts(e, period);

  const missing = MISSING_FIELDS.find(([pattern]) => pattern.test(ask));
  if (missing) return { kind: 'not_understood', understood, missingField: missing[1] };
  if (OUT_OF_SCOPE.test(ask)) return { kind: 'not_understood', understood, missingField: null };

  if (QUALIFICATION.test(ask) && !/\b(worr|leav|say|said|talk)/i.test(ask)) {
    const criterion = /econom|decision|signs?|sign-?off/i.test(ask) ? 'economic_buyer' : 'champion';
    const status = /\b(no|not|without|missing|unknown|unclear)\b/i.test(ask)
      ? 'unknown'
      : /\bat risk|risky|weak\b/i.test(ask)
        ? 'at_risk'
        : null;
    return { kind: 'qualification', criterion, accounts: e.accounts.flatMap((a) => a.matches), deals: e.deals, status };
  }
  if (CHURN.test(ask)) return { kind: 'churn', account };
  if (LOSSES.test(ask))
    return { kind: 'losses', period, accounts: e.accounts.flatMap((a) => a.matches), deals: e.deals };
  if (asksForQuiet(ask) && period)
    return {
      kind: 'quiet',
      target: /\b(accounts?|customers?|clients?)\b/i.test(ask) && !/\bdeals?\b/i.test(ask) ? 'accounts' : 'deals',
      period,
      owner: e.owners[0]?.email ?? null,
    };
  if (WHICH_ACCOUNTS.test(ask) && MENTIONED.test(ask) && !account) {
    const name = unknownName(ask, e);
    if (name) return { kind: 'competitors', period, name };
  }
  if (COMPETITION.test(ask) && !account) return { kind: 'competitors', period, name: null };
  if (OFTEN.test(ask) && !account) {
    const name = unknownName(ask, e);
    if (name) return { kind: 'competitors', period, name };
  }
  if (COMPARE.test(ask)) {
    const periods = bothPeriods(ask, today);
    const subject = /\bwon|wins?\b/i.test(ask)
      ? 'won'
      : /\blost|loss(es)?\b/i.test(ask)
        ? 'lost'
        : /\b(pipeline|deals?)\b/i.test(ask)
          ? 'pipeline'
          : /\bcalls?\b/i.test(ask)
            ? 'call'
            : /\bmeetings?\b/i.test(ask)
              ? 'meeting'
              : /\bemails?\b/i.test(ask)
                ? 'email'
                : 'interactions';
    if (periods.length === 2 || e.regions.length === 2)
      return { kind: 'compare', periods, regions: e.regions, subject };
  }
  if (account && CHANGES.test(ask))
    return { kind: 'account_changes', account, period: period ?? parseAskedPeriod('recently', today)! };
  if (DEALS.test(ask) && !VOICE.test(ask.replace(/\bsay\b/gi, '')))
    return { kind: 'deals', ...readDeals(ask, e, period, today) };
  if (COUNT.test(ask)) {
    const plan = planLocally({ query: ask, max_subqueries: 1, now: `${today}T12:00:00.000Z` });
    const kinds = plan.subqueries[0]?.kinds ?? [];
    return {
      kind: 'activity_count',
      account,
      interaction: kinds.length === 1 ? kinds[0]! : null,
      period,
    };
  }
  if (account && (BRIEF.test(ask) || topicWords(e.normalized, e).length === 0))
    return { kind: 'account_brief', account };
  if (account && !CROWD.test(ask)) return { kind: 'account_topic', account, question: clean(e.normalized), period };
  // "What customers said about ES2011c Design decide screen usage": the crowd is that account's
  // people, so the account is searched and the rest is the topic (its name never becomes a topic
  // word). "Customers like Acme" and "which customers mentioned Acme" stay questions about the crowd.
  if (account && VOICE.test(ask) && !LIKE_AN_ACCOUNT.test(ask) && !(WHICH_ACCOUNTS.test(ask) && MENTIONED.test(ask)))
    return { kind: 'account_topic', account, question: clean(e.normalized.replace(CROWD_WORDS, ' ')), period };
  if (BRIEF.test(ask)) {
    // A brief on a name the vocabulary does not hold: the account step says it found no such account.
    const named = /\b(?:with|on|for|about)\s+((?:\p{Lu}[\p{L}\p{N}&'-]*\s?)+)/u.exec(ask)?.[1]?.trim();
    if (named) return { kind: 'account_brief', account: named };
  }
  // Who spoke (a region, an industry, deals at a stage) narrows the search; it is never the topic. A
  // segment named beside "prospects" says which prospects, so there is nothing to ask.
  const segment = segmentOf(ask, e);
  if (/\bprospects?\b/i.test(ask) && (VOICE.test(ask) || CROWD.test(ask)) && segment.length === 0)
    return {
      kind: 'segment_voice',
      topic: voiceTopic(withoutAccounts(ask.replace(/\bprospects?\b/gi, ' '), e)),
      segment: 'prospects',
    };
  if (
    VOICE.test(ask) ||
    CROWD.test(ask) ||
    /^\s*(why|any)\b/i.test(ask) ||
    (segment.length > 0 && /\bprospects?\b/i.test(ask))
  ) {
    const topic = voiceTopic(withoutSegment(withoutAccounts(withoutPeriod(ask, period), e), segment));
    return { kind: 'voice', topic, period, segment: segment.map(({ words: _w, ...f }) => f) };
  }
  return { kind: 'general', question: clean(e.normalized) };
}

export interface SegmentFilter {
  field: 'account_region' | 'account_industry' | 'deal_stage';
  op: 'in';
  value: string[];
}

const STAGE_WORD = new RegExp(`\\b(${DEAL_STAGES.map((s) => s.replace('_', ' ')).join('|')})\\b`, 'gi');

/** The segment a voice question names, with the words it was read from. */
function segmentOf(ask: string, e: Entities): (SegmentFilter & { words: RegExp })[] {
  const out: (SegmentFilter & { words: RegExp })[] = [];
  const words = (names: string[]) =>
    new RegExp(`\\b(?:${names.map(escapeRegExp).join('|')})(?:ns?|s)?(?:-industry)?\\b`, 'gi');
  if (e.regions.length > 0) out.push({ field: 'account_region', op: 'in', value: e.regions, words: words(e.regions) });
  if (e.industries.length > 0)
    out.push({ field: 'account_industry', op: 'in', value: e.industries, words: words(e.industries) });
  const stages = [...new Set([...ask.matchAll(STAGE_WORD)].map((m) => m[1]!.toLowerCase().replace(' ', '_')))];
  if (stages.length > 0) out.push({ field: 'deal_stage', op: 'in', value: stages, words: STAGE_WORD });
  return out;
}

const withoutSegment = (ask: string, segment: { words: RegExp }[]): string =>
  segment.reduce((text, s) => text.replace(s.words, ' '), ask);

/** What the ask was read as, in words, for an answer that could not use it. */
function understoodParts(e: Entities, period: AskedPeriod | null): string[] {
  const parts: string[] = [];
  for (const a of e.accounts) parts.push(`the account ${a.matches.join(' or ')}`);
  for (const o of e.owners) parts.push(`the deal owner ${o.name ?? o.email}`);
  // As the question wrote it: the verifier reads the asked period's digits as the question's, not as figures.
  if (period) parts.push(`the period "${period.phrase}"`);
  return parts;
}

/** Two periods a comparison names ("this year vs last year"), each read on its own side. */
function bothPeriods(ask: string, today: string): AskedPeriod[] {
  const sides = ask.split(/\s+(?:vs\.?|versus|and|with|to|against)\s+/i);
  const found: AskedPeriod[] = [];
  for (const side of sides) {
    const p = parseAskedPeriod(side, today);
    if (p && !found.some((f) => f.from === p.from && f.to === p.to)) found.push(p);
  }
  return found.slice(0, 2);
}

/** A capitalised word the vocabulary does not hold and that is no question word: a competitor or product named. */
function unknownName(ask: string, e: Entities): string | null {
  const m = [...ask.matchAll(/(?<!^)\b(\p{Lu}[\p{L}\p{N}]+(?:\s\p{Lu}[\p{L}\p{N}]+)?)/gu)].map((x) => x[1]!);
  const known = new Set(e.accounts.map((a) => a.asked.toLowerCase()));
  return (
    m.find((w) => !known.has(w.toLowerCase()) && !/^(How|What|Which|Who|Why|When|Did|Do|Does|Is|Are)$/.test(w)) ?? null
  );
}

const clean = (s: string): string =>
  s
    .replace(/\s+/g, ' ')
    .replace(/[\s.!?]+$/, '')
    .trim();
const withoutPeriod = (ask: string, p: AskedPeriod | null): string => (p ? ask.replace(p.phrase, ' ') : ask);
/** The ask without the account names linked in it: a name is who spoke, never what they spoke about. */
const withoutAccounts = (ask: string, e: Entities): string =>
  e.accounts.reduce((text, a) => text.replace(new RegExp(escapeRegExp(a.asked), 'gi'), ' '), ask);
const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The subject of a voice question, without its scaffolding ("why do customers push back on pricing?" → "push back pricing"). */
export function voiceTopic(ask: string): string {
  return withoutScaffold(ask) || ask.trim();
}

/** Content words of an ask once its linked names, kinds and scaffolding are set aside. */
export function topicWords(ask: string, e?: Entities): string[] {
  // The period is not the topic ("renewal in the past two weeks" is about renewal): its phrase goes
  // first. Which days it names does not matter here, so any today will do.
  const plan = planLocally({
    query: withoutPeriod(ask, parseAskedPeriod(ask, '2000-01-01')),
    max_subqueries: 5,
    now: '2000-01-01T00:00:00.000Z',
  });
  const named = new Set(
    [...(plan.subqueries[0]?.accounts ?? []), ...(e?.accounts.flatMap((a) => [...a.matches, a.asked]) ?? [])].flatMap(
      (a) => a.toLowerCase().split(/\s+/),
    ),
  );
  return [...new Set(plan.subqueries.flatMap((s) => s.terms))].filter((t) => !named.has(t) && !isScaffoldWord(t));
}
