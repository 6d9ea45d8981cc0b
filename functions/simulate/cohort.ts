import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { toDate } from '../../platform/db/timestamps.js';
import { ApiError } from '../../platform/errors.js';
import type { FieldProblem } from '../../platform/validation.js';
import { DEAL_STAGES, type DealStage } from '../../schema/warehouse-deals.js';
import { compilePredicateList, invalidFilters, surfaceSource, type CompiledPredicateList } from '../search/index.js';
import type { CohortDeal } from './projection.js';
import type { Assumption, SimulateSurface } from './schemas.js';

/**
 * The cohort of a simulation, read in one statement: the rows of the surface that the search lane's
 * predicates select (compiled by the filter lane's compiler, with its tenant and scope predicates)
 * and whose event time falls within the last `horizon_days`, as deals. On the interactions surface
 * the deals are those the cohort's interactions belong to (each once); a `set` assumption's `where`
 * matches a deal when it matches one of its interactions in the cohort.
 */

/** The most rows one simulation reads; a larger cohort is refused (narrow it with filters). */
export const MAX_COHORT_ROWS = 50_000;

export interface Cohort {
  /** Rows of the surface in the cohort and period. */
  rowCount: number;
  deals: CohortDeal[];
  /** The read as a record of intent (the search lane's format: no tenant or scope predicates). */
  intentSql: string;
}

interface CohortQuery {
  cohort: CompiledPredicateList;
  /** Compiled `where` of each `set` assumption, by the assumption's index. */
  wheres: Map<number, CompiledPredicateList>;
}

/** Compile the cohort and every `where` with the filter lane's rules; one 400 names every problem. */
export function compileCohortQuery(
  surface: SimulateSurface,
  filters: Parameters<typeof compilePredicateList>[1],
  assumptions: readonly Assumption[],
  workspaceId: string,
): CohortQuery {
  const problems: FieldProblem[] = [];
  const cohort = compilePredicateList(surface, filters, workspaceId, 'cohort.filters', problems);
  const wheres = new Map<number, CompiledPredicateList>();
  assumptions.forEach((assumption, i) => {
    if (assumption.type === 'set' && assumption.where)
      wheres.set(i, compilePredicateList(surface, assumption.where, workspaceId, `assumptions.${i}.where`, problems));
  });
  if (problems.length > 0) throw invalidFilters(problems);
  return { cohort, wheres };
}

interface CohortRow extends Record<string, unknown> {
  deal_id: string | null;
  deal_name: string | null;
  stage: string | null;
  amount: string | number | null;
  is_closed: boolean | null;
  is_won: boolean | null;
  created_at: Date | string | null;
  close_date: string | null;
  members: number | string;
}

/** The statement readCohort runs, and its record of intent (what `evidence.compiled.sql` shows). */
export interface CohortStatement {
  statement: SQL;
  intentSql: string;
  /** The result column of each `set` assumption's `where`, by the assumption's index. */
  matchColumns: { index: number; alias: string }[];
}

/**
 * The cohort read as one statement, without running it: readCohort runs it, and a benchmark runs it
 * alone beside POST /simulate to show what the projection adds to the read (bench/simulate.ts).
 */
export function cohortStatement(
  surface: SimulateSurface,
  query: CohortQuery,
  workspaceId: string,
  since: Date,
): CohortStatement {
  const fields = [query.cohort, ...query.wheres.values()].flatMap((p) => [...p.fields]);
  const { from, scope } = surfaceSource(surface, workspaceId, fields, surface === 'interactions' ? ['deal_stage'] : []);
  const where = sql.join(
    [scope, ...(query.cohort.sql ? [query.cohort.sql] : []), sql`t.occurred_at > ${since.toISOString()}::timestamptz`],
    sql` and `,
  );
  const matchColumns = [...query.wheres.entries()].map(([index, compiled]) => ({
    index,
    alias: `where_${index}`,
    sql: compiled.sql ?? sql`true`,
    intent: compiled.intent || 'TRUE',
  }));
  const sinceLiteral = `'${since.toISOString()}'`;
  const intentWhere = [query.cohort.intent, `occurred_at > ${sinceLiteral}`].filter(Boolean).join(' AND ');

  let statement: SQL;
  let intentSql: string;
  if (surface === 'deals') {
    const matches = matchColumns.map((m) => sql`, coalesce((${m.sql}), false) as ${sql.identifier(m.alias)}`);
    statement = sql`select t.id as deal_id, t.name as deal_name, t.stage, t.amount, t.is_closed, t.is_won,
        t.occurred_at as created_at, t.close_date::text as close_date, 1 as members${sql.join(matches, sql``)}
      from ${from} where ${where} order by t.occurred_at, t.id limit ${MAX_COHORT_ROWS + 1}`;
    intentSql = `SELECT id, name, stage, amount, is_closed, is_won, occurred_at, close_date${matchColumns.map((m) => `, (${m.intent}) AS ${m.alias}`).join('')} FROM deals WHERE ${intentWhere}`;
  } else {
    // One row per deal (and one for the interactions on no deal), with how many interactions it has.
    const matches = matchColumns.map((m) => sql`, bool_or(coalesce((${m.sql}), false)) as ${sql.identifier(m.alias)}`);
    statement = sql`select d.id as deal_id, d.name as deal_name, d.stage, d.amount, d.is_closed, d.is_won,
        d.occurred_at as created_at, d.close_date::text as close_date, count(*) as members${sql.join(matches, sql``)}
      from ${from} where ${where} group by d.id order by min(t.occurred_at), d.id limit ${MAX_COHORT_ROWS + 1}`;
    intentSql = `SELECT deal_id, deal_stage, deal.amount, deal.is_closed, deal.is_won, deal.occurred_at, deal.close_date, count(*)${matchColumns.map((m) => `, bool_or(${m.intent}) AS ${m.alias}`).join('')} FROM interactions WHERE ${intentWhere} GROUP BY deal_id`;
  }
  return { statement, intentSql, matchColumns: matchColumns.map(({ index, alias }) => ({ index, alias })) };
}

export async function readCohort(
  db: Queryable,
  surface: SimulateSurface,
  query: CohortQuery,
  workspaceId: string,
  since: Date,
): Promise<Cohort> {
  const { statement, intentSql, matchColumns } = cohortStatement(surface, query, workspaceId, since);
  const rows = await queryRows<CohortRow>(db, statement);
  const rowCount = rows.reduce((n, r) => n + Number(r.members), 0);
  if (rows.length > MAX_COHORT_ROWS)
    throw new ApiError(
      'invalid_argument',
      `The cohort holds more than ${MAX_COHORT_ROWS} rows: narrow it with cohort.filters.`,
      {
        fields: [{ field: 'cohort.filters', problem: `more than ${MAX_COHORT_ROWS} rows`, code: 'too_big' }],
      },
    );
  const deals: CohortDeal[] = [];
  for (const row of rows) {
    if (row.deal_id === null) continue;
    deals.push({
      id: row.deal_id,
      name: row.deal_name ?? '',
      stage: asStage(row.stage),
      amount: row.amount === null ? null : Number(row.amount),
      isClosed: row.is_closed === true,
      isWon: row.is_won === true,
      createdMs: (toDate(row.created_at) as Date).getTime(),
      closeDate: row.close_date,
      matches: new Map(matchColumns.map((m) => [m.index, row[m.alias] === true])),
    });
  }
  return { rowCount, deals, intentSql };
}

function asStage(stage: string | null): DealStage {
  const known = DEAL_STAGES.find((s) => s === stage);
  if (!known) throw new Error(`deal stage outside the schema's set: ${String(stage)}`);
  return known;
}
