import { MEMORY_SOURCES } from '../../schema/memory.js';
import { countMemory, recallMemory } from '../memory/index.js';
import type { EvidenceSource } from './evidence.js';

/** The workspace's memory (remember) as evidence: one item per remembered text. */
export const memorySource: EvidenceSource = {
  name: 'memory',
  types: MEMORY_SOURCES,
  async search(ctx, query) {
    const { hits, semanticNote } = await recallMemory(ctx.services.db, ctx.services.embedder, ctx.caller.workspaceId, {
      query: query.query,
      limit: query.limit,
      mode: query.mode,
      signal: ctx.signal,
    });
    return {
      items: hits.map((hit) => ({
        id: hit.id,
        source: 'memory',
        title: hit.company_name,
        origin: `memory/${hit.source}`,
        snippets: [hit.text],
        score: Math.round(hit.score * 1e6) / 1e6,
        occurred_at: hit.created_at,
        account: hit.company_name || hit.account_id ? { id: hit.account_id, name: hit.company_name } : null,
        refs: [{ memory_id: hit.id }],
      })),
      notes: semanticNote ? [`memory (semantic): ${semanticNote}`] : [],
    };
  },
  size: (ctx) => countMemory(ctx.services.db, ctx.caller.workspaceId),
};
