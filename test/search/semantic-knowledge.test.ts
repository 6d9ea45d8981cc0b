import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { loadRun } from '../../queues/run-store.js';
import { docxWithParagraphs, uploadFile } from '../knowledge/files.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The semantic lane of POST /search/query searches the knowledge bank as its own source:
 * document nodes nearest the query join the customer utterances, merged by similarity, each
 * row naming its source; a request a node cannot answer (hydrate, customer_voice) leaves them out and
 * says why. Facts are read back with SQL of the test's own.
 */

const FACT = 'Wombat Logistics requires a signed data processing addendum before any pilot starts.';
const QUERY = 'signed data processing addendum before a pilot';

let h: Harness;
let ws: SeededWorkspace;
let documentId: string;

const rows = async <T>(text: string, params: unknown[] = []): Promise<T[]> =>
  (await h.pglite.client.query<T>(text, params)).rows;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  const writer = (await ws.keyFor(ws.editor, 'internal_agent')).key;
  const bytes = await docxWithParagraphs('Wombat Logistics pilot terms', [FACT]);
  const upload = await uploadFile(h, '/knowledge-base', writer, { bytes, name: 'wombat.docx' });
  expect(upload.status, JSON.stringify(upload.body)).toBe(202);
  documentId = upload.body.data.id;
  const deadline = Date.now() + 60_000;
  for (;;) {
    await (h.services.queue as LocalTransport).drain();
    const run = await loadRun(h.services.db, upload.body.data.run_id);
    if (run?.status === 'complete') break;
    if (run && ['failed', 'canceled'].includes(run.status)) throw new Error(`ingest ended ${run.status}`);
    if (Date.now() > deadline) throw new Error('ingest did not end');
    await new Promise((r) => setTimeout(r, 50));
  }
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const search = async (body: Record<string, unknown>, key = ws.viewer.key) => {
  const res = await h.request<any>('POST', '/search/query', { key, body: { mode: 'semantic', ...body } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};

describe('the semantic lane and the knowledge bank', () => {
  it('merges the nearest document nodes with the utterances by similarity, each row naming its source', async () => {
    const data = await search({ query: QUERY, limit: 10 });
    expect(data.mode_ran).toBe('semantic');
    const nodeRows = data.results.filter((r: any) => r.source === 'knowledge');
    const [node] = await rows<{ node_key: string; kind: string; text: string; title: string }>(
      `select n.node_key, n.kind, n.text, g.title from knowledge_nodes n join document_groups g on g.id = n.document_group_id
       where n.document_group_id = $1 and n.text = $2`,
      [documentId, FACT],
    );
    expect(node).toBeDefined();
    expect(nodeRows[0]).toMatchObject({
      id: `${documentId}/${node!.node_key}`,
      source: 'knowledge',
      document_group_id: documentId,
      document_title: node!.title,
      node_key: node!.node_key,
      node_kind: node!.kind,
      content_preview: FACT,
      interaction_id: null,
      occurred_at: null,
    });
    // Every other row is an utterance of this workspace, saying so.
    const utteranceRows = data.results.filter((r: any) => r.source !== 'knowledge');
    expect(utteranceRows.length).toBeGreaterThan(0);
    expect(utteranceRows.every((r: any) => r.source === 'conversations')).toBe(true);
    const known = await rows<{ id: string }>('select id from utterances where workspace_id = $1 and id = any($2)', [
      ws.id,
      utteranceRows.map((r: any) => r.id),
    ]);
    expect(known).toHaveLength(utteranceRows.length);
    // One order over both sources: by similarity.
    const sims = data.results.map((r: any) => r.similarity);
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    expect(data.results.length).toBeLessThanOrEqual(10);
    expect(data.corpus.knowledge).toEqual({ searched: true, match_count: expect.any(Number) });
    expect(data.corpus.knowledge.match_count).toBeGreaterThanOrEqual(nodeRows.length);
    expect(data.detail.message).toContain('document nodes from the knowledge bank');
  });

  it('leaves nodes out of hydrated and customer-voice answers, and says why', async () => {
    const hydrated = await search({ query: QUERY, limit: 10, hydrate: true });
    expect(hydrated.results.some((r: any) => r.source === 'knowledge')).toBe(false);
    expect(hydrated.corpus.knowledge).toMatchObject({ searched: false, match_count: 0 });
    expect(hydrated.corpus.knowledge.reason).toContain('hydrate');
    const voice = await search({ query: QUERY, limit: 10, hydrate: true, audience: 'customer_voice' });
    expect(voice.results.some((r: any) => r.source === 'knowledge')).toBe(false);
    expect(voice.corpus.knowledge.searched).toBe(false);
  });
});
