import { contentWords, stemWord } from '../../platform/model/local.js';
import type { BlockDraft } from './answer.js';

/**
 * Totals an answer's own breakdown contradicts (the finished check, grounding-finished.ts): the reader
 * sees the blocks' labels, so the labels and units decide what counts what.
 *
 * - A part: a metric whose label is another metric's label plus a qualifier ("Conversations, the quarter
 *   from 2026-07-01" under "Conversations"). A part above its total means the two count different
 *   things: the total goes.
 * - A total of 0 beside a breakdown of the same thing that counts more than 0: the total goes. "The same
 *   thing" is read from the labels, in any order and form: every word the total's label names it by
 *   (periods aside) is in the breakdown's label — a metric's label, or a table's title or column label
 *   ("Calls" 0 beside "Q3 calls" 23, or beside a table "Calls per quarter"). A total that names a period
 *   ("Calls last month") is held only to a breakdown that names the same period, so a month's 0 beside
 *   a table of other months stands. Units: a count of 0 is contradicted by anything counted or measured
 *   of those records (a count column's sum, a metric, or, in a table of the records themselves, its
 *   rows); a 0 of another measure (an amount) only by the same measure, its column named alike.
 */

type Metric = Extract<BlockDraft, { kind: 'metric' }>;
type Table = Extract<BlockDraft, { kind: 'table' }>;

const asNumber = (v: unknown): number | null =>
  typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;

/** Words that bound a label in time (and figures, such as dates or a threshold): a qualifier, not the thing counted. */
const PERIOD_WORD =
  /^(?:\d.*|q[1-4]|h[12]|fy\d*|ytd|qtd|mtd|last|this|next|past|previous|prior|current|since|until|through|between|before|after|during|within|today|yesterday|days?|weeks?|months?|quarters?|years?|weekly|monthly|quarterly|yearly|annual|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|per|each|over|under|above|below|the)$/;

/** A label as the thing it counts (stemmed words) and the period it names. */
function labelWords(label: string): { thing: Set<string>; period: Set<string> } {
  const thing = new Set<string>();
  const period = new Set<string>();
  for (const word of contentWords(label)) (PERIOD_WORD.test(word) ? period : thing).add(stemWord(word));
  return { thing, period };
}
const within = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => [...a].every((w) => b.has(w));
const samePeriod = (total: ReadonlySet<string>, part: ReadonlySet<string>): boolean =>
  total.size === 0 || (total.size === part.size && within(total, part));

/** Whether a metric counts records (its column or its query's measure is a count). */
function countsRecords(metric: Metric): boolean {
  if (/^(?:count|n)(?:_|$)/.test(metric.column)) return true;
  const measures = metric.query.metrics;
  return (
    Array.isArray(measures) &&
    measures.length > 0 &&
    measures.every((m) => m && typeof m === 'object' && (m as { fn?: unknown }).fn === 'count')
  );
}

const isNumericColumn = (table: Table, key: string): boolean =>
  table.data.some((row) => asNumber(row[key]) !== null) &&
  table.data.every((row) => row[key] === null || row[key] === undefined || asNumber(row[key]) !== null);
const sumOf = (table: Table, key: string): number =>
  table.data.reduce((sum, row) => sum + Math.max(0, asNumber(row[key]) ?? 0), 0);

const COUNT_COLUMN = /^(?:count|n|number|#)(?:_|$)/i;

/**
 * How much of the total's thing a table shows: the sum of a column that names the thing (or of its
 * count column, or the total's own column, in a table titled as the thing); a table titled as the
 * records, with no count of them, shows one per row.
 */
function shownIn(table: Table, total: Metric): number {
  const words = labelWords(total.label);
  const counts = countsRecords(total);
  const names = (label: string) => {
    const named = labelWords(label);
    return within(words.thing, named.thing) && samePeriod(words.period, named.period);
  };
  const titled = names(table.title ?? '');
  const numeric = table.columns.filter((c) => isNumericColumn(table, c.key));
  const sums = numeric
    .filter(
      (c) =>
        names(c.label) ||
        (titled && (c.key === total.column || (counts && (COUNT_COLUMN.test(c.key) || COUNT_COLUMN.test(c.label))))),
    )
    .map((c) => sumOf(table, c.key));
  if (sums.length > 0) return Math.max(...sums);
  const countsItsRows = numeric.some((c) => COUNT_COLUMN.test(c.key) || COUNT_COLUMN.test(c.label));
  return titled && counts && !countsItsRows ? table.data.length : 0;
}

/** The metrics a breakdown in the same answer contradicts, each with why. */
export function withoutContradictedTotals(blocks: readonly BlockDraft[], unfinished: string[]): BlockDraft[] {
  const metrics = blocks.filter((b): b is Metric => b.kind === 'metric');
  const tables = blocks.filter((b): b is Table => b.kind === 'table');
  const contradicted = new Set<BlockDraft>();
  for (const total of metrics) {
    const whole = asNumber(total.value);
    if (whole === null) continue;
    const prefix = total.label.trim().toLowerCase();
    const over = metrics.find((part) => {
      if (part === total) return false;
      const label = part.label.trim().toLowerCase();
      const value = asNumber(part.value);
      return (
        value !== null &&
        value > whole &&
        /^(?:,|:| \(| —| –| - )/.test(label.slice(prefix.length)) &&
        label.startsWith(prefix)
      );
    });
    if (over) {
      contradicted.add(total);
      unfinished.push(
        `the total “${total.label}” (${whole}) is below its own part “${over.label}” (${String(over.value)}): they count different things`,
      );
      continue;
    }
    if (whole !== 0) continue;
    const words = labelWords(total.label);
    if (words.thing.size === 0) continue;
    const metricPart = metrics.find((part) => {
      const value = asNumber(part.value);
      if (part === total || value === null || value <= 0) return false;
      const partWords = labelWords(part.label);
      return (
        within(words.thing, partWords.thing) &&
        samePeriod(words.period, partWords.period) &&
        (countsRecords(total) || part.column === total.column)
      );
    });
    const tablePart = metricPart ? undefined : tables.find((t) => shownIn(t, total) > 0);
    const part = metricPart
      ? `“${metricPart.label}” (${String(metricPart.value)})`
      : tablePart
        ? `the table “${tablePart.title ?? 'untitled'}” (${shownIn(tablePart, total)})`
        : null;
    if (!part) continue;
    contradicted.add(total);
    unfinished.push(`the total “${total.label}” is 0 beside ${part}, which counts the same thing: they disagree`);
  }
  return blocks.filter((b) => !contradicted.has(b));
}
