import { sql } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { queryRows } from '../../platform/db/port.js';
import { vectorLiteral } from './vector-literal.js';
import { readThemes } from '../search/index.js';
import type { Services } from '../services.js';
import type { LookalikeThemesRequestSchema, LookalikeThemesResponseSchema } from './schemas.js';

type ThemesRequest = z.output<typeof LookalikeThemesRequestSchema>;
type ThemesResponse = z.input<typeof LookalikeThemesResponseSchema>;

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(String(v)).toISOString());

/**
 * The themes nearest a free-text description: the query embedded with the configured embedder and
 * compared with the theme index's vectors of the same embedder (the semantic lane's theme read,
 * functions/search/semantic-themes.ts). Only positive similarities are kept; an index with no
 * theme answers an empty list with `theme_count: 0`, never `available: false`.
 */
export async function similarThemes(
  services: Services,
  workspaceId: string,
  input: ThemesRequest,
  signal: AbortSignal,
): Promise<ThemesResponse> {
  const embedder = services.embedder.id;
  const [vector] = await services.embedder.embed([input.query], { signal });
  const rows = await readThemes(services.db, workspaceId, embedder, vectorLiteral(vector ?? []), input.limit);
  const [index] = await queryRows<{ n: number; synced_at: unknown; latest_member_at: unknown }>(
    services.db,
    sql`select count(*)::int as n, max(created_at) as synced_at, max(last_seen_at) as latest_member_at
        from themes where workspace_id = ${workspaceId} and embedder = ${embedder} and embedding is not null`,
  );
  return {
    success: true,
    results: rows
      .map((r) => ({ r, score: 1 - Number(r.distance) }))
      .filter(({ score }) => score > 0)
      .map(({ r, score }) => ({
        cluster_id: r.id,
        label: r.label,
        summary: r.summary,
        score: Math.round(score * 1e6) / 1e6,
        member_count: Number(r.member_count),
        interaction_count: Number(r.interaction_count),
      })),
    freshness: {
      source: 'theme_index',
      embedder,
      theme_count: Number(index?.n ?? 0),
      synced_at: iso(index?.synced_at),
      latest_member_at: iso(index?.latest_member_at),
    },
  };
}
