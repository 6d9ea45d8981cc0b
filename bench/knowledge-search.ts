/**
 * The knowledge bank's node search at scale: `nodeCount` nodes (10,000 by default) of one document
 * searched by meaning, words and both (searchKnowledgeNodes, the function behind POST
 * /knowledge-base/search and the agents' tool), each beside a hand-written exact cosine scan of the
 * same vectors in the same database (the least a semantic search has to do). Medians of 15 queries.
 */
import { sql } from 'drizzle-orm';
import { createWorkspace } from '../functions/identity/members.js';
import { searchKnowledgeNodes } from '../functions/knowledge/search.js';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { queryRows } from '../platform/db/port.js';
import { newId } from '../platform/ids.js';
import { LocalHashEmbedder } from '../platform/model/local.js';
import { documentGroups, knowledgeNodes, knowledgeNodeVectors, storedFiles } from '../schema/knowledge.js';

/** The nodes' vocabulary: each node is a sentence of 24 of these words, so a two-word query matches some. */
const VOCABULARY = (
  'renewal pricing onboarding security migration support contract seats discount integration latency roadmap ' +
  'invoice billing dashboard export report permissions login outage uptime churn expansion procurement legal ' +
  'review budget forecast quota training rollout feedback survey adoption analytics workflow approval sandbox ' +
  'compliance audit encryption backup region storage mobile webhook api limits'
).split(' ');
const WORDS_PER_NODE = 24;
const INSERT_BATCH = 500;
const QUERIES = 15;

/** xorshift32, so the same nodes every run. */
function seeded(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** `nodeCount` nodes (10,000 by default) searched by searchKnowledgeNodes, beside an exact cosine scan of the same vectors. */
export async function knowledgeSearchFigures(nodeCount: number): Promise<Record<string, string | number>[]> {
  const handle = await openPglite({});
  try {
    await migrateDatabase(handle);
    const { workspaceId } = await createWorkspace(handle.db, { name: 'bench' });
    const embedder = new LocalHashEmbedder();
    const fileId = newId();
    const groupId = newId();
    await handle.db.insert(storedFiles).values({
      id: fileId,
      workspaceId,
      purpose: 'knowledge',
      filename: 'bench.md',
      contentType: 'text/markdown',
      byteSize: 1,
      storageKey: `${workspaceId}/${fileId}`,
      sha256: '0',
    });
    await handle.db
      .insert(documentGroups)
      .values({ id: groupId, workspaceId, fileId, title: 'Bench', format: 'markdown', status: 'ready' });
    const random = seeded(25);
    const word = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)];
    for (let i = 0; i < nodeCount; i += INSERT_BATCH) {
      const texts = Array.from(
        { length: Math.min(INSERT_BATCH, nodeCount - i) },
        (_, j) => `Note ${i + j}: ${Array.from({ length: WORDS_PER_NODE }, word).join(' ')}.`,
      );
      const vectors = await embedder.embed(texts);
      const key = (j: number) => `p-${(i + j).toString(16).padStart(8, '0')}`;
      await handle.db.insert(knowledgeNodes).values(
        texts.map((text, j) => ({
          workspaceId,
          documentGroupId: groupId,
          nodeKey: key(j),
          kind: 'paragraph' as const,
          position: i + j,
          heading: '',
          text,
        })),
      );
      await handle.db.insert(knowledgeNodeVectors).values(
        texts.map((_, j) => ({
          workspaceId,
          documentGroupId: groupId,
          nodeKey: key(j),
          embedder: embedder.id,
          embedding: vectors[j] ?? [],
        })),
      );
    }
    await handle.db.execute('analyze');
    const queries = Array.from({ length: QUERIES }, () => `${word()} ${word()}`);
    const median = async (run: (query: string) => Promise<number>): Promise<{ ms: number; results: number }> => {
      const times: number[] = [];
      let results = 0;
      for (const query of queries) {
        const started = performance.now();
        results += await run(query);
        times.push(performance.now() - started);
      }
      return { ms: times.sort((a, b) => a - b)[Math.floor(QUERIES / 2)] ?? 0, results: results / QUERIES };
    };
    const baseline = await median(async (query) => {
      const [vector] = await embedder.embed([query]);
      const literal = `[${(vector ?? []).join(',')}]`;
      const rows = await queryRows(
        handle.db,
        sql`select node_key from knowledge_node_vectors where workspace_id = ${workspaceId} and embedder = ${embedder.id}
            order by embedding <=> ${literal}::vector limit 10`,
      );
      return rows.length;
    });
    const rows: Record<string, string | number>[] = [];
    for (const mode of ['semantic', 'keyword', 'hybrid'] as const) {
      const measured = await median(
        async (query) =>
          (await searchKnowledgeNodes({ db: handle.db, embedder }, { workspaceId, query, limit: 10, mode })).length,
      );
      rows.push({
        what: `search ${nodeCount} nodes, ${mode}, limit 10 (median of ${QUERIES} two-word queries; ${measured.results.toFixed(1)} results a query)`,
        ms: measured.ms.toFixed(1),
        baseline: 'exact cosine scan of the vectors (embed + order by <=>)',
        'baseline ms': baseline.ms.toFixed(1),
        ratio: (measured.ms / baseline.ms).toFixed(2),
      });
    }
    return rows;
  } finally {
    await handle.close();
  }
}
