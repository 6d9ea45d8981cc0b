import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedHashNgramV2 } from '../../bench/embedder-quality.js';
import { reembedStaleLocalVectors } from '../../functions/embedded/reembed.js';
import type { SearchResponse } from '../../functions/search/response.js';
import { ManualClock } from '../../platform/clock.js';
import { queryRows } from '../../platform/db/port.js';
import { embedLocally, LocalHashEmbedder } from '../../platform/model/local-embedder.js';
import type { Embedder } from '../../platform/model/port.js';
import { loadDemoCorpus } from '../../functions/embedded/demo/load-corpus.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * A DATA_DIR started before the local embedder's upgrade holds vectors of the old id, which the
 * semantic lane never compares with its queries: the start re-embeds them (functions/embedded/reembed.ts).
 */
const OLD_ID = 'local:hash-ngram-v2';
const oldEmbedder: Embedder = {
  id: OLD_ID,
  dimensions: 384,
  embed: async (texts) => texts.map(embedHashNgramV2),
};
const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ clock });
  ws = await h.seedWorkspace();
  await loadDemoCorpus(h.database.db, ws.id, { now: CORPUS_NOW, scale: 0.1, embedder: oldEmbedder });
});
afterAll(async () => {
  await h.close();
});

async function semantic(query: string): Promise<SearchResponse> {
  await clock.advance(120_000);
  const res = await h.request<{ data: SearchResponse }>('POST', '/search/query', {
    key: ws.admin.key,
    body: { query, mode: 'semantic', limit: 10 },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const vectorsBy = async (): Promise<Record<string, number>> =>
  Object.fromEntries(
    (
      await queryRows<{ embedder: string; n: number }>(
        h.database.db,
        sql`select embedder, count(*)::int as n from utterance_vectors where workspace_id = ${ws.id} group by embedder`,
      )
    ).map((r) => [r.embedder, r.n]),
  );

describe('re-embedding an older local embedder at start', () => {
  it('moves the store to the configured embedder, after which the lane answers from it and not degraded', async () => {
    const current = new LocalHashEmbedder();
    expect(h.services.embedder.id).toBe(current.id);
    const before = await semantic('the price is too high for our budget');
    expect(before.corpus.degraded).toBe(true);
    const [distinct] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(distinct text_hash)::int as n from utterances where workspace_id = ${ws.id} and side = 'external'`,
    );
    expect(await vectorsBy()).toEqual({ [OLD_ID]: distinct?.n });

    const reports = await reembedStaleLocalVectors(h.database.db, h.services.embedder);
    expect(reports).toEqual([{ workspaceId: ws.id, from: OLD_ID, texts: distinct?.n, themes: expect.any(Number) }]);

    expect(await vectorsBy()).toEqual({ [current.id]: distinct?.n });
    const [moved] = await queryRows<{ old: number; current: number; counted: number; themes_old: number }>(
      h.database.db,
      sql`select count(*) filter (where embedder = ${OLD_ID})::int as old,
                 count(*) filter (where embedder = ${current.id})::int as current,
                 (select utterances from utterance_store_counts where workspace_id = ${ws.id} and embedder = ${current.id}) as counted,
                 (select count(*)::int from themes where workspace_id = ${ws.id} and embedder = ${OLD_ID}) as themes_old
          from utterances where workspace_id = ${ws.id} and side = 'external'`,
    );
    expect(moved).toMatchObject({ old: 0, themes_old: 0 });
    expect(moved?.counted).toBe(moved?.current);
    // A stored vector is the new embedder's vector of its text.
    const [sample] = await queryRows<{ text: string; embedding: string }>(
      h.database.db,
      sql`select u.text, v.embedding::text as embedding from utterances u
          join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
          where u.workspace_id = ${ws.id} and u.side = 'external' order by u.id limit 1`,
    );
    const stored = JSON.parse(sample?.embedding ?? '[]') as number[];
    const expected = embedLocally(sample?.text ?? '');
    expect(stored).toHaveLength(384);
    stored.forEach((v, i) => expect(v).toBeCloseTo(expected[i] ?? Number.NaN, 5));

    const after = await semantic('the price is too high for our budget');
    expect(after.corpus.degraded).toBeUndefined();
    expect(after.corpus.store).toBe('pgvector');
    expect(after.results.length).toBeGreaterThan(0);

    // Nothing left to do on the next start.
    expect(await reembedStaleLocalVectors(h.database.db, h.services.embedder)).toEqual([]);
  });

  it('leaves a hosted embedder alone: no re-embedding at start with a provider that bills', async () => {
    const hosted: Embedder = { id: 'openai:text-embedding-3-small', dimensions: 384, embed: async () => [] };
    expect(await reembedStaleLocalVectors(h.database.db, hosted)).toEqual([]);
  });
});
