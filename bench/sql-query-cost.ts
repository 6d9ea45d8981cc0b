/**
 * POST /sql/query's cost cap (SQL_QUERY_MAX_COST) against the demo corpus: for each query, the
 * planner's estimate of what would run (the same wrapped statement and transaction settings as the
 * operation), whether the default cap lets it through, and how long it takes on PGlite when it
 * does. The documented example and ordinary analytic queries must pass at 10x; cross joins are what
 * the cap is for. Queries far over the cap are not run (on PGlite nothing could stop them).
 *
 *   npx tsx bench/sql-query-cost.ts [scale ...]     (default: 1 10)
 */
import { sql } from 'drizzle-orm';
import { checkQuery } from '../functions/sql-query/guard.js';
import { estimatedCost } from '../functions/sql-query/plan-cost.js';
import { DEFAULT_MAX_PLAN_COST, executeChecked } from '../functions/sql-query/run.js';
import { QUERY_ROLE } from '../functions/sql-query/sandbox.js';
import { packageSqlParser } from '../platform/sql-parser/package.js';
import { openBenchCorpus, type BenchCorpus } from './corpus-db.js';
import { printTable } from './report.js';

/** The documented example first (docs/guides/sql-query.md and the operation's example), then ordinary analytics, then cross joins. */
export const COST_QUERIES: { kind: string; sql: string }[] = [
  { kind: 'documented', sql: 'select stage, count(*) as n, sum(amount) as total from deals group by stage' },
  {
    kind: 'ordinary',
    sql: 'select a.name, count(i.id) as n from accounts a join interactions i on i.account_id = a.id group by a.name order by n desc',
  },
  {
    kind: 'ordinary',
    sql: "select date_trunc('month', occurred_at) as month, kind, count(*) as n from interactions group by 1, 2 order by 1",
  },
  {
    kind: 'ordinary',
    sql: 'select i.title, count(t.id) as turns from interactions i join transcript_turns t on t.interaction_id = i.id group by i.title order by turns desc',
  },
  {
    kind: 'ordinary',
    sql: "select a.name, count(*) as n from accounts a join interactions i on i.account_id = a.id join transcript_turns t on t.interaction_id = i.id where t.text ilike '%price%' group by a.name order by n desc",
  },
  {
    kind: 'ordinary',
    sql: 'select c.name, a.name as account, count(p.id) as meetings from contacts c join accounts a on a.id = c.account_id left join participants p on p.contact_id = c.id group by c.name, a.name',
  },
  {
    kind: 'ordinary',
    sql: 'select d.stage, avg(d.amount) as avg_amount, count(distinct i.id) as touches from deals d left join interactions i on i.deal_id = d.id group by d.stage',
  },
  {
    kind: 'ordinary',
    sql: 'select speaker_name, count(*) as turns, avg(length(text)) as avg_len from transcript_turns group by speaker_name order by turns desc',
  },
  { kind: 'cross join', sql: 'select count(*) as n from accounts a, accounts b' },
  { kind: 'cross join', sql: 'select count(*) as n from accounts a, accounts b, accounts c' },
  { kind: 'cross join', sql: 'select count(*) as n from transcript_turns a, interactions b' },
  // A LIMIT over a join whose filter never matches reads the whole join: priced at the join, not the limit.
  {
    kind: 'limited cross join',
    sql: "select a.id from accounts a, accounts b, accounts c where a.name || b.name || c.name = 'never' limit 1",
  },
  {
    kind: 'limited cross join',
    sql: "with j as (select a.id from accounts a, accounts b where a.name || b.name = 'never') select * from j limit 1",
  },
];

/** Beyond this multiple of the cap a query is estimated only: PGlite would hold the process for it. */
const RUN_UP_TO = 2;

export async function benchSqlQueryCost(corpus: BenchCorpus): Promise<Record<string, string | number>[]> {
  const rows: Record<string, string | number>[] = [];
  for (const q of COST_QUERIES) {
    const statement = await checkQuery(packageSqlParser, q.sql);
    const wrapped = `select * from (\n${statement}\n) as caller_query limit 101`;
    const cost = await corpus.db.transaction(async (tx) => {
      // As the operation plans it (functions/sql-query/sandbox.ts): the workspace bound, as the caller's role.
      await tx.execute(sql`select query_guard.bind_workspace(${corpus.workspaceId}::uuid)`);
      await tx.execute(sql.raw(`set local role ${QUERY_ROLE}`));
      await tx.execute(sql`set local search_path = ws_views`);
      return estimatedCost(tx, wrapped);
    });
    let ms = 'not run';
    if (cost <= RUN_UP_TO * DEFAULT_MAX_PLAN_COST) {
      const started = performance.now();
      await executeChecked(corpus.db, corpus.workspaceId, statement, {
        limit: 100,
        timeoutMs: 60_000,
        maxCost: Number.POSITIVE_INFINITY,
      });
      ms = (performance.now() - started).toFixed(0);
    }
    rows.push({
      kind: q.kind,
      'estimated cost': Math.round(cost),
      'default cap': cost > DEFAULT_MAX_PLAN_COST ? 'refused' : 'runs',
      'PGlite ms': ms,
      query: q.sql.length > 90 ? `${q.sql.slice(0, 87)}...` : q.sql,
    });
  }
  return rows;
}

export const sqlQueryCostTitle = (corpus: BenchCorpus) =>
  `SQL query cost cap at ${corpus.scale}x (default SQL_QUERY_MAX_COST ${DEFAULT_MAX_PLAN_COST}): planner estimate vs. PGlite time`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const scales = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  for (const scale of scales.length > 0 ? scales : [1, 10]) {
    const corpus = await openBenchCorpus(scale);
    try {
      printTable(sqlQueryCostTitle(corpus), await benchSqlQueryCost(corpus));
    } finally {
      await corpus.close();
    }
  }
  process.exit(0);
}
