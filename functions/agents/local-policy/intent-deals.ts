import type { Entities } from '../understanding/entities.js';
import type { AskedPeriod } from '../../search/index.js';

/**
 * A deal question as filters over the deals surface: amount bounds, stage, won, lost or open, the
 * owner, the account or region, and the period — on the close date for what closed or will close,
 * on the creation date for deals opened.
 */

export interface DealFilter {
  field: string;
  op: 'eq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'not_in';
  value: string | number | boolean | string[];
}

export interface DealAsk {
  want: 'list' | 'count' | 'sum';
  filters: DealFilter[];
  described: string[];
  /** "Break down by stage": one row per stage. */
  groupBy: 'stage' | 'owner_email' | null;
  period: AskedPeriod | null;
}

const STAGES = ['prospecting', 'discovery', 'evaluation', 'proposal', 'negotiation'] as const;
const COUNT = /\bhow many\b|\bnumber of\b|\bcount of\b/i;
const SUM = /\b(total|sum|how much|value|worth)\b/i;

export function readDeals(ask: string, e: Entities, period: AskedPeriod | null, _today: string): DealAsk {
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
  const won = /\b(won|win|wins|winning|closed[- ]won|booked)\b/.test(lower);
  const lost = /\b(lost|lose|losing|closed[- ]lost)\b/.test(lower);
  const closing = /\bclos(e|es|ing)\b/.test(lower) && !won && !lost;
  if (won) {
    filters.push({ field: 'is_won', op: 'eq', value: true });
    described.push('won');
  } else if (lost) {
    filters.push({ field: 'is_closed', op: 'eq', value: true }, { field: 'is_won', op: 'eq', value: false });
    described.push('lost');
  } else if (/\b(open|active|in flight|live|pipeline)\b/.test(lower) || stage || closing) {
    filters.push({ field: 'is_closed', op: 'eq', value: false });
    if (!stage) described.push('open');
  }
  if (period) {
    // A deal ask that is not about deals closing, won or lost ("deals over $50K this year") is still read on the close date.
    const field = /\b(created|opened|new deals|added|came in)\b/.test(lower) ? 'occurred_at' : 'close_date';
    filters.push({ field, op: 'gte', value: period.from }, { field, op: 'lt', value: period.to });
    described.push(`${field === 'close_date' ? (won || lost ? 'closed' : 'closing') : 'created'} ${period.phrase}`);
  }
  const owner = e.owners[0];
  if (owner) {
    filters.push({ field: 'owner_email', op: 'eq', value: owner.email });
    described.push(`owned by ${owner.name ?? owner.email}`);
  }
  if (e.deals.length > 0 && e.accounts.length > 0) {
    filters.push({ field: 'name', op: 'in', value: e.deals });
  } else if (e.accounts.length > 0) {
    const names = e.accounts.flatMap((a) => a.matches);
    filters.push(
      names.length === 1
        ? { field: 'account_name', op: 'eq', value: names[0]! }
        : { field: 'account_name', op: 'in', value: names },
    );
    described.push(`with ${names.join(' or ')}`);
  }
  if (e.regions.length > 0) {
    filters.push({ field: 'account_region', op: 'in', value: e.regions });
    described.push(`in ${e.regions.join(' or ')}`);
  }
  const groupBy = /\bby stage\b|\bper stage\b|\bbreak ?down\b/i.test(ask)
    ? 'stage'
    : /\bby (rep|owner|seller)s?\b|\bper (rep|owner)\b/i.test(ask)
      ? 'owner_email'
      : null;
  const want = COUNT.test(ask) ? 'count' : SUM.test(ask) ? 'sum' : 'list';
  return { want, filters, described, groupBy, period };
}
