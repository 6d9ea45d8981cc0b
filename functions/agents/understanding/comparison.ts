import { parseAskedPeriod, type AskedPeriod } from '../../search/index.js';

/**
 * Two periods set side by side, read from the words that join them, not from a list of phrasings:
 *
 *   - two periods named on either side of a joining word ("Q3 vs Q2", "this year than last year",
 *     "H1 vs H2 this year");
 *   - one period and the same span a unit back ("this quarter vs the same quarter last year", "last
 *     quarter vs the quarter before", "compared with the prior month");
 *   - one period and a comparative ("more or less than last month", "compared to last quarter"): the
 *     other side is the current span of the same length;
 *   - "year over year", "QoQ": the current unit against the one before it.
 *
 * A side that only points back ("vs the quarter before") with nothing to point from is returned with
 * `first` null, for a follow-up to anchor on the period of the ask before it.
 */
export interface Comparison {
  first: AskedPeriod | null;
  second: AskedPeriod;
  /** The words of the question the second period was read from, so the reader does not read them again. */
  words: string[];
}

const JOINER = /\s+(?:vs\.?|versus|compared (?:to|with)|against|than|over|and|to|with)\s+/i;
const COMPARATIVE = /\b(?:vs\.?|versus|compare[ds]?|comparison|against|than|relative to)\b/i;
/** A side that names the span before another ("the quarter before", "the previous month", "prior year"). */
const BACK_ONE =
  /\b(?:the )?(?:(?:previous|prior|preceding) (week|month|quarter|half|year)|(week|month|quarter|half|year) (?:before|prior))\b/i;
/**
 * A side that points back with its unit left out — "than last", "vs last one", "the one before", "the
 * previous one" — means one span of the other side's own length before it.
 */
const BACK_ELIDED =
  /\b(?:the )?one before\b|\b(?:the )?(?:previous|prior|preceding) one\b|^\s*(?:the )?last(?: one)?\s*[?.!]*\s*$/i;
/** "The same quarter last year", "same month a year ago". */
const SAME_LAST_YEAR =
  /\b(?:the )?same (week|month|quarter|half|period|time) (?:last year|a year (?:ago|before|earlier)|the year before|in \d{4})\b/i;
const OVER = /\b(year|quarter|month|week)[- ]over[- ](?:year|quarter|month|week)\b|\b(yoy|qoq|mom|wow)\b/i;
const OVER_UNIT: Record<string, 'year' | 'quarter' | 'month' | 'week'> = {
  yoy: 'year',
  qoq: 'quarter',
  mom: 'month',
  wow: 'week',
};

export function readComparison(ask: string, today: string): Comparison | null {
  const over = OVER.exec(ask);
  if (over) {
    const unit = (over[1]?.toLowerCase() ?? OVER_UNIT[over[2]!.toLowerCase()]!) as
      | 'year'
      | 'quarter'
      | 'month'
      | 'week';
    const current = parseAskedPeriod(`this ${unit}`, today);
    if (current)
      return {
        first: current,
        second: { ...shiftBack(current, 'one'), phrase: `the ${unit} before` },
        words: [over[0]],
      };
  }
  // Without a comparative ("vs", "than", "compared") two periods are a range or a list, not a comparison.
  if (!COMPARATIVE.test(ask)) return null;
  const sides = ask.split(JOINER);
  const periods: { period: AskedPeriod; side: number }[] = [];
  sides.forEach((side, i) => {
    if (BACK_ONE.test(side) || SAME_LAST_YEAR.test(side) || BACK_ELIDED.test(side)) return;
    const p = parseAskedPeriod(side, today);
    if (p && !periods.some((q) => q.period.from === p.from && q.period.to === p.to))
      periods.push({ period: p, side: i });
  });
  const back = sides.map((s) => BACK_ONE.exec(s) ?? BACK_ELIDED.exec(s)).find(Boolean);
  const sameLastYear = sides.map((s) => SAME_LAST_YEAR.exec(s)).find(Boolean);
  const anchor = periods[0]?.period ?? null;
  if (periods.length >= 2) return { first: anchor, second: periods[1]!.period, words: [periods[1]!.period.phrase] };
  if (sameLastYear)
    return anchor
      ? { first: anchor, second: { ...shiftBack(anchor, 'year'), phrase: sameLastYear[0] }, words: [sameLastYear[0]] }
      : null;
  if (back)
    return anchor
      ? { first: anchor, second: { ...shiftBack(anchor, 'one'), phrase: back[0] }, words: [back[0]] }
      : { first: null, second: { from: '', to: '', phrase: back[0] }, words: [back[0]] };
  // One period after a comparative ("more than last month", "compared to last quarter"): the other side
  // is the current span of the same length. A period before the joiner with none after it ("last quarter:
  // wins vs losses") sets two other things side by side, not two periods.
  const first = periods[0];
  const afterComparative =
    first !== undefined &&
    (first.side > 0 ||
      COMPARATIVE.test(
        sides[first.side]!.slice(
          0,
          Math.max(0, sides[first.side]!.toLowerCase().indexOf(first.period.phrase.toLowerCase())),
        ),
      ));
  if (anchor && afterComparative) {
    const current = forwardToToday(anchor, today);
    if (current) return { first: current, second: anchor, words: [] };
  }
  return null;
}

/** The span one unit (its own length, in calendar months when it is whole months) or one year before. */
export function shiftBack(p: AskedPeriod, by: 'one' | 'year'): AskedPeriod {
  const months = wholeMonths(p);
  if (by === 'year') return { ...p, from: addMonths(p.from, -12), to: addMonths(p.to, -12) };
  if (months !== null) return { ...p, from: addMonths(p.from, -months), to: addMonths(p.to, -months) };
  const days = (Date.parse(p.to) - Date.parse(p.from)) / 86_400_000;
  return { ...p, from: addDays(p.from, -days), to: addDays(p.to, -days) };
}

/** The span of the same length, stepped forward from a past one, that holds today ("than last month" → this month). */
function forwardToToday(p: AskedPeriod, today: string): AskedPeriod | null {
  if (today < p.to) return null;
  const months = wholeMonths(p);
  let { from, to } = p;
  for (let i = 0; i < 400 && today >= to; i++) {
    if (months !== null) [from, to] = [addMonths(from, months), addMonths(to, months)];
    else {
      const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
      [from, to] = [addDays(from, days), addDays(to, days)];
    }
  }
  const unit =
    months === 1 ? 'month' : months === 3 ? 'quarter' : months === 6 ? 'half' : months === 12 ? 'year' : null;
  return { from, to, phrase: unit ? `this ${unit}` : 'the same span up to today' };
}

function wholeMonths(p: AskedPeriod): number | null {
  if (!p.from.endsWith('-01') || !p.to.endsWith('-01')) return null;
  const [fy, fm] = p.from.split('-').map(Number) as [number, number];
  const [ty, tm] = p.to.split('-').map(Number) as [number, number];
  const months = (ty - fy) * 12 + (tm - fm);
  return months > 0 ? months : null;
}

function addMonths(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1 + months, d)).toISOString().slice(0, 10);
}

const addDays = (iso: string, days: number): string =>
  new Date(Date.parse(`${iso}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
