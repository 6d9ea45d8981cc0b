import { searchKnowledgeNodes } from '../knowledge/index.js';
import { rowCoverage, type LaneContext, type LaneOutcome, type LaneRunner } from './lane.js';
import type { KnowledgeInCorpus } from './response.js';
import { errorText } from './semantic-format.js';
import { preview, runSemanticLane } from './semantic-lane.js';

/** The most nodes the knowledge search returns per query (its own bound). */
const MAX_KNOWLEDGE_NODES = 50;

/**
 * The semantic lane of `search.query` with the knowledge bank as a second source:
 * the utterance store answers as it always did, then the workspace's document nodes nearest the query
 * by the same embedder (the knowledge feature's own search, semantic mode) join it. Both are cosine
 * similarities in one vector space, so the rows are merged by similarity and cut to the limit; each
 * row says its `source` (`conversations` or `knowledge`), and `corpus.knowledge` says whether the
 * documents were searched and, when not, why. They are not when a request asks for something a node
 * cannot be: `hydrate` (rows become transcript turns; a node has none), `audience: customer_voice`
 * (a document is not what a customer said), `filters` (they narrow conversations by their account,
 * period or speaker, which a document has none of), or when the lane itself degraded to the theme index or
 * failed (a mix of theme rows and nodes would answer neither grain). The conversations source of the
 * knowledge operations calls runSemanticLane itself, so it never sees a node.
 */
export const runSemanticLaneWithKnowledge: LaneRunner = async (ctx) => {
  const outcome = await runSemanticLane(ctx);
  const conversations: Record<string, unknown>[] = outcome.results.map((row) => ({ ...row, source: 'conversations' }));
  const notSearched = (reason: string): LaneOutcome => ({
    ...outcome,
    results: conversations,
    corpus: { ...outcome.corpus, knowledge: { searched: false, match_count: 0, reason } },
  });
  const skip = reasonNotSearched(ctx, outcome);
  if (skip) return notSearched(skip);

  let nodes: Awaited<ReturnType<typeof searchKnowledgeNodes>>;
  try {
    nodes = await searchKnowledgeNodes(ctx.services, {
      workspaceId: ctx.workspaceId,
      query: ctx.search.query ?? '',
      limit: Math.min(ctx.search.limit + 1, MAX_KNOWLEDGE_NODES),
      mode: 'semantic',
    });
  } catch (error) {
    return notSearched(`the knowledge bank could not be read (${errorText(error)})`);
  }
  // As for utterances, a node sharing nothing with the query (similarity 0 or less) is no match.
  const matched = nodes.filter((n) => n.score > 0);
  const nodeRows: Record<string, unknown>[] = matched.map((n) => ({
    id: `${n.document_group_id}/${n.node_key}`,
    source: 'knowledge',
    document_group_id: n.document_group_id,
    document_title: n.document_title,
    node_key: n.node_key,
    node_kind: n.kind,
    page: n.page,
    interaction_id: null,
    occurred_at: null,
    content_preview: preview(n.text),
    similarity: n.score,
  }));
  const knowledge: KnowledgeInCorpus = { searched: true, match_count: matched.length };
  if (nodeRows.length === 0) return { ...outcome, results: conversations, corpus: { ...outcome.corpus, knowledge } };

  // Stable sort: on equal similarity an utterance stays before a node, each source keeps its order.
  const merged = [...conversations, ...nodeRows].sort((a, b) => Number(b.similarity) - Number(a.similarity));
  const truncated = merged.length > ctx.search.limit || outcome.corpus.truncated === true;
  const results = merged.slice(0, ctx.search.limit);
  const eventTimes = results.map((r) => (typeof r.occurred_at === 'string' ? new Date(r.occurred_at) : null));
  const { emptyReason: _empty, ...rest } = outcome;
  const fromDocuments = results.filter((r) => r.source === 'knowledge').length;
  const said = `${fromDocuments} of these ${results.length} rows are document nodes from the knowledge bank (source knowledge).`;
  return {
    ...rest,
    note: outcome.note ? `${outcome.note} ${said}` : said,
    results,
    matchCount: outcome.matchCount + matched.length,
    corpus: { ...outcome.corpus, knowledge, ...(truncated ? { truncated: true as const } : {}) },
    coverage: rowCoverage(eventTimes, truncated),
  };
};

function reasonNotSearched(ctx: LaneContext, outcome: LaneOutcome): string | null {
  if (ctx.search.hydrate) return 'hydrate: rows are transcript turns, and a document node has none';
  if (ctx.search.ranking === 'hybrid')
    return 'ranking hybrid: it orders what was said by the conversation around it, and a document node has none';
  if (ctx.search.audience === 'customer_voice')
    return 'audience customer_voice: a document is not what a customer said';
  if (outcome.corpus.degraded || outcome.corpus.store !== 'pgvector')
    return 'the lane degraded to the theme index, whose rows are themes';
  if (outcome.emptyReason === 'read_failed') return 'the query could not be searched';
  if (ctx.search.filters.length > 0)
    return 'filters: they select conversations (an account, a period, a speaker), and a document node is none';
  return null;
}
