import { searchWithin } from '../search/index.js';
import { defineAnalysis, type AnalysisOutput } from './analysis.js';
import { fittedToToolResult, limitedTo } from './analysis-fit.js';
import { periodWords } from './analysis-words.js';
import { conversationsNoun, recordsAnswer } from './records-answer.js';
import {
  checkRecordsInput,
  RecordsBodySchema,
  recordsQueries,
  surfaceOf,
  type RecordsInput,
  type RecordsQueries,
} from './records-queries.js';

/**
 * Records: the pipeline and the conversations as figures — deals or calls, meetings and emails
 * filtered, grouped, ordered and limited; counts, totals, averages, a win rate (won ÷ closed),
 * weighted pipeline (amount × probability). It runs `search.query` as the caller (one request for the
 * totals, one per grouping, one for the list) and its blocks cite those requests, so the verifier
 * re-runs the very search a figure came from, for the period asked.
 */

export const records = defineAnalysis({
  name: 'records',
  path: 'records',
  summary: 'Records: deals and conversations counted, totalled, grouped and listed; win rate; weighted pipeline',
  description:
    'Deals (or conversations) narrowed by the filter lane’s filters and a period, measured (`list`, `count`, `total`, `average`, `win_rate`: won ÷ closed, `weighted_pipeline`: amount × probability of open deals), grouped, ordered and limited. Blocks cite the `search.query` requests the figures came from.',
  body: RecordsBodySchema,
  example: {
    measure: 'weighted_pipeline',
    group_by: 'owner_email',
    period: { from: '2026-10-01', to: '2027-01-01' },
  },
  async run(ctx, input): Promise<AnalysisOutput> {
    checkRecordsInput(input);
    const q = recordsQueries(input);
    const totals = await searchWithin(ctx, q.totals);
    const groups = q.groups ? (await searchWithin(ctx, q.groups)).results : [];
    const list = q.list ? (await searchWithin(ctx, q.list)).results : [];
    const readAs = readAsOf(input);
    const total = totals.results[0];
    if (!total)
      return {
        analysis: 'records',
        read_as: readAs,
        summary: [],
        blocks: [],
        results: { totals: [], groups: [] },
        empty_reason: `I could not read them: ${whyEmpty(totals.corpus.empty_reason)}.`,
      };
    const stale = totals.detail.coverage?.is_stale === true;
    // The list is cut to fit first, then the groups.
    return fittedToToolResult({ groups, list }, ['list', 'groups'], (rows) => {
      const { lines, blocks } = recordsAnswer(input, citing(q, rows, { groups, list }), { total, ...rows });
      if (stale) lines.push('', 'Note: the synced data is behind, so recent activity may be missing.');
      return {
        analysis: 'records',
        read_as: readAs,
        summary: lines,
        blocks,
        // The groups' and the list's rows are their tables' (each cited by its own search): carried once.
        results: { totals: [total] },
        empty_reason: null,
      };
    });
  },
});

type Rows = { groups: Record<string, unknown>[]; list: Record<string, unknown>[] };

/** The requests the tables cite, limited to the rows each kept. */
const citing = (q: RecordsQueries, kept: Rows, read: Rows): RecordsQueries => ({
  totals: q.totals,
  groups: limitedTo(q.groups, kept.groups.length, read.groups.length),
  list: limitedTo(q.list, kept.list.length, read.list.length),
});

/** Why a search came back without its totals row, in words (the search's own message carries counts no cell backs). */
function whyEmpty(reason: string | undefined): string {
  switch (reason) {
    case 'not_synced':
      return 'nothing has been synced to this workspace yet';
    case 'scope_disjoint':
      return "the period asked for lies outside the data's span";
    case 'read_failed':
      return 'the search could not read the data (try again)';
    default:
      return 'nothing in the data matched';
  }
}

const MEASURE_WORDS: Record<RecordsInput['measure'], string> = {
  list: 'the list and count',
  count: 'the count',
  total: 'the total amount',
  average: 'the average amount',
  win_rate: 'the win rate (won ÷ closed)',
  weighted_pipeline: 'the weighted pipeline (amount × probability)',
};

/** What the analysis applied, in words: the measure, the records, the filters, the period, the grouping. */
function readAsOf(input: RecordsInput): string {
  const records = surfaceOf(input) === 'deals' ? 'deals' : conversationsNoun(input);
  const filters = input.filters.map(
    (f) => `${f.field} ${f.op} ${Array.isArray(f.value) ? f.value.join('/') : String(f.value)}`,
  );
  const field = surfaceOf(input) === 'interactions' ? 'occurred_at' : (input.period_field ?? 'close_date');
  return [
    `${MEASURE_WORDS[input.measure]} of ${records}`,
    filters.length ? ` where ${filters.join(', ')}` : '',
    input.period ? `, ${field}${periodWords(input.period)}` : '',
    input.group_by ? `, by ${input.group_by}` : '',
    input.order ? `, ordered by ${input.order.field} ${input.order.dir}` : '',
  ].join('');
}
