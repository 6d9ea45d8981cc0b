import { count, eq } from 'drizzle-orm';
import { knowledgeNodes, NODE_KINDS } from '../../schema/knowledge.js';
import { searchKnowledgeNodes } from '../knowledge/index.js';
import type { EvidenceSource } from './evidence.js';

/**
 * The knowledge bank (uploaded documents, parsed into nodes) as evidence: one item per node, its
 * document as the title and `knowledge/<kind>` as its origin (section, paragraph, table_row).
 * The node search is the knowledge feature's own (the same the agents' knowledge tool runs).
 */
export const knowledgeSource: EvidenceSource = {
  name: 'knowledge',
  types: NODE_KINDS,
  async search(ctx, query) {
    const matches = await searchKnowledgeNodes(ctx.services, {
      workspaceId: ctx.caller.workspaceId,
      query: query.query,
      limit: query.limit,
      mode: query.mode,
    });
    return {
      items: matches.map((m) => ({
        id: `${m.document_group_id}/${m.node_key}`,
        source: 'knowledge',
        title: m.document_title,
        origin: `knowledge/${m.kind}`,
        snippets: [m.text],
        score: m.score,
        occurred_at: null,
        account: null,
        refs: [{ document_group_id: m.document_group_id, node_key: m.node_key }],
      })),
      notes: [],
    };
  },
  async size(ctx) {
    const [row] = await ctx.services.db
      .select({ n: count() })
      .from(knowledgeNodes)
      .where(eq(knowledgeNodes.workspaceId, ctx.caller.workspaceId));
    return Number(row?.n ?? 0);
  },
};
