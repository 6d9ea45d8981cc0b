import type { OperationContext } from '../registry.js';
import { searchThemes, type ThemeMatch } from '../search/index.js';
import { EVIDENCE_SOURCES, searchSources, type EvidenceItem, type TermCoverage } from './sources.js';

/**
 * Substrate query: one intent, one reading of the evidence (conversations and memory, and every
 * source added to EVIDENCE_SOURCES), each doing what its name says:
 *
 * - answer_question: the evidence that answers the question, best first (hybrid).
 * - find_metrics: the numbers the evidence holds about the query: matches per source and per
 *   account, and the themes near it with their member and interaction counts.
 * - research_overview: the lay of the land: how much each source holds and matched, the time span
 *   of the matches, the accounts and the themes they touch.
 * - summarize_research: an extractive summary: the first snippet of each of the best items, by source.
 * - evidence_for_writing: verbatim, citable customer words only (external side forced), with refs.
 * - enrich_with_quotes: each sentence of the query paired with the customer quotes nearest it.
 * - assess_viability: how well the evidence supports the query, by counted rules (below).
 *
 * Nothing here writes prose: every string returned is evidence, a count or a label of a rule.
 */

export const SUBSTRATE_INTENTS = [
  'answer_question',
  'find_metrics',
  'research_overview',
  'summarize_research',
  'evidence_for_writing',
  'enrich_with_quotes',
  'assess_viability',
] as const;
export type SubstrateIntent = (typeof SUBSTRATE_INTENTS)[number];

export interface SubstrateRequest {
  intent: SubstrateIntent;
  query: string;
  limit: number;
  source_filter?: string[] | undefined;
  external_only: boolean;
}

/** assess_viability's rules: evidence from at least this many distinct interactions / accounts. */
export const VIABILITY_RULES = {
  strong: { items: 5, accounts: 3 },
  moderate: { items: 2, accounts: 1 },
  /** Below this share of the query's topical words (IDF-weighted) found in the evidence, at most weak. */
  coveredShare: 0.5,
} as const;
const THEME_LIMIT = 5;

export async function runSubstrateQuery(ctx: OperationContext, request: SubstrateRequest) {
  const externalOnly = request.external_only || request.intent === 'evidence_for_writing';
  const base = { query: request.query, limit: request.limit, externalOnly };
  if (request.intent === 'enrich_with_quotes') return enrichWithQuotes(ctx, request, externalOnly);
  const mode = request.intent === 'evidence_for_writing' ? ('semantic' as const) : ('hybrid' as const);
  const found = await searchSources(ctx, { ...base, mode }, request.source_filter);
  const common = {
    intent: request.intent,
    query: request.query,
    external_only: externalOnly,
    sources_searched: found.searched,
    notes: found.notes,
    off_topic: found.offTopic,
  };
  switch (request.intent) {
    case 'answer_question':
    case 'evidence_for_writing':
      return { ...common, results: found.items, summary: null };
    case 'summarize_research':
      return {
        ...common,
        results: found.items,
        summary: {
          by_source: Object.fromEntries(
            found.searched.map((source) => [
              source,
              found.items
                .filter((i) => i.source === source)
                .map((i) => ({ id: i.id, title: i.title, point: i.snippets[0] ?? null })),
            ]),
          ),
        },
      };
    case 'find_metrics':
    case 'research_overview': {
      const themesNear = await nearThemes(ctx, request.query);
      const counts = countsOf(found.items);
      const sizes =
        request.intent === 'research_overview'
          ? Object.fromEntries(
              await Promise.all(
                EVIDENCE_SOURCES.filter((s) => found.searched.includes(s.name)).map(
                  async (s) => [s.name, await s.size(ctx)] as const,
                ),
              ),
            )
          : null;
      const dates = found.items.flatMap((i) => (i.occurred_at ? [i.occurred_at] : [])).sort();
      return {
        ...common,
        results: found.items,
        summary: {
          matches_by_source: counts.bySource,
          matches_by_account: counts.byAccount,
          themes: themesNear.map((t) => ({
            id: t.id,
            label: t.label,
            member_count: t.member_count,
            interaction_count: t.interaction_count,
            similarity: t.similarity,
          })),
          ...(sizes ? { source_sizes: sizes, span: { from: dates[0] ?? null, to: dates.at(-1) ?? null } } : {}),
        },
      };
    }
    case 'assess_viability': {
      const counts = countsOf(found.items);
      const accounts = Object.keys(counts.byAccount).length;
      const items = found.items.length;
      const byCount =
        items >= VIABILITY_RULES.strong.items && accounts >= VIABILITY_RULES.strong.accounts
          ? 'strong'
          : items >= VIABILITY_RULES.moderate.items && accounts >= VIABILITY_RULES.moderate.accounts
            ? 'moderate'
            : items > 0
              ? 'weak'
              : 'none';
      // Evidence about part of the query is not evidence for the whole: "a blockchain ledger
      // integration" is not supported by remarks about integrations when nothing says blockchain or ledger.
      const coverage = found.coverage;
      const weight = (list: readonly TermCoverage[]) => list.reduce((sum, t) => sum + t.weight, 0);
      const coveredShare =
        coverage && weight(coverage) > 0 ? weight(coverage.filter((t) => t.found)) / weight(coverage) : 1;
      const partial = byCount !== 'none' && coveredShare < VIABILITY_RULES.coveredShare;
      return {
        ...common,
        results: found.items,
        summary: {
          verdict: partial ? 'weak' : byCount,
          evidence_items: items,
          distinct_accounts: accounts,
          matches_by_source: counts.bySource,
          terms_found: coverage?.filter((t) => t.found).map((t) => t.word) ?? null,
          terms_missing: coverage?.filter((t) => !t.found).map((t) => t.word) ?? null,
          rule: `strong: ≥ ${VIABILITY_RULES.strong.items} items from ≥ ${VIABILITY_RULES.strong.accounts} accounts; moderate: ≥ ${VIABILITY_RULES.moderate.items} items from ≥ ${VIABILITY_RULES.moderate.accounts} account; weak: any evidence, or evidence holding less than ${Math.round(VIABILITY_RULES.coveredShare * 100)}% of the query's topical words by weight (terms_missing); none: nothing about the query matched (of at most ${request.limit} read; matches about something else are not evidence).`,
        },
      };
    }
  }
}

function countsOf(items: readonly EvidenceItem[]) {
  const bySource: Record<string, number> = {};
  const byAccount: Record<string, number> = {};
  for (const item of items) {
    bySource[item.source] = (bySource[item.source] ?? 0) + 1;
    const name = item.account?.name;
    if (name) byAccount[name] = (byAccount[name] ?? 0) + 1;
  }
  return { bySource, byAccount };
}

async function nearThemes(ctx: OperationContext, query: string): Promise<ThemeMatch[]> {
  const [vector] = await ctx.services.embedder.embed([query], { signal: ctx.signal }).catch(() => [undefined]);
  if (!vector) return [];
  const { matches } = await searchThemes(ctx.services.db, ctx.caller.workspaceId, ctx.services.embedder.id, vector, {
    limit: THEME_LIMIT,
    minSimilarity: 0,
  });
  return matches;
}

/** Each sentence of the query with the customer quotes (semantic, external side) nearest it. */
async function enrichWithQuotes(ctx: OperationContext, request: SubstrateRequest, externalOnly: boolean) {
  const sentences = request.query
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .slice(0, 10);
  const perSentence = Math.max(1, Math.min(3, Math.floor(request.limit / Math.max(1, sentences.length))));
  const searched = new Set<string>();
  const notes: string[] = [];
  let offTopic = 0;
  const enriched = [];
  for (const sentence of sentences) {
    const found = await searchSources(
      ctx,
      { query: sentence, limit: perSentence, mode: 'semantic', externalOnly },
      request.source_filter,
    );
    for (const s of found.searched) searched.add(s);
    notes.push(...found.notes);
    offTopic += found.offTopic;
    enriched.push({ sentence, quotes: found.items });
  }
  return {
    intent: request.intent,
    query: request.query,
    external_only: externalOnly,
    sources_searched: [...searched],
    notes: [...new Set(notes)],
    off_topic: offTopic,
    results: enriched.flatMap((e) => e.quotes),
    summary: { sentences: enriched.map((e) => ({ sentence: e.sentence, evidence_ids: e.quotes.map((q) => q.id) })) },
  };
}
