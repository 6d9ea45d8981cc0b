import { and, count, desc, eq, isNotNull } from 'drizzle-orm';
import { memoryEvidence } from '../../schema/memory.js';
import { accounts } from '../../schema/warehouse-accounts.js';
import { deals } from '../../schema/warehouse-deals.js';
import { interactions } from '../../schema/warehouse-interactions.js';
import { themes } from '../../schema/warehouse-semantic.js';
import type { OperationContext } from '../registry.js';
import { EVIDENCE_SOURCES } from './sources.js';

/**
 * Explore: what the workspace holds, by scope. `schema`: the queryable surfaces with their row
 * counts (and a few newest rows' labels); `clusters`: the theme index (the largest themes, with an
 * example each); `knowledge`: the evidence sources the knowledge operations search, with their sizes
 * (and the newest remembered evidence). `all` is the three. Counts are read, never guessed.
 */

export const EXPLORE_SCOPES = ['all', 'schema', 'clusters', 'knowledge'] as const;
const SAMPLES = 3;

export async function explore(ctx: OperationContext, scope: (typeof EXPLORE_SCOPES)[number], withSamples: boolean) {
  const want = (s: string) => scope === 'all' || scope === s;
  return {
    scope,
    ...(want('schema') ? { schema: await exploreSchema(ctx, withSamples) } : {}),
    ...(want('clusters') ? { clusters: await exploreClusters(ctx, withSamples) } : {}),
    ...(want('knowledge') ? { knowledge: await exploreKnowledge(ctx, withSamples) } : {}),
  };
}

async function exploreSchema(ctx: OperationContext, withSamples: boolean) {
  const { db } = ctx.services;
  const ws = ctx.caller.workspaceId;
  const [[i], [d], [a]] = await Promise.all([
    db.select({ n: count() }).from(interactions).where(eq(interactions.workspaceId, ws)),
    db.select({ n: count() }).from(deals).where(eq(deals.workspaceId, ws)),
    db.select({ n: count() }).from(accounts).where(eq(accounts.workspaceId, ws)),
  ]);
  const samples = withSamples
    ? await Promise.all([
        db
          .select({ id: interactions.id, label: interactions.title })
          .from(interactions)
          .where(eq(interactions.workspaceId, ws))
          .orderBy(desc(interactions.occurredAt), desc(interactions.id))
          .limit(SAMPLES),
        db
          .select({ id: deals.id, label: deals.name })
          .from(deals)
          .where(eq(deals.workspaceId, ws))
          .orderBy(desc(deals.id))
          .limit(SAMPLES),
        db
          .select({ id: accounts.id, label: accounts.name })
          .from(accounts)
          .where(eq(accounts.workspaceId, ws))
          .orderBy(accounts.name, accounts.id)
          .limit(SAMPLES),
      ])
    : null;
  const surface = (name: string, n: number | undefined, i: number) => ({
    name,
    row_count: Number(n ?? 0),
    ...(samples ? { samples: samples[i] ?? [] } : {}),
  });
  return {
    surfaces: [surface('interactions', i?.n, 0), surface('deals', d?.n, 1), surface('accounts', a?.n, 2)],
    query_with: 'POST /search/query (filter lane: GET /search/fields lists the fields and operators)',
  };
}

async function exploreClusters(ctx: OperationContext, withSamples: boolean) {
  const { db, embedder } = ctx.services;
  const where = and(
    eq(themes.workspaceId, ctx.caller.workspaceId),
    eq(themes.embedder, embedder.id),
    isNotNull(themes.embedding),
  );
  const [[total], largest] = await Promise.all([
    db.select({ n: count() }).from(themes).where(where),
    withSamples
      ? db
          .select({
            id: themes.id,
            label: themes.label,
            member_count: themes.memberCount,
            interaction_count: themes.interactionCount,
            examples: themes.examples,
          })
          .from(themes)
          .where(where)
          .orderBy(desc(themes.memberCount), themes.id)
          .limit(SAMPLES)
      : Promise.resolve(null),
  ]);
  return {
    theme_count: Number(total?.n ?? 0),
    embedder: embedder.id,
    ...(largest
      ? {
          samples: largest.map((t) => ({
            id: t.id,
            label: t.label,
            member_count: t.member_count,
            interaction_count: t.interaction_count,
            example: t.examples[0]?.text ?? null,
          })),
        }
      : {}),
    query_with: 'cluster search (context.cluster_search)',
  };
}

async function exploreKnowledge(ctx: OperationContext, withSamples: boolean) {
  const sources = await Promise.all(
    EVIDENCE_SOURCES.map(async (s) => ({ name: s.name, types: [...s.types], size: await s.size(ctx) })),
  );
  const newest = withSamples
    ? await ctx.services.db
        .select({
          id: memoryEvidence.id,
          text: memoryEvidence.text,
          source: memoryEvidence.source,
          company_name: memoryEvidence.companyName,
        })
        .from(memoryEvidence)
        .where(eq(memoryEvidence.workspaceId, ctx.caller.workspaceId))
        .orderBy(desc(memoryEvidence.createdAt), desc(memoryEvidence.id))
        .limit(SAMPLES)
    : null;
  return {
    sources,
    ...(newest ? { samples: { memory: newest } } : {}),
    query_with: 'context.search, context.substrate_query, context.ask',
  };
}
