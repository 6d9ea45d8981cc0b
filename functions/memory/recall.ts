import { type SQL, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import type { Embedder } from '../../platform/model/port.js';
import type { MemorySource } from '../../schema/memory.js';

/**
 * Recalling the workspace's memory by meaning (cosine distance to the configured embedder's
 * vectors; other embedders' vectors are never compared), by words (english full-text, as the fuzzy
 * lane searches), or both merged by reciprocal rank (hybrid). Every read is scoped by workspace.
 */

export type RecallMode = 'hybrid' | 'semantic' | 'keyword';

export interface MemoryHit {
  id: string;
  text: string;
  source: MemorySource;
  company_name: string | null;
  account_id: string | null;
  created_at: string;
  /** Which sides of recall found it. */
  matched_by: ('semantic' | 'keyword')[];
  /** Reciprocal-rank score (higher first); comparable only within one recall. */
  score: number;
  /** Cosine similarity when the semantic side found it. */
  similarity: number | null;
}

export interface RecallRequest {
  query: string;
  limit: number;
  mode: RecallMode;
  sources?: readonly MemorySource[] | undefined;
  signal?: AbortSignal | undefined;
}

export interface RecallOutcome {
  hits: MemoryHit[];
  /** What the semantic side could not do (no vector of the query), said plainly; null when it ran. */
  semanticNote: string | null;
}

interface Row extends Record<string, unknown> {
  id: string;
  text: string;
  source: MemorySource;
  company_name: string | null;
  account_id: string | null;
  created_at: Date | string;
  rank_value: number | string;
}

/** A row of the one recall statement: which side found it and its rank there (1 first). */
interface SideRow extends Row {
  side: 'semantic' | 'keyword';
  side_rank: number | string;
}

/** Reciprocal rank fusion's constant (the usual 60): a rank's weight is 1 / (K + rank). */
const RRF_K = 60;

export async function recallMemory(
  db: Queryable,
  embedder: Embedder,
  workspaceId: string,
  request: RecallRequest,
): Promise<RecallOutcome> {
  const take = request.limit;
  const sourceFilter =
    request.sources && request.sources.length > 0
      ? sql` and source in (${sql.join(
          request.sources.map((s) => sql`${s}`),
          sql`, `,
        )})`
      : sql``;
  // Both sides are read in one statement (UNION ALL), each ranked within itself: a run recalls its
  // memory on its start path, where every round trip counts (test/edge/budgets.ts).
  const sides: { side: 'semantic' | 'keyword'; read: SQL }[] = [];
  let semanticNote: string | null = null;
  if (request.mode !== 'keyword') {
    const vector = await embedQuery(embedder, request.query, request.signal).catch((error: unknown) => {
      semanticNote = `The query could not be embedded by ${embedder.id} (${error instanceof Error ? error.message : String(error)}).`;
      return null;
    });
    if (vector?.every((v) => v === 0)) semanticNote = 'The query has no words the embedder can match on.';
    else if (vector) {
      const literal = `[${vector.map((v) => (Number.isFinite(v) ? v : 0)).join(',')}]`;
      sides.push({
        side: 'semantic',
        read: sql`select 'semantic' as side, row_number() over (order by distance, id) as side_rank,
                   id, text, source, company_name, account_id, created_at, 1 - distance as rank_value
            from (select id, text, source, company_name, account_id, created_at, embedding <=> ${literal}::vector as distance
                  from memory_evidence
                  where workspace_id = ${workspaceId} and embedder = ${embedder.id} and embedding is not null${sourceFilter}
                  order by embedding <=> ${literal}::vector, id
                  limit ${take}) nearest`,
      });
    }
  }
  if (request.mode !== 'semantic') {
    sides.push({
      side: 'keyword',
      read: sql`select 'keyword' as side, row_number() over (order by rank_value desc, id) as side_rank,
                 id, text, source, company_name, account_id, created_at, rank_value
          from (select id, text, source, company_name, account_id, created_at,
                       ts_rank(to_tsvector('english', text), websearch_to_tsquery('english', ${request.query})) as rank_value
                from memory_evidence
                where workspace_id = ${workspaceId}
                  and to_tsvector('english', text) @@ websearch_to_tsquery('english', ${request.query})${sourceFilter}
                order by rank_value desc, id
                limit ${take}) matching`,
    });
  }
  const rows =
    sides.length === 0
      ? []
      : await queryRows<SideRow>(
          db,
          sql`${sql.join(
            sides.map((s) => s.read),
            sql` union all `,
          )} order by side, side_rank`,
        );
  const lists = sides.map(({ side }) => {
    const own = rows.filter((r) => r.side === side).sort((a, b) => Number(a.side_rank) - Number(b.side_rank));
    // A vector with no similarity at all (cosine 0 or below) is not a match by meaning.
    return { side, rows: side === 'semantic' ? own.filter((r) => Number(r.rank_value) > 0) : own };
  });
  return { hits: fuse(lists).slice(0, take), semanticNote };
}

async function embedQuery(embedder: Embedder, query: string, signal: AbortSignal | undefined): Promise<number[]> {
  const [vector] = await embedder.embed([query], signal ? { signal } : undefined);
  if (!vector || vector.length !== embedder.dimensions) throw new Error('no vector came back');
  return vector;
}

function fuse(lists: readonly { side: 'semantic' | 'keyword'; rows: readonly Row[] }[]): MemoryHit[] {
  const byId = new Map<string, MemoryHit>();
  for (const { side, rows } of lists) {
    rows.forEach((row, rank) => {
      const hit =
        byId.get(row.id) ??
        ({
          id: row.id,
          text: row.text,
          source: row.source,
          company_name: row.company_name,
          account_id: row.account_id,
          created_at: new Date(row.created_at).toISOString(),
          matched_by: [],
          score: 0,
          similarity: null,
        } satisfies MemoryHit);
      hit.matched_by.push(side);
      hit.score += 1 / (RRF_K + rank + 1);
      if (side === 'semantic') hit.similarity = Math.round(Number(row.rank_value) * 1e6) / 1e6;
      byId.set(row.id, hit);
    });
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}
