import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteInteractions } from '../../functions/connections/interaction-ingest.js';
import { embedTranscripts, writeTranscripts, type SpokenTurn } from '../../functions/connections/transcript-ingest.js';
import type { SearchResponse } from '../../functions/search/response.js';
import { ManualClock } from '../../platform/clock.js';
import { queryRows } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import type { Embedder } from '../../platform/model/port.js';
import { textHash } from '../../platform/text-hash.js';
import { interactions, utteranceVectors } from '../../schema/index.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The semantic store keeps one vector per distinct external text (utterance_vectors): the lane
 * must answer exactly as a scan over every utterance would, ingestion must embed a text once, and
 * a vector must go when the last utterance saying it goes.
 */
const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock });
  ws = await h.corpusWorkspace();
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

async function semantic(query: string, key: string, limit = 10): Promise<SearchResponse['results']> {
  await clock.advance(120_000);
  const res = await h.request<{ data: SearchResponse }>('POST', '/search/query', {
    key,
    body: { query, mode: 'semantic', limit },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.results;
}

/** An embedder that records every text it is asked for. */
function countingEmbedder(inner: Embedder): Embedder & { asked: string[] } {
  const asked: string[] = [];
  return {
    id: inner.id,
    dimensions: inner.dimensions,
    asked,
    embed: async (texts, options) => {
      asked.push(...texts);
      return inner.embed(texts, options);
    },
  };
}

const turn = (side: 'internal' | 'external', ...sentences: string[]): SpokenTurn => ({
  speaker: side === 'external' ? 'Buyer' : 'Rep',
  email: null,
  side,
  startedAt: null,
  endedAt: null,
  sentences,
});

async function ingestCalls(
  workspaceId: string,
  embedder: Embedder,
  calls: { externalId: string; turns: SpokenTurn[] }[],
): Promise<string[]> {
  const embedded = await embedTranscripts(
    embedder,
    { db: h.database.db, workspaceId },
    calls.map((c) => c.turns),
  );
  const ids = calls.map(() => newId());
  await h.database.db.transaction(async (tx) => {
    await tx.insert(interactions).values(
      calls.map((c, i) => ({
        id: ids[i] as string,
        workspaceId,
        kind: 'call' as const,
        title: `Call ${c.externalId}`,
        occurredAt: CORPUS_NOW,
        source: 'gong',
        externalId: c.externalId,
      })),
    );
    await writeTranscripts(
      tx,
      workspaceId,
      embedder.id,
      calls.map((_, i) => ({ interactionId: ids[i] as string, occurredAt: CORPUS_NOW, transcript: embedded[i]! })),
    );
  });
  return ids;
}

/** The trigger-kept count beside a live count of the same rows. */
async function storeCounts(workspaceId: string): Promise<{ kept: number; live: number }> {
  const [row] = await queryRows<{ kept: number; live: number }>(
    h.database.db,
    sql`select coalesce((select utterances from utterance_store_counts where workspace_id = ${workspaceId} and embedder = ${h.services.embedder.id}), 0)::int as kept,
               (select count(*)::int from utterances where workspace_id = ${workspaceId} and side = 'external' and embedder = ${h.services.embedder.id}) as live`,
  );
  return row!;
}

const vectorCount = async (workspaceId: string, text: string): Promise<number> =>
  (
    await h.database.db
      .select()
      .from(utteranceVectors)
      .where(and(eq(utteranceVectors.workspaceId, workspaceId), eq(utteranceVectors.textHash, textHash(text))))
  ).length;

describe('the lane over distinct texts', () => {
  it('returns exactly the top utterances of a scan over every external utterance, duplicates included', async () => {
    const stats = await queryRows<{ utterances: number; texts: number }>(
      h.database.db,
      sql`select count(*)::int as utterances, count(distinct text_hash)::int as texts from utterances where workspace_id = ${ws.id} and side = 'external'`,
    );
    expect(stats[0]!.texts).toBeLessThan(stats[0]!.utterances);
    for (const query of [
      'that makes sense',
      'too expensive for our budget',
      'we need SSO and SCIM before security signs off',
      'data residency in the EU',
    ]) {
      const [vector] = await h.services.embedder.embed([query]);
      // The scan the store replaced: every external utterance with its text's vector, by (distance, id).
      const exact = await queryRows<{ id: string }>(
        h.database.db,
        sql`select u.id from utterances u
            join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
            where u.workspace_id = ${ws.id} and u.side = 'external'
            order by v.embedding <=> ${JSON.stringify(vector)}::vector, u.id limit 25`,
      );
      const lane = await semantic(query, ws.viewer.key, 25);
      expect(
        lane.map((r) => (r as { id: string }).id),
        query,
      ).toEqual(exact.map((r) => r.id));
    }
  });
});

describe('ingestion', () => {
  it('embeds a text once, whether repeated within a page, across calls or already stored, and the lane finds every utterance saying it', async () => {
    const tenant = await h.seedWorkspace('Store dedupe');
    const embedder = countingEmbedder(h.services.embedder);
    const repeated = 'Quokka-grade telemetry export is a blocker for us.';
    const [first, second] = await ingestCalls(tenant.id, embedder, [
      {
        externalId: 'c1',
        turns: [turn('internal', 'How is the rollout going?'), turn('external', repeated, 'Fine otherwise.', repeated)],
      },
      { externalId: 'c2', turns: [turn('external', repeated, 'Budget is approved.')] },
    ]);
    expect([...embedder.asked].sort()).toEqual([repeated, 'Budget is approved.', 'Fine otherwise.'].sort());
    expect(await vectorCount(tenant.id, repeated)).toBe(1);

    // A later page: the stored text is not sent again, only the new one is.
    embedder.asked.length = 0;
    const [third] = await ingestCalls(tenant.id, embedder, [
      { externalId: 'c3', turns: [turn('external', repeated, 'Procurement wants a quote.')] },
    ]);
    expect(embedder.asked).toEqual(['Procurement wants a quote.']);
    expect(await storeCounts(tenant.id)).toEqual({ kept: 7, live: 7 });

    const found = await semantic('quokka grade telemetry export blocker', tenant.viewer.key, 10);
    const saying = found.filter((r) => (r as { content_preview: string }).content_preview === repeated) as {
      interaction_id: string;
      similarity: number;
    }[];
    expect(saying.map((r) => r.interaction_id).sort()).toEqual([first, first, second, third].sort());
    expect(new Set(saying.map((r) => r.similarity)).size).toBe(1);
    expect(found.slice(0, 4)).toEqual(expect.arrayContaining(saying));

    // Deleting calls keeps the vector while any utterance still says the text, and prunes it with the last.
    await h.database.db.transaction((tx) => deleteInteractions(tx, tenant.id, 'gong', ['c1', 'c2']));
    expect(await vectorCount(tenant.id, repeated)).toBe(1);
    expect(await vectorCount(tenant.id, 'Fine otherwise.')).toBe(0);
    expect(await vectorCount(tenant.id, 'Budget is approved.')).toBe(0);
    expect(await storeCounts(tenant.id)).toEqual({ kept: 2, live: 2 });
    const after = await semantic('quokka grade telemetry export blocker', tenant.viewer.key, 10);
    expect(
      after
        .filter((r) => (r as { content_preview: string }).content_preview === repeated)
        .map((r) => (r as { interaction_id: string }).interaction_id),
    ).toEqual([third]);
    await h.database.db.transaction((tx) => deleteInteractions(tx, tenant.id, 'gong', ['c3']));
    expect(await vectorCount(tenant.id, repeated)).toBe(0);
    expect(await semantic('quokka grade telemetry export blocker', tenant.viewer.key, 10)).toEqual([]);
    expect(await storeCounts(tenant.id)).toEqual({ kept: 0, live: 0 });
  });

  it('keeps each workspace’s vectors its own: the same text is stored per tenant, and pruning one leaves the other', async () => {
    const [a, b] = [await h.seedWorkspace('Store A'), await h.seedWorkspace('Store B')];
    const embedder = countingEmbedder(h.services.embedder);
    const text = 'Narwhal ledger reconciliation takes our team two days.';
    await ingestCalls(a.id, embedder, [{ externalId: 'x', turns: [turn('external', text)] }]);
    await ingestCalls(b.id, embedder, [{ externalId: 'x', turns: [turn('external', text)] }]);
    // B's ingest could not reuse A's vector: tenants share nothing, so the text was embedded twice.
    expect(embedder.asked).toEqual([text, text]);
    await h.database.db.transaction((tx) => deleteInteractions(tx, a.id, 'gong', ['x']));
    expect(await vectorCount(a.id, text)).toBe(0);
    expect(await vectorCount(b.id, text)).toBe(1);
    expect((await semantic('narwhal ledger reconciliation', a.viewer.key)).length).toBe(0);
    expect(
      (await semantic('narwhal ledger reconciliation', b.viewer.key)).map(
        (r) => (r as { content_preview: string }).content_preview,
      ),
    ).toEqual([text]);
    expect(await storeCounts(a.id)).toEqual({ kept: 0, live: 0 });
    expect(await storeCounts(b.id)).toEqual({ kept: 1, live: 1 });
    // A workspace deleted whole takes its vectors and counts with it, and leaves the other's.
    await h.database.db.execute(sql`delete from workspaces where id = ${b.id}`);
    const left = await queryRows<{ n: number }>(
      h.database.db,
      sql`select ((select count(*) from utterance_vectors where workspace_id = ${b.id}) + (select count(*) from utterance_store_counts where workspace_id = ${b.id}))::int as n`,
    );
    expect(left[0]?.n).toBe(0);
  });

  it('reports the store’s size with every answer, from the kept count, equal to a live count', async () => {
    const res = await h.request<{ data: SearchResponse }>('POST', '/search/query', {
      key: ws.viewer.key,
      body: { query: 'pricing concerns', mode: 'semantic', limit: 5 },
    });
    expect(res.status, res.text).toBe(200);
    const counts = await storeCounts(ws.id);
    expect(counts.kept).toBe(counts.live);
    expect(counts.live).toBeGreaterThan(3000);
    expect(res.body.data.detail.coverage?.total_rows).toBe(counts.live);
  });
});
