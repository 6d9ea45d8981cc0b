import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { WAREHOUSE_SURFACES, type WarehouseSurface } from '../../schema/warehouse-settings.js';
import { SURFACE_VOCABULARY } from './fields.js';
import { toDate } from '../../platform/db/timestamps.js';

export interface SurfaceOverview {
  row_count: number;
  earliest_event_at: string | null;
  latest_event_at: string | null;
}

/**
 * Per-surface row counts and time spans (spec, GET /search/overview). Each surface is read on its
 * own; one whose read fails reports null, never 0, and the others still answer.
 *
 * The counts are the rows the workspace holds, scoped by tenant and nothing else: interactions the
 * workspace excluded from search are counted, on the same basis as `detail.coverage.total_rows`
 * (functions/search/freshness.ts). A filter-lane count over interactions is therefore lower by
 * the number excluded; deals and deal_qualification have no exclusions and agree exactly.
 */
export async function surfaceOverview(
  db: Queryable,
  workspaceId: string,
): Promise<Record<WarehouseSurface, SurfaceOverview | null>> {
  const entries = await Promise.all(
    WAREHOUSE_SURFACES.map(
      async (surface) =>
        [
          surface,
          await readSpan(
            db,
            sql`select count(*)::int as n, min(occurred_at) as earliest, max(occurred_at) as latest
                from ${sql.identifier(SURFACE_VOCABULARY[surface].table)} where workspace_id = ${workspaceId}`,
          ),
        ] as const,
    ),
  );
  return Object.fromEntries(entries) as Record<WarehouseSurface, SurfaceOverview | null>;
}

/**
 * The semantic stores behind the semantic lane, in the same shape (null when unreadable). Both
 * count only what the lane can read: vectors and themes of the configured embedder (vectors of
 * another embedder are never compared with its queries, functions/search/semantic-utterances.ts
 * and semantic-themes.ts).
 */
export async function semanticOverview(
  db: Queryable,
  workspaceId: string,
  embedderId: string,
): Promise<Record<'utterances_external' | 'themes', SurfaceOverview | null>> {
  const [utterancesExternal, themes] = await Promise.all([
    readSpan(
      db,
      // The count is kept by triggers (utterance_store_counts); the span is two index probes.
      sql`select coalesce((select utterances from utterance_store_counts where workspace_id = ${workspaceId} and embedder = ${embedderId}), 0)::int as n,
                 (select min(occurred_at) from utterances where workspace_id = ${workspaceId} and side = 'external' and embedder is not null and embedder = ${embedderId}) as earliest,
                 (select max(occurred_at) from utterances where workspace_id = ${workspaceId} and side = 'external' and embedder is not null and embedder = ${embedderId}) as latest`,
    ),
    readSpan(
      db,
      sql`select count(*)::int as n, min(first_seen_at) as earliest, max(last_seen_at) as latest from themes
          where workspace_id = ${workspaceId} and embedding is not null and embedder = ${embedderId}`,
    ),
  ]);
  return { utterances_external: utterancesExternal, themes };
}

/** One count-and-span read; null when it fails, so an unreadable store is never reported as empty. */
async function readSpan(db: Queryable, query: SQL): Promise<SurfaceOverview | null> {
  try {
    const [row] = await queryRows<{ n: number; earliest: Date | string | null; latest: Date | string | null }>(
      db,
      query,
    );
    return {
      row_count: Number(row?.n ?? 0),
      earliest_event_at: toDate(row?.earliest)?.toISOString() ?? null,
      latest_event_at: toDate(row?.latest)?.toISOString() ?? null,
    };
  } catch {
    return null;
  }
}
