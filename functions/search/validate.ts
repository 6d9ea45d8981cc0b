import { ApiError } from '../../platform/errors.js';
import type { FieldProblem } from '../../platform/validation.js';
import { runWithLocalFallback } from '../../platform/model/fallback.js';
import type { ModelProvider } from '../../platform/model/port.js';
import type { ResolvedSearch } from './lane.js';
import { DEFAULT_LIMITS, SEARCH_LIMITS, type Lane, type SearchRequest } from './request.js';
import { routeTask } from './routing.js';

const invalid = (problems: FieldProblem[]): ApiError => {
  const first = problems[0];
  return new ApiError(
    'invalid_argument',
    `Invalid request: ${first ? `${first.field ? `${first.field}: ` : ''}${first.problem}` : 'invalid'}`,
    { fields: problems },
  );
};

/**
 * Cross-field rules of POST /search/query that a schema cannot state, then routing. Returns the
 * resolved search and the params the chosen lane accepts but does not honour (corpus.ignored_params).
 */
export async function resolveSearch(
  request: SearchRequest,
  model: ModelProvider,
): Promise<{ search: ResolvedSearch; ignored: string[] }> {
  const query = request.query?.trim() ? request.query.trim() : null;
  const filters = request.filters ?? [];
  const groupBy = request.group_by ?? [];
  const metrics = request.metrics ?? [];
  const problems: FieldProblem[] = [];

  if (!query && filters.length === 0 && groupBy.length === 0 && metrics.length === 0) {
    throw invalid([
      {
        field: '',
        problem: 'empty request: send a query, filters (with optional group_by/metrics), or a job_id alone',
        code: 'empty_request',
      },
    ]);
  }
  if (request.fields && (groupBy.length > 0 || metrics.length > 0))
    problems.push({
      field: 'fields',
      problem: 'fields selects the columns of row results; an aggregate returns its group_by fields and metrics',
      code: 'unsupported',
    });
  if (groupBy.length > 0 && metrics.length === 0)
    problems.push({ field: 'group_by', problem: 'group_by needs at least one metric', code: 'missing_metric' });

  let lane: Lane;
  if (request.mode && request.mode !== 'auto') lane = request.mode;
  else if (!query) lane = 'filter';
  else lane = (await routeShape(model, query)) === 'meaning' ? 'semantic' : 'fuzzy';

  if ((lane === 'fuzzy' || lane === 'semantic') && !query)
    problems.push({ field: 'query', problem: `the ${lane} lane needs a query`, code: 'required' });
  const maxSubqueries = request.max_subqueries ?? 3;
  if (lane === 'fuzzy' && !request.async && maxSubqueries > SEARCH_LIMITS.maxSubqueriesSync) {
    problems.push({
      field: 'max_subqueries',
      problem: `at most ${SEARCH_LIMITS.maxSubqueriesSync} without async (12 with async: true)`,
      code: 'too_big',
    });
  }
  const audience = request.audience ?? 'all';
  const hydrate = request.hydrate ?? false;
  const surface = request.surface ?? 'interactions';
  if (audience === 'customer_voice') {
    if (lane === 'fuzzy')
      problems.push({ field: 'audience', problem: 'customer_voice is refused on the fuzzy lane', code: 'unsupported' });
    if (lane === 'semantic' && !hydrate)
      problems.push({
        field: 'audience',
        problem: 'customer_voice on the semantic lane needs hydrate: true',
        code: 'requires_hydrate',
      });
    if (lane === 'filter' && surface !== 'interactions')
      problems.push({
        field: 'audience',
        problem: 'customer_voice applies to the interactions surface only',
        code: 'unsupported',
      });
  }
  if (problems.length > 0) throw invalid(problems);

  const ignored: string[] = [];
  const sent = (key: keyof SearchRequest) => request[key] !== undefined;
  if (lane !== 'filter') {
    if (sent('surface')) ignored.push('surface');
    // The semantic lane applies filters itself and names the ones that cannot apply to an utterance.
    if (lane === 'fuzzy' && filters.length > 0) ignored.push('filters');
    for (const key of ['group_by', 'metrics', 'order_by', 'fields'] as const) if (sent(key)) ignored.push(key);
  }
  if (lane !== 'semantic' && sent('hydrate')) ignored.push('hydrate');
  if (lane !== 'semantic' && sent('ranking')) ignored.push('ranking');
  if (lane !== 'fuzzy') {
    if (sent('async')) ignored.push('async');
    if (sent('max_subqueries')) ignored.push('max_subqueries');
  }
  if (lane === 'filter' && query) ignored.push('query');

  return {
    search: {
      lane,
      query,
      surface,
      audience,
      hydrate,
      ranking: request.ranking ?? 'similarity',
      coverage: request.coverage ?? false,
      filters,
      orderBy: request.order_by ?? null,
      limit: request.limit ?? DEFAULT_LIMITS[lane],
      groupBy,
      metrics,
      fields: lane === 'filter' ? (request.fields ?? null) : null,
      maxSubqueries,
    },
    ignored,
  };
}

/** Routing must not fail a search: when a configured model cannot classify, the local rules do. */
async function routeShape(model: ModelProvider, query: string): Promise<'meaning' | 'lookup'> {
  return (await runWithLocalFallback(model, routeTask, { query })).output.shape;
}
