import { z } from '@hono/zod-openapi';
import { sql } from 'drizzle-orm';
import { stringify } from 'csv-stringify/sync';
import type { Database } from '../../platform/db/port.js';
import { queryRows } from '../../platform/db/port.js';
import { defineOperation, type DownloadBody, type Operation } from '../registry.js';
import { EVAL_RUN_KIND } from './run-state.js';

/**
 * `GET /evals/export.csv` and `.jsonl`: one row per eval run of the workspace with its scores,
 * oldest first, streamed page by page (keyset on created_at, id; the scores read out of the stored
 * report card in SQL), so 10,000 runs cost what 200 do in memory.
 */
const PAGE = 200;

export const EXPORT_COLUMNS = [
  'run_id',
  'eval_slug',
  'eval_version',
  'status',
  'mode',
  'created_at',
  'completed_at',
  'verdict',
  'overall_score',
  'total_cases',
  'passed_cases',
  'message_score',
  'message_after_score',
  'prompt_score',
  'prompt_after_score',
  'retrieved_quotes',
  'retrieval_status',
] as const;
type ExportRow = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>;

const query = z
  .object({
    eval: z.string().min(1).max(200).optional().openapi({ description: 'Only runs of this eval (slug).' }),
    from: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Runs created at or after (ISO).' }),
    to: z.iso.datetime({ offset: true }).optional().openapi({ description: 'Runs created before (ISO).' }),
  })
  .strict();

async function* pages(db: Database, workspaceId: string, filter: z.infer<typeof query>): AsyncGenerator<ExportRow[]> {
  let after: { at: string; id: string } | null = null;
  for (;;) {
    const rows: (ExportRow & { cursor_at: string })[] = await queryRows<ExportRow & { cursor_at: string }>(
      db,
      sql`select r.id as run_id, r.input->'eval'->>'slug' as eval_slug, r.input->'eval'->>'version' as eval_version, r.status,
                 coalesce(r.input->'inputs'->>'mode', 'rewrite') as mode,
                 to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
                 to_char(r.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as completed_at,
                 r.state->'verdict'->>'verdict' as verdict,
                 (r.state->'verdict'->>'overall_score')::float8 as overall_score,
                 (r.state->'verdict'->'summary'->>'total_cases')::int as total_cases,
                 (r.state->'verdict'->'summary'->>'passed_cases')::int as passed_cases,
                 (select (c->>'score')::float8 from jsonb_array_elements(r.state->'verdict'->'cases') c where c->>'case_id' = 'message') as message_score,
                 (select (g->'improvement'->'after'->>'score')::float8 from jsonb_array_elements(r.state->'verdict'->'cases') c, jsonb_array_elements(c->'graders') g where c->>'case_id' = 'message' and g->'improvement'->'after' is not null and g->'improvement'->'after' <> 'null'::jsonb limit 1) as message_after_score,
                 (select (c->>'score')::float8 from jsonb_array_elements(r.state->'verdict'->'cases') c where c->>'case_id' = 'prompt') as prompt_score,
                 (select (g->'improvement'->'after'->>'score')::float8 from jsonb_array_elements(r.state->'verdict'->'cases') c, jsonb_array_elements(c->'graders') g where c->>'case_id' = 'prompt' and g->'improvement'->'after' is not null and g->'improvement'->'after' <> 'null'::jsonb limit 1) as prompt_after_score,
                 coalesce(jsonb_array_length(case when jsonb_typeof(r.state->'evidence'->'quotes') = 'array' then r.state->'evidence'->'quotes' end), 0) as retrieved_quotes,
                 r.state->'evidence'->>'retrieval_status' as retrieval_status,
                 r.created_at::text as cursor_at
          from (
            -- The page first (the index on workspace, kind, created_at), then the scores of its rows only:
            -- computing them before the limit would read every remaining run on every page.
            select id from runs
            where workspace_id = ${workspaceId} and kind = ${EVAL_RUN_KIND}
              ${filter.eval ? sql`and input->'eval'->>'slug' = ${filter.eval}` : sql``}
              ${filter.from ? sql`and created_at >= ${filter.from}::timestamptz` : sql``}
              ${filter.to ? sql`and created_at < ${filter.to}::timestamptz` : sql``}
              ${after ? sql`and (created_at, id) > (${after.at}::timestamptz, ${after.id}::uuid)` : sql``}
            order by created_at, id
            limit ${PAGE}
          ) page
          join runs r on r.id = page.id
          order by r.created_at, r.id`,
    );
    if (rows.length === 0) return;
    const last = rows[rows.length - 1] as ExportRow & { cursor_at: string };
    after = { at: last.cursor_at, id: String(last.run_id) };
    yield rows.map((r) => Object.fromEntries(EXPORT_COLUMNS.map((c) => [c, r[c] ?? null])) as ExportRow);
    if (rows.length < PAGE) return;
  }
}

async function* csvBody(db: Database, workspaceId: string, filter: z.infer<typeof query>): DownloadBody {
  yield stringify([[...EXPORT_COLUMNS]]);
  for await (const page of pages(db, workspaceId, filter))
    yield stringify(page.map((row) => EXPORT_COLUMNS.map((c) => row[c] ?? '')));
}

async function* jsonlBody(db: Database, workspaceId: string, filter: z.infer<typeof query>): DownloadBody {
  for await (const page of pages(db, workspaceId, filter)) yield page.map((row) => `${JSON.stringify(row)}\n`).join('');
}

const common = {
  tags: ['Evals'],
  stability: 'beta' as const,
  visibility: 'public' as const,
  scopes: ['evals:read'] as const,
  minRole: 'viewer' as const,
  method: 'get' as const,
  query,
  agentTool: false as const,
  output: z.custom<DownloadBody>((v) => typeof v === 'object' && v !== null && Symbol.asyncIterator in v),
};

export const exportCsv = defineOperation({
  ...common,
  id: 'evals.export_csv',
  path: '/evals/export.csv',
  summary: 'Export eval runs as CSV (one row per run with its scores; streamed, not wrapped)',
  description: `Columns: ${EXPORT_COLUMNS.join(', ')}. Oldest first. Filters: \`eval\`, \`from\`, \`to\`.`,
  download: { contentType: 'text/csv; charset=utf-8', filename: 'eval-runs.csv' },
  async handler({ services, caller }, input) {
    return csvBody(services.db, caller.workspaceId, input);
  },
});

export const exportJsonl = defineOperation({
  ...common,
  id: 'evals.export_jsonl',
  path: '/evals/export.jsonl',
  summary: 'Export eval runs as JSON lines (one object per run with its scores; streamed, not wrapped)',
  description: `Keys: ${EXPORT_COLUMNS.join(', ')}. Oldest first. Filters: \`eval\`, \`from\`, \`to\`.`,
  download: { contentType: 'application/x-ndjson', filename: 'eval-runs.jsonl' },
  async handler({ services, caller }, input) {
    return jsonlBody(services.db, caller.workspaceId, input);
  },
});

export const exportOperations: Operation[] = [exportCsv, exportJsonl];
