import type { Interpretation, InterpretedFilter } from './interpretation.js';
import { nameFromEmail } from './vocabulary.js';

/**
 * The one line an answer opens with to show how its question was read ("Read as: win rate (won ÷
 * closed) of deals closed from 2026-01-01 to before 2027-01-01, by owner, best first"), so a misreading is
 * visible at a glance. Dates and amounts are the query's own values, which the verifier backs.
 */
export function readAs(r: Interpretation): string {
  if (r.analysis === 'not_understood')
    return `a question about ${r.absent.join(' and ') || 'something the data does not hold'}`;
  const parts: string[] = [];
  if (r.analysis === 'slipped')
    parts.push('deals pushed out (a conversation on the deal says it is on hold or paused):');
  if (r.analysis === 'losses')
    parts.push('why deals were lost (what their qualification flagged and their buyers said):');
  const measure =
    r.analysis === 'win_rate'
      ? 'win rate (won ÷ closed) of'
      : r.analysis === 'weighted_pipeline'
        ? 'weighted pipeline (amount × probability) of'
        : r.measure.fn === 'count'
          ? 'the number of'
          : r.measure.fn === 'sum'
            ? 'the total amount of'
            : r.measure.fn === 'avg'
              ? 'the average amount of'
              : r.limit === 1
                ? 'the one'
                : r.limit
                  ? `the top ${r.limit}`
                  : '';
  if (measure) parts.push(measure);
  parts.push(noun(r));
  const described = r.filters.flatMap(describe);
  if (described.length > 0) parts.push(described.join(', '));
  if (r.period) {
    const verb =
      r.period.field === 'close_date'
        ? r.analysis === 'win_rate' ||
          r.filters.some((f) => f.field === 'is_won' || (f.field === 'is_closed' && f.value === true))
          ? 'closed'
          : 'closing'
        : r.period.field === 'occurred_at' && r.analysis === 'slipped'
          ? 'said'
          : r.period.field === 'occurred_at' && r.subject === 'deals'
            ? 'created'
            : 'from';
    parts.push(`${verb} ${spoken(r.period.phrase)}(from ${r.period.from}, before ${r.period.to})`);
    if (r.compare_to)
      parts.push(`compared with ${spoken(r.compare_to.phrase)}(from ${r.compare_to.from}, before ${r.compare_to.to})`);
  } else if (r.subject === 'deals' && r.filters.some((f) => f.field === 'is_closed' && f.value === false))
    parts.push('as they stand today');
  if (r.group_by) parts.push(`by ${GROUPS[r.group_by] ?? r.group_by.replace(/_/g, ' ')}`);
  if (r.order)
    parts.push(ORDER[`${r.order.field}:${r.order.dir}`] ?? (r.order.dir === 'desc' ? 'highest first' : 'lowest first'));
  let line = parts.filter(Boolean).join(' ').replace(/\s+/g, ' ');
  if (r.inherited.length > 0) line += ` (carried over from earlier in the thread: ${r.inherited.join(', ')})`;
  return line;
}

/** A phrase with digits of its own ("in the last 30 days") is not echoed: no cell backs them. A year is a query value. */
export const spoken = (phrase: string): string =>
  /\d/.test(phrase) && !/^[^\d]*\d{4}[^\d]*$/.test(phrase) ? '' : `${phrase} `;

const GROUPS: Record<string, string> = {
  owner_email: 'owner',
  account_name: 'account',
  account_region: 'region',
  account_industry: 'industry',
  kind: 'kind',
  stage: 'stage',
};
const ORDER: Record<string, string> = {
  'amount:desc': 'biggest first',
  'amount:asc': 'smallest first',
  'close_date:asc': 'soonest first',
  'close_date:desc': 'latest close first',
  'occurred_at:desc': 'latest first',
  'share_is_won:desc': 'best first',
  'share_is_won:asc': 'worst first',
};

function noun(r: Interpretation): string {
  if (r.subject === 'interactions') {
    const kind = r.filters.find((f) => f.field === 'kind');
    if (!kind) return 'conversations (calls, meetings, emails)';
    return Array.isArray(kind.value) ? kind.value.map((k) => `${k}s`).join(' and ') : `${kind.value}s`;
  }
  const closed = r.filters.find((f) => f.field === 'is_closed');
  const won = r.filters.find((f) => f.field === 'is_won');
  const overdue = r.filters.some((f) => f.field === 'close_date' && f.op === 'lt');
  const state = overdue
    ? 'open'
    : won?.value === true
      ? 'won'
      : won?.value === false && closed?.value === true
        ? 'lost'
        : closed?.value === false
          ? 'open'
          : closed?.value === true
            ? 'closed'
            : '';
  return `${state} deals`.trim();
}

function describe(f: InterpretedFilter): string[] {
  const value = Array.isArray(f.value) ? f.value.join(' or ') : String(f.value);
  switch (f.field) {
    case 'is_closed':
    case 'is_won':
    case 'kind':
      return [];
    case 'close_date':
      return f.op === 'lt' ? [`past their close date (before ${value})`] : [];
    case 'stage':
      return [`in ${value}`];
    case 'owner_email':
      return [
        `owned by ${Array.isArray(f.value) ? f.value.map((e) => nameFromEmail(e) ?? e).join(' or ') : (nameFromEmail(value) ?? value)}`,
      ];
    case 'account_name':
      return [`with ${value}`];
    case 'account_region':
      return [`of ${value} accounts`];
    case 'account_industry':
      return [`of ${value} accounts`];
    case 'amount':
      return [
        `${{ gt: 'over', gte: 'at least', lt: 'under', lte: 'at most' }[f.op as 'gt'] ?? f.op} $${Number(f.value).toLocaleString('en-US')}`,
      ];
    case 'name':
      return f.op === 'contains' ? [`of the ${value} kind`] : [`named ${value}`];
    case 'direction':
      return [`${value}`];
    default:
      return [`${f.field.replace(/_/g, ' ')} ${f.op} ${value}`];
  }
}
