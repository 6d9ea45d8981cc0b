import type { BlockDraft } from './answer.js';
import { analysisCitationOf } from './cited-query.js';
import { asksForQuiet } from '../search/index.js';
import { askedPeriodOf, type AskedQuestion } from './grounding-period.js';

/**
 * The verifier's rule for counts in a period, for every model: when the question
 * names a period ("how many calls last quarter"), a count, sum or average the answer shows must come
 * from a query bounded in time — a filter on a date field (occurred_at, close_date, …) or a group by
 * one — so that its cells are for a period and not for all time. A figure computed over everything
 * would read as the period's. Two aggregates are not held to it:
 *
 * - the extent of the data ("What the interactions searched cover": a count with its first and last
 *   dates and no filter), which says what the answer read, not what happened in the period;
 * - one whose label says it is not for the period ("all time", "to date", "overall", "open now",
 *   "whatever the date").
 *
 * The period a query is bounded by need not be the asked one: a comparison of this year and last
 * year bounds each side by its own. Lists are not held to it (their dated rows are the period
 * check's). A block that fails is removed like any unverifiable block, so the answer is not verified.
 */

const DATE_FIELD = /(_at|_date)$/;
const NOT_FOR_THE_PERIOD =
  /\b(all[- ]time|to date|ever|overall|open now|currently open|whatever the date|not (limited|restricted) to)\b/i;

type Query = Record<string, unknown>;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const fieldOf = (v: unknown): string => (v && typeof v === 'object' ? String((v as Query).field ?? '') : '');

// An analysis's results are aggregates, bounded in time when its request names a period.
function isAggregate(query: Query): boolean {
  return analysisCitationOf(query) !== null || list(query.metrics).length > 0;
}

function boundedInTime(query: Query): boolean {
  const cited = analysisCitationOf(query);
  if (cited) return cited.input.period !== undefined && cited.input.period !== null;
  return (
    list(query.filters).some((f) => DATE_FIELD.test(fieldOf(f))) ||
    list(query.group_by).some((g) => typeof g === 'string' && DATE_FIELD.test(g))
  );
}

/** Count, min and max of the event time with no filter: how much data there is and over which dates. */
function isExtent(query: Query): boolean {
  const fns = new Set(list(query.metrics).map((m) => String((m as Query).fn ?? '')));
  return list(query.filters).length === 0 && list(query.group_by).length === 0 && fns.has('min') && fns.has('max');
}

const labelOf = (block: BlockDraft): string =>
  block.kind === 'metric' ? block.label : block.kind === 'table' ? (block.title ?? '') : '';

/** Why a table or metric cannot stand in an answer to this question, or null when it can. */
export function periodCountProblem(block: BlockDraft, question: AskedQuestion | undefined) {
  if (!question || (block.kind !== 'metric' && block.kind !== 'table')) return null;
  const query = block.query as Query;
  if (!isAggregate(query) || boundedInTime(query) || isExtent(query) || NOT_FOR_THE_PERIOD.test(labelOf(block)))
    return null;
  const period = askedPeriodOf(question);
  if (!period || asksForQuiet(question.text)) return null;
  return `its figures are for all time, not for ${period.phrase} (its query has no date bound)`;
}
