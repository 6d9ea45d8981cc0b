import { sql } from 'drizzle-orm';
import { queryRows } from '../../platform/db/port.js';
import type { Services } from '../services.js';

export const KNOWLEDGE_SEARCH_MODES = ['hybrid', 'semantic', 'keyword'] as const;
export type KnowledgeSearchMode = (typeof KNOWLEDGE_SEARCH_MODES)[number];

export interface KnowledgeNodeMatch {
  document_group_id: string;
  document_title: string;
  node_key: string;
  kind: string;
  heading: string;
  page: number | null;
  text: string;
  /** semantic: cosine similarity; keyword: ts_rank; hybrid: reciprocal-rank fusion of both lanes. */
  score: number;
}

export interface KnowledgeSearchRequest {
  workspaceId: string;
  query: string;
  limit: number;
  mode: KnowledgeSearchMode;
  /** Only these documents (a widget's or a pin's scope); all the workspace's when absent. */
  documentGroupIds?: readonly string[];
}

/** The constant of reciprocal-rank fusion (Cormack et al.): damps the top ranks' dominance. */
const RRF_K = 60;

type Row = Omit<KnowledgeNodeMatch, 'score'> & { score: number };

/**
 * Search a workspace's knowledge nodes: by meaning (the nodes' vectors of the services' embedder,
 * exact cosine), by words (Postgres full text, english), or both fused by rank. The function other
 * features call (the memory and ask operations, the agents' knowledge tool).
 */
export async function searchKnowledgeNodes(
  services: Pick<Services, 'db' | 'embedder'>,
  request: KnowledgeSearchRequest,
): Promise<KnowledgeNodeMatch[]> {
  const take = Math.max(1, Math.min(request.limit, 50));
  const semantic = request.mode !== 'keyword' ? await semanticLane(services, request, take * 2) : [];
  const keyword = request.mode !== 'semantic' ? await keywordLane(services, request, take * 2) : [];
  if (request.mode === 'semantic') return semantic.slice(0, take);
  if (request.mode === 'keyword') return keyword.slice(0, take);
  const fused = new Map<string, KnowledgeNodeMatch>();
  for (const lane of [semantic, keyword]) {
    lane.forEach((match, rank) => {
      const id = `${match.document_group_id}/${match.node_key}`;
      const gain = 1 / (RRF_K + rank + 1);
      const seen = fused.get(id);
      fused.set(id, seen ? { ...seen, score: seen.score + gain } : { ...match, score: gain });
    });
  }
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.node_key.localeCompare(b.node_key))
    .slice(0, take)
    .map((m) => ({ ...m, score: round(m.score) }));
}

const scopeFilter = (request: KnowledgeSearchRequest) =>
  request.documentGroupIds
    ? sql`and n.document_group_id in (${sql.join(
        request.documentGroupIds.map((id) => sql`${id}::uuid`),
        sql`, `,
      )})`
    : sql``;

async function semanticLane(
  services: Pick<Services, 'db' | 'embedder'>,
  request: KnowledgeSearchRequest,
  take: number,
): Promise<KnowledgeNodeMatch[]> {
  const [vector] = await services.embedder.embed([request.query]);
  if (!vector) return [];
  const literal = `[${vector.map((v) => (Number.isFinite(v) ? v : 0)).join(',')}]`;
  const rows = await queryRows<Row>(
    services.db,
    sql`select n.document_group_id, g.title as document_title, n.node_key, n.kind, n.heading, n.page, n.text,
               1 - (v.embedding <=> ${literal}::vector) as score
        from knowledge_node_vectors v
        join knowledge_nodes n on n.document_group_id = v.document_group_id and n.node_key = v.node_key
        join document_groups g on g.id = n.document_group_id and g.workspace_id = ${request.workspaceId}
        where v.workspace_id = ${request.workspaceId} and v.embedder = ${services.embedder.id}
          and n.workspace_id = ${request.workspaceId} ${scopeFilter(request)}
        order by v.embedding <=> ${literal}::vector, n.node_key
        limit ${take}`,
  );
  return rows.map((r) => ({ ...r, score: round(Number(r.score)) }));
}

async function keywordLane(
  services: Pick<Services, 'db'>,
  request: KnowledgeSearchRequest,
  take: number,
): Promise<KnowledgeNodeMatch[]> {
  const rows = await queryRows<Row>(
    services.db,
    sql`select n.document_group_id, g.title as document_title, n.node_key, n.kind, n.heading, n.page, n.text,
               ts_rank(to_tsvector('english', n.text), q.query) as score
        from knowledge_nodes n
        join document_groups g on g.id = n.document_group_id and g.workspace_id = ${request.workspaceId},
             websearch_to_tsquery('english', ${request.query}) q(query)
        where n.workspace_id = ${request.workspaceId} and to_tsvector('english', n.text) @@ q.query ${scopeFilter(request)}
        order by score desc, n.node_key
        limit ${take}`,
  );
  return rows.map((r) => ({ ...r, score: round(Number(r.score)) }));
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;
