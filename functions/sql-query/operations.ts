import { z } from '@hono/zod-openapi';
import { defineOperation, type Operation } from '../registry.js';
import { ALLOWED_FUNCTIONS, QUERY_VIEWS, VIEW_SCHEMA } from './guard.js';
import { DEFAULT_MAX_PLAN_COST, DEFAULT_STATEMENT_TIMEOUT_MS, runQuery } from './run.js';

/** The spec's SQL query (schema-only there): `sql` and `limit` in, `QueryResult` out. */
export const SqlQueryBody = z
  .object({
    sql: z.string().min(1).max(20_000),
    limit: z.number().int().min(1).max(1000).default(100),
  })
  .strict();

export const QueryResultSchema = z
  .object({
    rowCount: z.number().int(),
    truncated: z.boolean().openapi({ description: 'More rows matched than `limit`.' }),
    rows: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi('QueryResult');

export const sqlQueryOperation = defineOperation({
  tags: ['SQL query'],
  stability: 'beta',
  visibility: 'public',
  scopes: ['data:read'],
  minRole: 'viewer',
  id: 'sql.query',
  example: { sql: 'select stage, count(*) as n, sum(amount) as total from deals group by stage', limit: 50 },
  method: 'post',
  path: '/sql/query',
  summary: "Read-only SQL over the workspace's views",
  description:
    `One SELECT over the views ${QUERY_VIEWS.join(', ')} (bare or as \`${VIEW_SCHEMA}.<view>\`), each holding only this workspace's rows. ` +
    `Checked on the Postgres parser before it runs: a single SELECT; only those views and the query's own CTEs; functions from an allow list (${[...ALLOWED_FUNCTIONS].slice(0, 12).join(', ')}, ...); casts to plain types. ` +
    `Anything else is 400 \`invalid_argument\` with \`details.reason\`. ` +
    `A query the planner estimates above SQL_QUERY_MAX_COST (default ${DEFAULT_MAX_PLAN_COST}) is refused before it runs: 400 \`invalid_argument\`, \`details.reason\` \`query_too_expensive\` with \`estimated_cost\` and \`max_cost\`. ` +
    `Runs as the least-privilege role cip_query (the views and the allowed functions only; on Neon through SQL_QUERY_DATABASE_URL, else 503 \`dependency_unavailable\`, \`details.reason\` \`sql_sandbox_unavailable\`), ` +
    `in a read-only transaction that is always rolled back, with a statement timeout (SQL_QUERY_TIMEOUT_MS, default ${DEFAULT_STATEMENT_TIMEOUT_MS} ms); ` +
    '`truncated` says more rows matched than `limit`. A statement Postgres refuses for its own text (SQLSTATE class 22 or 42: a bad value, a column, table or function signature the views lack, mismatched types, a privilege the role lacks) is 400 `invalid_argument` naming `sql`, with `details.reason` (the condition name, e.g. `undefined_column`) and `sqlstate`. ' +
    'Any other failure while running is 500 `query_failed` (`details.reason`: `statement_timeout` or `execution_error`).',
  mcp: { tool: 'sql', action: 'query' },
  readOnly: true,
  body: SqlQueryBody,
  output: QueryResultSchema,
  async handler({ services, caller }, input) {
    return runQuery(
      services.db,
      services.sqlParser,
      caller.workspaceId,
      input.sql,
      {
        limit: input.limit,
        timeoutMs: services.config.SQL_QUERY_TIMEOUT_MS ?? DEFAULT_STATEMENT_TIMEOUT_MS,
        maxCost: services.config.SQL_QUERY_MAX_COST ?? DEFAULT_MAX_PLAN_COST,
      },
      services.sqlQueryConnection,
    );
  },
});

export const sqlQueryOperations: Operation[] = [sqlQueryOperation];
