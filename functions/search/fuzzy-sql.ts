import { sql, type SQL } from 'drizzle-orm';
import { quote } from './filter-values.js';
import type { FieldPredicate, FuzzySubquery } from './fuzzy-plan.js';
import { interactionInScope } from './scope-predicates.js';

/**
 * The statements of the fuzzy lane, each built twice in step: the parameterized SQL it runs (every
 * value bound) and the record of intent for `compiled.sql` (literals quoted, the tenant and
 * exclusion predicates left to the gate, like the filter lane's).
 *
 * Per subquery: the interactions whose own text (title, summary, email body: `search_tsv`) or whose
 * transcript turns match its full-text query (`websearch_to_tsquery`, plus `phraseto_tsquery` per
 * quoted phrase), or whose title is close to its words by trigram word similarity (typos), within
 * the subquery's account, kinds and window. Subqueries union; an interaction's score is the sum of
 * its scores, so rows answering several facets rank first.
 */

/** A subquery after the lane resolved its account: the ids to keep, or null for any account. */
export interface ResolvedSubquery extends FuzzySubquery {
  accountIds: string[] | null;
}

/**
 * Typo tolerance on titles, in two steps of pg_trgm: the subquery's words must be near the title as
 * a whole (word similarity, a cheap first cut), and each word must be near one word of the title
 * (similarity of the two words): "secuirty reveiw" reaches "Security review: ..." (0.38 and 0.27),
 * while an unknown word that merely shares a few trigrams with a long title does not ("quillwort"
 * against "Data export questions" scores 0.4 as a whole, but at most 0.13 against any one word).
 */
export const TITLE_CLOSENESS = 0.3;
export const TITLE_WORD_CLOSENESS = 0.25;
/** How close a company the ask names must be to an account name, when it is not a substring of it. */
export const ACCOUNT_CLOSENESS = 0.5;

function termsText(sq: FuzzySubquery): string {
  return sq.terms.join(sq.match === 'all' ? ' ' : ' or ');
}

/** The subquery's tsquery as SQL and as intent; null when it has no words (account/kind/window only). */
export function tsQuery(sq: FuzzySubquery): { sql: SQL; intent: string } | null {
  const parts: { sql: SQL; intent: string }[] = [];
  if (sq.terms.length > 0) {
    const text = termsText(sq);
    parts.push({
      sql: sql`websearch_to_tsquery('english', ${text}::text)`,
      intent: `websearch_to_tsquery('english', ${quote(text)})`,
    });
  }
  for (const phrase of sq.phrases)
    parts.push({
      sql: sql`phraseto_tsquery('english', ${phrase}::text)`,
      intent: `phraseto_tsquery('english', ${quote(phrase)})`,
    });
  if (parts.length === 0) return null;
  return {
    sql: sql.join(
      parts.map((p) => sql`(${p.sql})`),
      sql` && `,
    ),
    intent: parts.map((p) => `(${p.intent})`).join(' && '),
  };
}

/** The predicates on the interaction row shared by a subquery's text match and its turn match. */
function rowPredicates(sq: ResolvedSubquery, alias: 'i' | 't'): { sql: SQL[]; intent: string[] } {
  const out: { sql: SQL[]; intent: string[] } = { sql: [], intent: [] };
  const col = (name: string) => sql.raw(`${alias}.${name}`);
  if (sq.since) {
    out.sql.push(sql`${col('occurred_at')} >= ${sq.since}::timestamptz`);
    out.intent.push(`${alias}.occurred_at >= ${quote(sq.since)}`);
  }
  if (sq.until) {
    out.sql.push(sql`${col('occurred_at')} < ${sq.until}::timestamptz`);
    out.intent.push(`${alias}.occurred_at < ${quote(sq.until)}`);
  }
  return out;
}

function interactionPredicates(sq: ResolvedSubquery, workspaceId: string): { sql: SQL[]; intent: string[] } {
  const out = rowPredicates(sq, 'i');
  if (sq.kinds.length > 0) {
    out.sql.push(
      sql`i.kind in (${sql.join(
        sq.kinds.map((k) => sql`${k}::text`),
        sql`, `,
      )})`,
    );
    out.intent.push(`i.kind IN (${sq.kinds.map(quote).join(', ')})`);
  }
  for (const f of sq.fields) {
    const compiled = fieldPredicate(f, workspaceId);
    out.sql.push(compiled.sql);
    out.intent.push(compiled.intent);
  }
  if (sq.accountIds) {
    out.sql.push(
      sq.accountIds.length === 0
        ? sql`false`
        : sql`i.account_id in (${sql.join(
            sq.accountIds.map((id) => sql`${id}::uuid`),
            sql`, `,
          )})`,
    );
    out.intent.push(sq.accountIds.length === 0 ? 'false' : `i.account_id IN (${sq.accountIds.map(quote).join(', ')})`);
  }
  return out;
}

const COMPARISON: Record<'eq' | 'gt' | 'gte' | 'lt' | 'lte', string> = {
  eq: '=',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
};

/** A field restriction the plan read from the wording, as a bound predicate on the interaction row. */
function fieldPredicate(f: FieldPredicate, workspaceId: string): { sql: SQL; intent: string } {
  const op = sql.raw(COMPARISON[f.op]);
  switch (f.field) {
    case 'direction':
      return { sql: sql`i.direction = ${f.value}::text`, intent: `i.direction = ${quote(f.value)}` };
    case 'source':
      return { sql: sql`i.source = ${f.value}::text`, intent: `i.source = ${quote(f.value)}` };
    case 'duration_seconds':
      return {
        sql: sql`i.duration_seconds ${op} ${f.value}::int`,
        intent: `i.duration_seconds ${COMPARISON[f.op]} ${f.value}`,
      };
    case 'deal_stage':
      return {
        sql: sql`exists (select 1 from deals d where d.id = i.deal_id and d.workspace_id = ${workspaceId}::uuid and d.stage = ${f.value}::text)`,
        intent: `deal_stage = ${quote(f.value)}`,
      };
    case 'account_type':
      return {
        sql: sql`exists (select 1 from accounts a where a.id = i.account_id and a.workspace_id = ${workspaceId}::uuid and a.type = ${f.value}::text)`,
        intent: `account_type = ${quote(f.value)}`,
      };
  }
}

function titleCloseSql(sq: FuzzySubquery, words: string): SQL {
  const terms = sql.join(
    sq.terms.map((t) => sql`${t}::text`),
    sql`, `,
  );
  const each = sq.match === 'all' ? sql.raw('bool_and') : sql.raw('bool_or');
  return sql`(word_similarity(${words}::text, i.title) >= ${TITLE_CLOSENESS} and (select ${each}(exists (
      select 1 from regexp_split_to_table(lower(i.title), '[^[:alnum:]]+') w where similarity(w, term) >= ${TITLE_WORD_CLOSENESS}))
    from unnest(array[${terms}]) as term))`;
}

function titleCloseIntent(sq: FuzzySubquery, words: string): string {
  const each = sq.match === 'all' ? 'bool_and' : 'bool_or';
  return `(word_similarity(${quote(words)}, i.title) >= ${TITLE_CLOSENESS} AND (SELECT ${each}(EXISTS (SELECT 1 FROM regexp_split_to_table(lower(i.title), '[^[:alnum:]]+') w WHERE similarity(w, term) >= ${TITLE_WORD_CLOSENESS})) FROM unnest(ARRAY[${sq.terms.map(quote).join(', ')}]) AS term))`;
}

/** One subquery as a pair of CTEs (turn matches, then scored interactions), in SQL and in intent. */
function subqueryCtes(
  sq: ResolvedSubquery,
  index: number,
  workspaceId: string,
  scoped: boolean,
): { sql: SQL; intent: string } {
  const n = index + 1;
  const q = tsQuery(sq);
  const words = sq.terms.join(' ');
  const rows = interactionPredicates(sq, workspaceId);
  const scope = scoped ? [interactionInScope(workspaceId, sql`i.id`)] : [];
  const tenant = sql`i.workspace_id = ${workspaceId}::uuid`;

  if (!q) {
    const where = sql.join([tenant, ...scope, ...rows.sql], sql` and `);
    return {
      sql: sql`${sql.raw(`s${n}`)} as (select i.id, ${n}::int as sq, 0::float8 as score from interactions i where ${where})`,
      intent: `s${n} AS (SELECT i.id, ${n} AS sq, 0 AS score FROM interactions i${rows.intent.length ? ` WHERE ${rows.intent.join(' AND ')}` : ''})`,
    };
  }

  // With an account named, only its interactions' turns are worth ranking (bench, 10x: the
  // five-facet Glacier query went from 161 to about 60 ms, the Lumen one from 79 to 45 ms).
  const narrow = sq.accountIds
    ? {
        sql: [
          sql`t.interaction_id in (select i.id from interactions i where i.workspace_id = ${workspaceId}::uuid and ${sql.join(rows.sql, sql` and `)})`,
        ],
        intent: [`t.interaction_id IN (SELECT i.id FROM interactions i WHERE ${rows.intent.join(' AND ')})`],
      }
    : { sql: [], intent: [] };
  const turnWhere = sql.join(
    [
      sql`t.workspace_id = ${workspaceId}::uuid`,
      sql`t.search_tsv @@ (${q.sql})`,
      ...rowPredicates(sq, 't').sql,
      ...narrow.sql,
    ],
    sql` and `,
  );
  const titleClose = sq.terms.length > 0 ? titleCloseSql(sq, words) : sql`false`;
  const titleScore = sq.terms.length > 0 ? sql`0.5 * word_similarity(${words}::text, i.title)` : sql`0`;
  const match = sql`(i.search_tsv @@ (${q.sql}) or ${sql.raw(`t${n}`)}.interaction_id is not null or ${titleClose})`;
  const where = sql.join([tenant, ...scope, ...rows.sql, match], sql` and `);
  const turnsName = sql.raw(`t${n}`);

  const turnIntentWhere = [`t.search_tsv @@ ${q.intent}`, ...rowPredicates(sq, 't').intent, ...narrow.intent].join(
    ' AND ',
  );
  const intentMatch = `(i.search_tsv @@ ${q.intent} OR t${n}.interaction_id IS NOT NULL${sq.terms.length > 0 ? ` OR ${titleCloseIntent(sq, words)}` : ''})`;
  return {
    sql: sql`${turnsName} as (select t.interaction_id, max(ts_rank_cd(t.search_tsv, (${q.sql}))) as rank from transcript_turns t where ${turnWhere} group by t.interaction_id),
      ${sql.raw(`s${n}`)} as (
        select i.id, ${n}::int as sq,
          (coalesce(ts_rank_cd(i.search_tsv, (${q.sql})), 0) + coalesce(${turnsName}.rank, 0) + ${titleScore})::float8 as score
        from interactions i left join ${turnsName} on ${turnsName}.interaction_id = i.id
        where ${where})`,
    intent:
      `t${n} AS (SELECT t.interaction_id, max(ts_rank_cd(t.search_tsv, ${q.intent})) AS rank FROM transcript_turns t WHERE ${turnIntentWhere} GROUP BY t.interaction_id),\n` +
      `  s${n} AS (SELECT i.id, ${n} AS sq, ts_rank_cd(i.search_tsv, ${q.intent}) + coalesce(t${n}.rank, 0)${sq.terms.length > 0 ? ` + 0.5 * word_similarity(${quote(words)}, i.title)` : ''} AS score` +
      ` FROM interactions i LEFT JOIN t${n} ON t${n}.interaction_id = i.id WHERE ${[...rows.intent, intentMatch].join(' AND ')})`,
  };
}

function unionOf(subqueries: readonly ResolvedSubquery[], workspaceId: string, scoped: boolean) {
  const ctes = subqueries.map((sq, i) => subqueryCtes(sq, i, workspaceId, scoped));
  const union = subqueries.map((_sq, i) => sql.raw(`select id, sq, score from s${i + 1}`));
  return {
    ctes,
    sql: sql`with ${sql.join(
      ctes.map((c) => c.sql),
      sql`, `,
    )}, u as (${sql.join(union, sql` union all `)}),
      m as (select id, sum(score)::float8 as score, array_agg(distinct sq) as sqs from u group by id)`,
  };
}

/** The statement the lane runs: the top `limit` interactions with their account and deal, and counts. */
export function fuzzyStatement(
  subqueries: readonly ResolvedSubquery[],
  workspaceId: string,
  limit: number,
): { statement: SQL; intent: string } {
  const union = unionOf(subqueries, workspaceId, true);
  const perSubquery = subqueries.map((_sq, i) =>
    sql.raw(`, count(*) filter (where ${i + 1} = any(m.sqs)) over () as __sq${i + 1}`),
  );
  const statement = sql`${union.sql}
    select i.id, i.kind, i.title, i.occurred_at, i.duration_seconds, i.direction, i.source, i.thread_id, i.summary, i.body,
      i.participant_count, i.external_participant_count, i.account_id, a.name as account_name, a.type as account_type,
      i.deal_id, d.name as deal_name, d.stage as deal_stage, m.score, m.sqs,
      count(*) over () as __match_count ${sql.join(perSubquery, sql``)}
    from m join interactions i on i.id = m.id and i.workspace_id = ${workspaceId}::uuid
      left join accounts a on a.id = i.account_id and a.workspace_id = ${workspaceId}::uuid
      left join deals d on d.id = i.deal_id and d.workspace_id = ${workspaceId}::uuid
    order by m.score desc, i.occurred_at desc, i.id
    limit ${limit}`;
  const intent =
    `WITH ${union.ctes.map((c) => c.intent).join(',\n  ')},\n` +
    `  u AS (${subqueries.map((_sq, i) => `SELECT id, sq, score FROM s${i + 1}`).join(' UNION ALL ')}),\n` +
    `  m AS (SELECT id, sum(score) AS score, array_agg(DISTINCT sq) AS sqs FROM u GROUP BY id)\n` +
    `SELECT i.*, a.name AS account_name, a.type AS account_type, d.name AS deal_name, d.stage AS deal_stage, m.score, m.sqs\n` +
    `FROM m JOIN interactions i ON i.id = m.id LEFT JOIN accounts a ON a.id = i.account_id LEFT JOIN deals d ON d.id = i.deal_id\n` +
    `ORDER BY m.score DESC, i.occurred_at DESC, i.id ASC\nLIMIT ${limit}`;
  return { statement, intent };
}

/** How many interactions the same subqueries match without the exclusion settings (diagnosing an empty result). */
export function unscopedMatchCount(subqueries: readonly ResolvedSubquery[], workspaceId: string): SQL {
  return sql`${unionOf(subqueries, workspaceId, false).sql} select count(*)::int as n from m`;
}

/** The turns of the returned calls and meetings that match any subquery, best first, three each. */
export function matchingTurnsStatement(
  subqueries: readonly ResolvedSubquery[],
  workspaceId: string,
  interactionIds: readonly string[],
): SQL | null {
  const queries = subqueries.map(tsQuery).filter((q): q is NonNullable<typeof q> => q !== null);
  if (queries.length === 0 || interactionIds.length === 0) return null;
  const any = sql.join(
    queries.map((q) => sql`(${q.sql})`),
    sql` || `,
  );
  return sql`select id, interaction_id, turn_index, speaker_name, side, text from (
      select t.id, t.interaction_id, t.turn_index, t.speaker_name, t.side, t.text,
        row_number() over (partition by t.interaction_id order by ts_rank_cd(t.search_tsv, ${any}) desc, t.turn_index) as rn
      from transcript_turns t
      where t.workspace_id = ${workspaceId}::uuid
        and t.interaction_id in (${sql.join(
          interactionIds.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})
        and t.search_tsv @@ (${any})
    ) x where rn <= 3 order by interaction_id, rn`;
}

/**
 * Candidate accounts for a company the ask named, with what the lane ranks them by: an exact name,
 * the name containing it as whole words ("Acme" in "Acme Logistics"), or trigram closeness for a
 * misspelling. The lane keeps the best tier only, so "Acme Logistics" does not also bring in every
 * other "... Logistics" (they share a word, and word similarity alone would pass them).
 */
export function accountLookup(workspaceId: string, name: string): SQL {
  const wholeWords = `\\m${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\M`;
  return sql`select a.id, a.name, lower(a.name) = lower(${name}::text) as exact, a.name ~* ${wholeWords}::text as whole_words,
      word_similarity(${name}::text, a.name) as closeness
    from accounts a
    where a.workspace_id = ${workspaceId}::uuid
      and (lower(a.name) = lower(${name}::text) or a.name ~* ${wholeWords}::text or word_similarity(${name}::text, a.name) >= ${ACCOUNT_CLOSENESS})
    order by closeness desc, a.name
    limit 50`;
}

/** The accounts whose whole name the text holds, in any case (whole words are checked by the caller). */
export function accountsWrittenIn(workspaceId: string, text: string): SQL {
  return sql`select a.name from accounts a
    where a.workspace_id = ${workspaceId}::uuid and strpos(lower(${text}::text), lower(a.name)) > 0
    order by length(a.name) desc, a.name
    limit 50`;
}

/** The interactions surface's size and event span, exclusions ignored: is there anything at all, and when. */
export function interactionSpan(workspaceId: string): SQL {
  return sql`select count(*)::int as total, min(occurred_at) as min_at, max(occurred_at) as max_at from interactions where workspace_id = ${workspaceId}::uuid`;
}
