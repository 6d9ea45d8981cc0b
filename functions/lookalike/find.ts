import { sql } from 'drizzle-orm';
import type { z } from '@hono/zod-openapi';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { isDatabaseUnavailable } from '../../platform/db/unavailable.js';
import { ApiError } from '../../platform/errors.js';
import type { CentroidEntityType } from '../../schema/lookalike.js';
import type { Services } from '../services.js';
import type { LookalikeFindRequestSchema, LookalikeFindResponseSchema } from './schemas.js';

type FindRequest = z.output<typeof LookalikeFindRequestSchema>;
type FindResponse = z.input<typeof LookalikeFindResponseSchema>;

interface Seed {
  id: string;
  name: string;
  domain: string | null;
}

/** A domain as accounts store it: no scheme, no `www.`, no path, lower case. */
export const bareDomain = (domain: string): string =>
  domain
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+:\/\//, '')
    .replace(/^www\./, '')
    .replace(/[/?#].*$/, '')
    .replace(/\.$/, '');

/**
 * The seed, in this workspace: an account or a deal by id, or the account with this domain (the
 * oldest when several share it). An id of another workspace's entity, or of none, is 404. A domain
 * no account of this workspace carries is null: a domain names a company the pipeline may not have
 * met yet, so it answers `available: false` like a seed without a centroid (spec, lookalike: branch
 * on `available`, not on the status), and it says nothing about other workspaces' domains.
 */
async function resolveSeed(db: Queryable, workspaceId: string, input: FindRequest): Promise<Seed | null> {
  const rows =
    input.entity_type === 'deal'
      ? await queryRows<{ id: string; name: string; domain: string | null }>(
          db,
          sql`select d.id, d.name, a.domain from deals d left join accounts a on a.id = d.account_id
              where d.workspace_id = ${workspaceId} and d.id = ${input.entity_id!}`,
        )
      : input.entity_id
        ? await queryRows<{ id: string; name: string; domain: string | null }>(
            db,
            sql`select id, name, domain from accounts where workspace_id = ${workspaceId} and id = ${input.entity_id}`,
          )
        : await queryRows<{ id: string; name: string; domain: string | null }>(
            db,
            sql`select id, name, domain from accounts
                where workspace_id = ${workspaceId} and lower(domain) = ${bareDomain(input.domain!)}
                order by id limit 1`,
          );
  const seed = rows[0];
  if (seed) return seed;
  if (!input.entity_id) return null;
  const what = input.entity_type === 'deal' ? 'deal' : 'company';
  throw new ApiError('not_found', `No such ${what} in this workspace.`, {
    entity_type: input.entity_type,
    entity_id: input.entity_id,
  });
}

interface CentroidRow extends Record<string, unknown> {
  entity_id: string;
  name: string;
  domain: string | null;
  member_count: number;
  computed_at: Date | string;
  score: number | string;
}

const iso = (v: Date | string): string => (v instanceof Date ? v : new Date(v)).toISOString();

/** The nearest centroids of the seed's type by cosine similarity (an exact scan: a few thousand rows at most). */
async function nearest(
  db: Queryable,
  workspaceId: string,
  embedder: string,
  type: CentroidEntityType,
  seedId: string,
  limit: number,
): Promise<{ seed: CentroidRow | null; matches: CentroidRow[] }> {
  const named =
    type === 'company'
      ? sql`select a.id, a.name, a.domain from accounts a where a.workspace_id = ${workspaceId}`
      : sql`select d.id, d.name, a.domain from deals d left join accounts a on a.id = d.account_id where d.workspace_id = ${workspaceId}`;
  const rows = await queryRows<CentroidRow>(
    db,
    sql`with seed as (
          select embedding from entity_centroids
          where workspace_id = ${workspaceId} and embedder = ${embedder} and entity_type = ${type} and entity_id = ${seedId}
        ), named as (${named})
        select c.entity_id, n.name, n.domain, c.member_count, c.computed_at, 1 - (c.embedding <=> s.embedding) as score
        from seed s
        join entity_centroids c
          on c.workspace_id = ${workspaceId} and c.embedder = ${embedder} and c.entity_type = ${type}
        join named n on n.id = c.entity_id
        order by (c.entity_id = ${seedId}) desc, c.embedding <=> s.embedding, c.entity_id
        limit ${limit + 1}`,
  );
  const seed = rows[0]?.entity_id === seedId ? rows[0] : null;
  return { seed, matches: seed ? rows.slice(1) : [] };
}

export async function findLookalikes(
  services: Services,
  workspaceId: string,
  input: FindRequest,
): Promise<FindResponse> {
  const embedder = services.embedder.id;
  const seed = await resolveSeed(services.db, workspaceId, input);
  const base = { success: true as const, embedder };
  if (!seed)
    return {
      ...base,
      available: false,
      reason: 'centroids_not_materialized',
      message: `No company of this workspace has the domain ${bareDomain(input.domain ?? '')}, so there is no centroid to compare: send a company's entity_id (a search row carries it), or the domain once an account with it has synced.`,
      seed: null,
      matches: [],
    };
  let found: Awaited<ReturnType<typeof nearest>>;
  try {
    found = await nearest(services.db, workspaceId, embedder, input.entity_type, seed.id, input.limit);
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error;
    services.log.warn('lookalike read failed', { workspace_id: workspaceId, error: String(error) });
    return {
      ...base,
      available: false,
      reason: 'error',
      message: 'The centroid read failed; retry later.',
      seed: null,
      matches: [],
    };
  }
  if (!found.seed)
    return {
      ...base,
      available: false,
      reason: 'centroids_not_materialized',
      message: `No centroid for this ${input.entity_type} from embedder ${embedder} yet: its conversations hold no customer utterance with a vector, or the materialization has not run since they arrived.`,
      seed: null,
      matches: [],
    };
  const facts = (r: CentroidRow) => ({
    entity_id: r.entity_id,
    name: r.name,
    domain: r.domain,
    member_count: Number(r.member_count),
    computed_at: iso(r.computed_at),
  });
  return {
    ...base,
    available: true,
    reason: null,
    message: null,
    seed: { entity_type: input.entity_type, ...facts(found.seed) },
    matches: found.matches.map((r) => ({ ...facts(r), score: Math.round(Number(r.score) * 1e6) / 1e6 })),
  };
}
