import { planLocally } from '../../search/fuzzy-plan.js';
import type { InteractionKind } from '../../../schema/warehouse-interactions.js';

/**
 * Reading the ask: what kind of question it is and what it names. Rules, not guesses: the fuzzy
 * planner already extracts companies, date windows and interaction kinds; this adds the few
 * shapes a sales team's questions take (a brief on an account, what customers say, deal lists and
 * totals, activity counts).
 */

export type Intent =
  | { kind: 'no_search' }
  | { kind: 'account_brief'; account: string }
  | { kind: 'account_topic'; account: string }
  | {
      kind: 'activity_count';
      account: string | null;
      interaction: InteractionKind | null;
      since: string | null;
      until: string | null;
      windowPhrase: string | null;
    }
  | { kind: 'deals'; want: 'list' | 'count' | 'sum'; filters: DealFilter[]; described: string[] }
  | { kind: 'voice'; topic: string }
  /** What a segment with two readings in the data says ("prospects": the CRM's type, or deals still early). */
  | { kind: 'segment_voice'; topic: string; segment: 'prospects' }
  | { kind: 'general' };

export interface DealFilter {
  field: string;
  op: 'eq' | 'gt' | 'gte' | 'lt' | 'lte';
  value: string | number | boolean;
}

/** People words: an ask about them is about customers in general, not one account. */
const CROWD = /\b(customers?|buyers?|prospects?|clients?|people|anyone|everyone|users|accounts)\b/i;
const BRIEF =
  /\b(prep(are)?|brief|briefing|get me ready|going on with|status of|update on|catch me up|overview of|before my (call|meeting))\b/i;
const COUNT = /\bhow many\b|\bnumber of\b|\bcount of\b/i;
const SUM = /\b(total|sum|how much)\b/i;
const DEALS = /\b(deals?|pipeline|opportunit(y|ies))\b/i;
const VOICE =
  /\b(why|objections?|push ?back|pushing back|worr(y|ied|ies)|complain\w*|concerns?|say(ing)?|said|feel|think|ask(ing)? (for|about)|come up|mention\w*|pain points?|feedback|themes?)\b/i;
const FOLLOW_UP = /^\s*(and|also|what about|how about|same for)\b/i;

const STAGES = ['prospecting', 'discovery', 'evaluation', 'proposal', 'negotiation'] as const;

export function readIntent(ask: string, earlierAsks: readonly string[], today: string, canSearch: boolean): Intent {
  if (!canSearch) return { kind: 'no_search' };
  const named = companiesNamed(ask, today);
  const carried = named ?? (FOLLOW_UP.test(ask) ? lastCompany(earlierAsks, today) : null);

  if (DEALS.test(ask) && !VOICE.test(ask.replace(/\bsay\b/gi, ''))) return readDeals(ask, named, today);
  if (COUNT.test(ask)) {
    const plan = planLocally({ query: ask, max_subqueries: 1, now: `${today}T12:00:00.000Z` });
    const sub = plan.subqueries[0];
    return {
      kind: 'activity_count',
      account: carried,
      interaction: sub?.kinds.length === 1 ? (sub.kinds[0] ?? null) : null,
      since: sub?.since ?? null,
      until: sub?.until ?? null,
      windowPhrase: plan.date_phrase,
    };
  }
  if (carried && BRIEF.test(ask)) return { kind: 'account_brief', account: carried };
  if (carried && !CROWD.test(ask))
    return topicWords(ask).length > 0
      ? { kind: 'account_topic', account: carried }
      : { kind: 'account_brief', account: carried };
  if (/\bprospects?\b/i.test(ask) && (VOICE.test(ask) || CROWD.test(ask)))
    return { kind: 'segment_voice', topic: voiceTopic(ask.replace(/\bprospects?\b/gi, ' ')), segment: 'prospects' };
  if (VOICE.test(ask) || CROWD.test(ask)) return { kind: 'voice', topic: voiceTopic(ask) };
  return { kind: 'general' };
}

/** The first company the ask names (as the fuzzy planner reads it), or null. */
export function companiesNamed(text: string, today: string): string | null {
  const plan = planLocally({ query: text, max_subqueries: 1, now: `${today}T12:00:00.000Z` });
  return plan.subqueries[0]?.accounts[0] ?? null;
}

function lastCompany(asks: readonly string[], today: string): string | null {
  for (let i = asks.length - 1; i >= 0; i--) {
    const name = companiesNamed(asks[i] ?? '', today);
    if (name) return name;
  }
  return null;
}

const QUESTION_SCAFFOLD =
  /\b(why|what|which|who|how|do|does|did|are|is|were|was|the|a|an|our|we|us|top|main|most|customers?|buyers?|prospects?|clients?|people|anyone|everyone|say|saying|said|tell|telling|think|feel|about|regarding|on|in|of|to|with|come|comes|coming|up|calls?|meetings?|emails?|posts|conversations?)\b/gi;

/** The subject of a voice question, without its scaffolding ("why do customers push back on pricing?" → "push back pricing"). */
export function voiceTopic(ask: string): string {
  const topic = ask.replace(/[?!.]/g, ' ').replace(QUESTION_SCAFFOLD, ' ').replace(/\s+/g, ' ').trim();
  return topic || ask.trim();
}

/** Content words of an ask once its company, kinds and scaffolding are set aside. */
export function topicWords(ask: string): string[] {
  const plan = planLocally({ query: ask, max_subqueries: 5, now: '2000-01-01T00:00:00.000Z' });
  const accountWords = new Set((plan.subqueries[0]?.accounts ?? []).flatMap((a) => a.toLowerCase().split(/\s+/)));
  return [...new Set(plan.subqueries.flatMap((s) => s.terms))].filter(
    (t) => !accountWords.has(t) && !/^(say|said|what|going|status|update|prep|brief)$/.test(t),
  );
}

function readDeals(ask: string, account: string | null, today: string): Intent {
  const lower = ask.toLowerCase();
  const filters: DealFilter[] = [];
  const described: string[] = [];
  const amount =
    /\b(over|above|more than|greater than|at least|under|below|less than|at most)\s+\$?\s?(\d[\d,]*(?:\.\d+)?)\s*([km])?\b/i.exec(
      ask,
    );
  if (amount) {
    const value =
      Number(amount[2]!.replace(/,/g, '')) *
      (amount[3]?.toLowerCase() === 'k' ? 1_000 : amount[3]?.toLowerCase() === 'm' ? 1_000_000 : 1);
    const word = amount[1]!.toLowerCase();
    const op =
      word === 'at least' ? 'gte' : word === 'at most' ? 'lte' : /over|above|more|greater/.test(word) ? 'gt' : 'lt';
    filters.push({ field: 'amount', op, value });
    described.push(`${word} ${amount[0].slice(amount[1]!.length).trim()}`);
  }
  const stage = STAGES.find((s) => lower.includes(s));
  if (stage) {
    filters.push({ field: 'stage', op: 'eq', value: stage });
    described.push(`in ${stage}`);
  }
  if (/\b(won|win|wins|winning|closed[- ]won)\b/.test(lower)) {
    filters.push({ field: 'is_won', op: 'eq', value: true });
    described.push('won');
  } else if (/\b(lost|lose|closed[- ]lost)\b/.test(lower)) {
    filters.push({ field: 'is_closed', op: 'eq', value: true }, { field: 'is_won', op: 'eq', value: false });
    described.push('lost');
  } else if (/\b(open|active|in flight|live)\b/.test(lower) || stage) {
    filters.push({ field: 'is_closed', op: 'eq', value: false });
    if (!stage) described.push('open');
  }
  const closing = /\bclos(e|es|ing)\s+(this|next)\s+(month|quarter|year)\b/.exec(lower);
  if (closing) {
    const [from, to] = period(today, closing[2] as 'this' | 'next', closing[3] as 'month' | 'quarter' | 'year');
    filters.push({ field: 'close_date', op: 'gte', value: from }, { field: 'close_date', op: 'lt', value: to });
    if (!filters.some((f) => f.field === 'is_closed' || f.field === 'is_won'))
      filters.push({ field: 'is_closed', op: 'eq', value: false });
    described.push(`closing ${closing[2]} ${closing[3]}`);
  }
  if (account) {
    filters.push({ field: 'account_name', op: 'eq', value: account });
    described.push(`with ${account}`);
  }
  const want = COUNT.test(ask) ? 'count' : SUM.test(ask) ? 'sum' : 'list';
  return { kind: 'deals', want, filters, described };
}

/** [first day, first day after] of this or next month, quarter or year, as YYYY-MM-DD. */
function period(today: string, which: 'this' | 'next', unit: 'month' | 'quarter' | 'year'): [string, string] {
  const [y, m] = today.split('-').map(Number) as [number, number];
  const month = m - 1;
  const start =
    unit === 'month'
      ? Date.UTC(y, month + (which === 'next' ? 1 : 0), 1)
      : unit === 'quarter'
        ? Date.UTC(y, Math.floor(month / 3) * 3 + (which === 'next' ? 3 : 0), 1)
        : Date.UTC(y + (which === 'next' ? 1 : 0), 0, 1);
  const d = new Date(start);
  const end =
    unit === 'month'
      ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
      : unit === 'quarter'
        ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 3, 1)
        : Date.UTC(d.getUTCFullYear() + 1, 0, 1);
  return [new Date(start).toISOString().slice(0, 10), new Date(end).toISOString().slice(0, 10)];
}
