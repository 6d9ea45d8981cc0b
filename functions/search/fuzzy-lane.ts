import { queryRows } from '../../platform/db/port.js';
import { runWithLocalFallback } from '../../platform/model/fallback.js';
import { contentWords } from '../../platform/model/local.js';
import { outputValue } from './filter-values.js';
import { pgTimestampToIso } from '../../platform/db/timestamps.js';
import { toDate } from '../../platform/db/timestamps.js';
import { MAX_ACCOUNTS, planTask, type FuzzyPlan, type FuzzySubquery } from './fuzzy-plan.js';
import {
  accountLookup,
  accountsWrittenIn,
  fuzzyStatement,
  interactionSpan,
  matchingTurnsStatement,
  unscopedMatchCount,
  type ResolvedSubquery,
} from './fuzzy-sql.js';
import {
  noRowsCoverage,
  RECENT_WINDOW_DAYS,
  rowCoverage,
  type LaneContext,
  type LaneOutcome,
  type LaneRunner,
} from './lane.js';
import type { EmptyReason, FuzzyPlanReport } from './response.js';

const DAY_MS = 86_400_000;

const INTEGER_COLUMNS = new Set(['duration_seconds', 'participant_count', 'external_participant_count']);
const ROW_COLUMNS = [
  'id',
  'kind',
  'title',
  'occurred_at',
  'duration_seconds',
  'direction',
  'source',
  'thread_id',
  'summary',
  'body',
  'participant_count',
  'external_participant_count',
  'account_id',
  'account_name',
  'account_type',
  'deal_id',
  'deal_name',
  'deal_stage',
] as const;

/**
 * The fuzzy lane (spec, POST /search/query): a natural-language ask planned into at most
 * `max_subqueries` subqueries by the model port (search.plan), run as full-text and trigram search
 * over the warehouse's interactions (their text and their transcript turns), merged and ranked.
 * One row = one interaction, full content, with the turns that matched. `filters_applied` is always
 * false (filters belong to the filter lane); the excluded-interaction settings apply; the plan, with
 * the account it resolved and each subquery's match count, is in `detail.internal.plan`.
 *
 * A company the ask names becomes an account restriction only when the workspace has an account by
 * that name; otherwise its words are searched as terms, so a product named like a company
 * ("Salesforce sync") still finds its rows.
 */
export const runFuzzyLane: LaneRunner = async (ctx) => {
  const { search, services, now } = ctx;
  const query = search.query ?? '';
  const { plan, planner, note } = await planSearch(ctx, query);
  const subqueries = plan.subqueries.slice(0, search.maxSubqueries);

  const corpus: LaneOutcome['corpus'] = {
    store: 'warehouse',
    grain: 'row',
    content: 'full',
    filters_applied: false,
    audience_applied: false,
  };
  const since = subqueries.map((sq) => (sq.since ? Date.parse(sq.since) : null));
  const earliest = since.every((t) => t !== null) && since.length > 0 ? Math.min(...(since as number[])) : null;
  const common = {
    freshnessStore: 'interactions',
    gaps: { baseline: 'interactions' },
    recentWindowStart:
      earliest !== null && now.getTime() - earliest <= RECENT_WINDOW_DAYS * DAY_MS ? new Date(earliest) : null,
  } satisfies Partial<LaneOutcome>;

  let resolved: ResolvedSubquery[];
  let accounts: FuzzyPlanReport['accounts'] = [];
  let compiledSql = '';
  const reportOf = (
    subs: readonly (FuzzySubquery & { accountIds?: unknown })[],
    matched: (i: number) => number = () => 0,
  ): FuzzyPlanReport => ({
    planner,
    date_phrase: plan.date_phrase,
    accounts,
    subqueries: subs.map(({ accountIds: _ids, ...sq }, i) => ({ ...sq, matched: matched(i) })),
  });
  const emptyAnswer = (emptyReason: EmptyReason, report: FuzzyPlanReport, answerNote?: string): LaneOutcome => ({
    ...common,
    compiledSql,
    results: [],
    matchCount: 0,
    corpus,
    emptyReason,
    coverage: noRowsCoverage(),
    internal: { plan: report },
    ...(answerNote ? { note: answerNote } : {}),
  });
  try {
    ({ resolved, accounts } = await resolveAccounts(ctx, subqueries));
    const { statement, intent } = fuzzyStatement(resolved, ctx.workspaceId, search.limit);
    compiledSql = intent;
    if (resolved.every(unconstrained)) {
      // Nothing to look for ("the", "???"): answering with every interaction would not be a match.
      return emptyAnswer(
        'no_match',
        reportOf(resolved),
        'The query names nothing to search for (no words, company, kind, field or time), so nothing was read.',
      );
    }
    const raw = await queryRows<Record<string, unknown>>(services.db, statement);
    const turns = await readMatchingTurns(ctx, resolved, raw);

    const results: Record<string, unknown>[] = raw.map((row) => ({
      ...Object.fromEntries(
        ROW_COLUMNS.map((c) => [
          c,
          c === 'occurred_at'
            ? pgTimestampToIso(row[c])
            : INTEGER_COLUMNS.has(c)
              ? outputValue('integer', row[c])
              : (row[c] ?? null),
        ]),
      ),
      score: Math.round(Number(row.score) * 1e4) / 1e4,
      matched_subqueries: (row.sqs as number[]).map(Number).sort((a, b) => a - b),
      matching_turns: row.kind === 'email' ? [] : (turns.get(String(row.id)) ?? []),
    }));
    const matchCount = raw.length > 0 ? Number(raw[0]?.__match_count) : 0;
    if (matchCount > results.length) corpus.truncated = true;
    const report = reportOf(resolved, (i) => (raw.length > 0 ? Number(raw[0]?.[`__sq${i + 1}`]) : 0));
    const emptyReason = results.length === 0 ? await diagnoseEmpty(ctx, resolved) : undefined;
    const unknown = accounts.filter((a) => a.matched.length === 0).map((a) => `"${a.asked}"`);
    const notes = [
      note,
      unknown.length > 0
        ? `No account is named like ${unknown.join(' or ')}, so ${unknown.length === 1 ? 'its' : 'their'} words were searched as text.`
        : null,
      emptyReason ? describePlan(report) : null,
    ];
    return {
      ...common,
      compiledSql,
      results,
      matchCount,
      corpus,
      ...(emptyReason ? { emptyReason } : {}),
      coverage: rowCoverage(
        raw.map((r) => toDate(r.occurred_at)),
        corpus.truncated === true,
      ),
      internal: { plan: report },
      ...(notes.some(Boolean) ? { note: notes.filter(Boolean).join(' ') } : {}),
    };
  } catch (error) {
    services.log.warn('fuzzy lane read failed', { error: error instanceof Error ? error.message : String(error) });
    return emptyAnswer('read_failed', reportOf(subqueries));
  }
};

const unconstrained = (sq: ResolvedSubquery): boolean =>
  sq.terms.length === 0 &&
  sq.phrases.length === 0 &&
  sq.kinds.length === 0 &&
  sq.fields.length === 0 &&
  !sq.since &&
  !sq.until &&
  sq.accountIds === null;

/** The model's plan; when a configured model fails or answers outside the schema, the local planner's, said so. */
async function planSearch(
  ctx: LaneContext,
  query: string,
): Promise<{ plan: FuzzyPlan; planner: string; note?: string }> {
  const input = { query, max_subqueries: ctx.search.maxSubqueries, now: ctx.now.toISOString() };
  const ran = await runWithLocalFallback(ctx.services.model, planTask, input, { signal: ctx.signal });
  if (!('failure' in ran)) return { plan: ran.output, planner: ran.ranBy };
  ctx.services.log.warn('search planner failed; planning locally', ran.failure);
  return {
    plan: ran.output,
    planner: 'local',
    note: `The ${ran.failure.model} planner failed, so the query was planned by the local rules.`,
  };
}

/** Candidates that tie with the closest one (a misspelling close to two names keeps both). */
const CLOSENESS_TIE = 0.02;
/** A misspelt name resolves to at most this many accounts. */
const MAX_CLOSE_ACCOUNTS = 5;

/**
 * The companies the plan names, each looked up once: an exact name wins; else the accounts whose
 * name holds it as whole words; else the closest misspellings. The subqueries keep to the union of
 * what resolved, and drop the resolved names' words from their terms (then drop subqueries left
 * with no words, and duplicates). A name that resolved to nothing stays searched as words.
 */
async function resolveAccounts(
  ctx: LaneContext,
  planned: FuzzyPlan['subqueries'],
): Promise<{ resolved: ResolvedSubquery[]; accounts: FuzzyPlanReport['accounts'] }> {
  const written = await accountsWrittenExactly(ctx, planned);
  // A planned name that is part of a whole name written in the query ("es2004c" of "es2004c design") gives way to it.
  const partOfWritten = (name: string) => written.some((w) => w.toLowerCase().includes(name.toLowerCase()));
  const subqueries = planned.map((sq) => ({
    ...sq,
    accounts: [...new Set([...sq.accounts.filter((a) => !partOfWritten(a)), ...written])].slice(0, MAX_ACCOUNTS),
  }));
  const names = [...new Set(subqueries.flatMap((sq) => sq.accounts))];
  const matches = new Map<string, { id: string; name: string }[]>();
  for (const name of names) {
    const rows = await queryRows<{ id: string; name: string; exact: boolean; whole_words: boolean; closeness: number }>(
      ctx.services.db,
      accountLookup(ctx.workspaceId, name),
    );
    const exact = rows.filter((r) => r.exact);
    const whole = rows.filter((r) => r.whole_words);
    const best = Math.max(0, ...rows.map((r) => Number(r.closeness)));
    const picked =
      exact.length > 0
        ? exact
        : whole.length > 0
          ? whole
          : rows.filter((r) => Number(r.closeness) >= best - CLOSENESS_TIE).slice(0, MAX_CLOSE_ACCOUNTS);
    matches.set(
      name,
      picked.map((r) => ({ id: String(r.id), name: String(r.name) })).sort((a, b) => a.name.localeCompare(b.name)),
    );
  }
  // A resolved name restricts the search, so its words no longer need to appear in the text.
  const resolvedWords = new Set(
    names.filter((name) => (matches.get(name) ?? []).length > 0).flatMap((name) => contentWords(name)),
  );
  const stripped = subqueries.map((sq): ResolvedSubquery => {
    const found = sq.accounts.flatMap((name) => matches.get(name) ?? []);
    return {
      ...sq,
      terms: sq.terms.filter((t) => !resolvedWords.has(t)),
      accountIds: found.length > 0 ? [...new Set(found.map((a) => a.id))] : null,
    };
  });
  // A facet that was only a company name is now empty; it would match every row of the account.
  const withWords = stripped.filter((sq) => sq.terms.length + sq.phrases.length > 0);
  const kept = withWords.length > 0 ? withWords : stripped.slice(0, 1);
  const seen = new Set<string>();
  const keyOf = (sq: ResolvedSubquery) =>
    JSON.stringify([sq.terms.length > 1 ? sq.match : 'all', sq.terms, sq.phrases]);
  const resolved = kept.filter((sq) => {
    if (seen.has(keyOf(sq))) return false;
    seen.add(keyOf(sq));
    return true;
  });
  // Room freed by dropped subqueries goes to recall variants (any word) of the facets left.
  for (const sq of [...resolved]) {
    if (resolved.length >= ctx.search.maxSubqueries) break;
    const variant: ResolvedSubquery = { ...sq, match: 'any' };
    if (sq.match === 'all' && sq.terms.length > 1 && !seen.has(keyOf(variant))) {
      seen.add(keyOf(variant));
      resolved.push(variant);
    }
  }
  return { resolved, accounts: names.map((asked) => ({ asked, matched: matches.get(asked) ?? [] })) };
}

/**
 * The accounts whose whole name the query writes exactly, in any case, that the plan did not name
 * ("what customers said about es2011c design ..."): a name is who spoke, so its words must not be
 * searched as the topic. A lower-case mention counts only for a name no everyday word could be (two
 * words or more, or a digit in it), and a name inside a longer one found is not a second account.
 */
async function accountsWrittenExactly(ctx: LaneContext, planned: FuzzyPlan['subqueries']): Promise<string[]> {
  const query = ctx.search.query ?? '';
  if (!query) return [];
  const plannedNames = new Set(planned.flatMap((sq) => sq.accounts.map((a) => a.toLowerCase())));
  const found: string[] = [];
  for (const { name } of await queryRows<{ name: string }>(
    ctx.services.db,
    accountsWrittenIn(ctx.workspaceId, query),
  )) {
    const whole = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(name)}(?![\\p{L}\\p{N}])`, 'iu');
    const distinctive = /\s/.test(name.trim()) || /\d/.test(name) || query.includes(name);
    const inside = found.some((f) => f.toLowerCase().includes(name.toLowerCase()));
    if (whole.test(query) && distinctive && !inside && !plannedNames.has(name.toLowerCase())) found.push(name);
  }
  return found;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function readMatchingTurns(ctx: LaneContext, subqueries: ResolvedSubquery[], rows: Record<string, unknown>[]) {
  const ids = rows.filter((r) => r.kind !== 'email').map((r) => String(r.id));
  const statement = matchingTurnsStatement(subqueries, ctx.workspaceId, ids);
  const byInteraction = new Map<
    string,
    { turn_id: string; turn_index: number; speaker_name: string | null; side: string; text: string }[]
  >();
  if (!statement) return byInteraction;
  for (const t of await queryRows<Record<string, unknown>>(ctx.services.db, statement)) {
    const key = String(t.interaction_id);
    const list = byInteraction.get(key) ?? [];
    list.push({
      turn_id: String(t.id),
      turn_index: Number(t.turn_index),
      speaker_name: (t.speaker_name as string | null) ?? null,
      side: String(t.side),
      text: String(t.text),
    });
    byInteraction.set(key, list);
  }
  return byInteraction;
}

/**
 * Why nothing matched: nothing synced (not_synced); the asked window lies outside the data's span,
 * or only excluded interactions matched (scope_disjoint); else no_match. A failed diagnosis says
 * no_match rather than failing an answer that did run.
 */
async function diagnoseEmpty(ctx: LaneContext, subqueries: ResolvedSubquery[]): Promise<EmptyReason> {
  try {
    const [span] = await queryRows<{ total: number; min_at: unknown; max_at: unknown }>(
      ctx.services.db,
      interactionSpan(ctx.workspaceId),
    );
    if (!span || Number(span.total) === 0) return 'not_synced';
    const min = Date.parse(pgTimestampToIso(span.min_at) ?? '');
    const max = Date.parse(pgTimestampToIso(span.max_at) ?? '');
    const outside = subqueries.every(
      (sq) => (sq.since !== null && Date.parse(sq.since) > max) || (sq.until !== null && Date.parse(sq.until) <= min),
    );
    if (outside) return 'scope_disjoint';
    const [unscoped] = await queryRows<{ n: number }>(ctx.services.db, unscopedMatchCount(subqueries, ctx.workspaceId));
    return Number(unscoped?.n ?? 0) > 0 ? 'scope_disjoint' : 'no_match';
  } catch (error) {
    ctx.services.log.warn('fuzzy lane empty-result diagnosis failed', {
      error: error instanceof Error ? error.message : String(error),
    });
    return 'no_match';
  }
}

/** What an empty answer searched, in words: the reader can see which part of the ask ruled rows out. */
function describePlan(plan: FuzzyPlanReport): string {
  const first = plan.subqueries[0];
  if (!first) return '';
  const kinds =
    first.kinds.length > 0 ? first.kinds.map((k) => `${k}s`).join(' and ') : 'calls, meetings, emails and posts';
  const names = plan.accounts.flatMap((a) => a.matched.map((m) => m.name));
  const accounts = names.length > 0 ? ` with ${names.join(', ')}` : '';
  const day = (iso: string) => iso.slice(0, 10);
  const window =
    first.since && first.until
      ? ` from ${day(first.since)} to before ${day(first.until)}`
      : first.since
        ? ` since ${day(first.since)}`
        : first.until
          ? ` before ${day(first.until)}`
          : '';
  const restricted = first.fields.map((f) => `${f.field} ${f.op} ${f.value}`);
  const where = restricted.length > 0 ? ` where ${restricted.join(' and ')}` : '';
  const asks = plan.subqueries
    .map((sq) =>
      [...sq.phrases.map((p) => `"${p}"`), sq.terms.join(sq.match === 'all' ? ' ' : ' or ')].filter(Boolean).join(' '),
    )
    .filter(Boolean);
  return `Searched ${kinds}${accounts}${window}${where}${asks.length > 0 ? ` for ${[...new Set(asks)].map((a) => `[${a}]`).join(', ')}` : ''}.`;
}
