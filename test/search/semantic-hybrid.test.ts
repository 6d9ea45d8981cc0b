import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedTranscripts, writeTranscripts, type SpokenTurn } from '../../functions/connections/transcript-ingest.js';
import type { SearchResponse } from '../../functions/search/response.js';
import { information, orderHybrid, topicStems } from '../../functions/search/semantic-hybrid.js';
import type { Match } from '../../functions/search/semantic-utterances.js';
import { ManualClock } from '../../platform/clock.js';
import { newId } from '../../platform/ids.js';
import { interactions } from '../../schema/index.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * `ranking: 'hybrid'` on the semantic lane: a short generic sentence that shares the query's one
 * asking word ("discuss") is nearest by vector, and must not outrank the informative turns about
 * what was asked.
 */

const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;

const GENERIC = 'We have to discuss about that.';
const INFORMATIVE =
  'The case should be rubber, curved to fit the hand, with big buttons and a scroll wheel instead of the usual keypad.';

const turn = (side: 'internal' | 'external', ...sentences: string[]): SpokenTurn => ({
  speaker: side === 'external' ? 'Industrial Designer' : 'Project Manager',
  email: null,
  side,
  startedAt: null,
  endedAt: null,
  sentences,
});

beforeAll(async () => {
  h = await createHarness({ clock });
  ws = await h.seedWorkspace('Hybrid ranking');
  const turns = [
    turn('internal', 'Right, welcome back everyone.'),
    turn('external', 'Sounds good.'),
    turn('internal', 'First the budget, then the design of the remote.'),
    turn('external', GENERIC),
    turn('external', 'Okay.'),
    turn('internal', 'Now the look of the remote control: what material and shape for the case?'),
    turn('external', INFORMATIVE),
    turn('external', 'A rubber case is also more durable when people drop it, and it feels softer in the hand.'),
    turn('internal', 'Good, and the colours?'),
    turn('external', 'Yellow and grey, like the company logo.'),
  ];
  const [embedded] = await embedTranscripts(h.services.embedder, { db: h.database.db, workspaceId: ws.id }, [turns]);
  const id = newId();
  await h.database.db.transaction(async (tx) => {
    await tx.insert(interactions).values({
      id,
      workspaceId: ws.id,
      kind: 'call',
      title: 'Conceptual design meeting',
      occurredAt: CORPUS_NOW,
      source: 'gong',
      externalId: 'design-1',
    });
    await writeTranscripts(tx, ws.id, h.services.embedder.id, [
      { interactionId: id, occurredAt: CORPUS_NOW, transcript: embedded! },
    ]);
  });
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

async function texts(body: Record<string, unknown>): Promise<string[]> {
  await clock.advance(120_000);
  const res = await h.request<{ data: SearchResponse }>('POST', '/search/query', {
    key: ws.viewer.key,
    body: { mode: 'semantic', limit: 10, ...body },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data.results.map((r) => String(r.text ?? r.content_preview));
}

const QUERY = 'What did the group discuss about the case material?';

describe('hybrid ranking', () => {
  it('by similarity alone, the generic sentence comes first (what the hybrid ranking corrects)', async () => {
    expect((await texts({ query: QUERY }))[0]).toBe(GENERIC);
  });

  it('ranks the informative turn first and the generic one below every informative one, hydrated or not', async () => {
    for (const hydrate of [false, true]) {
      const rows = await texts({ query: QUERY, ranking: 'hybrid', hydrate });
      expect(rows[0], `hydrate ${hydrate}`).toBe(INFORMATIVE);
      const generic = rows.indexOf(GENERIC);
      const informative = rows.filter((t) => information(t) === 1).map((t) => rows.indexOf(t));
      if (generic >= 0) expect(Math.max(...informative), `hydrate ${hydrate}`).toBeLessThan(generic);
    }
  });

  it('says which ranking ran, and each hybrid row carries the fused score it is ordered by', async () => {
    for (const ranking of ['similarity', 'hybrid'] as const)
      for (const hydrate of [false, true]) {
        await clock.advance(120_000);
        const res = await h.request<{ data: SearchResponse }>('POST', '/search/query', {
          key: ws.viewer.key,
          body: { mode: 'semantic', limit: 10, query: QUERY, ranking, hydrate },
        });
        expect(res.status, res.text).toBe(200);
        const { corpus, results } = res.body.data;
        expect(corpus.ranking, `${ranking} hydrate ${hydrate}`).toBe(ranking);
        expect(results.length).toBeGreaterThan(1);
        if (ranking === 'similarity') {
          for (const r of results) expect(r).not.toHaveProperty('hybrid_score');
          continue;
        }
        const scores = results.map((r) => r.hybrid_score);
        for (const s of scores) expect(typeof s === 'number' && s > 0, `hydrate ${hydrate}: ${s}`).toBe(true);
        expect(scores, `hydrate ${hydrate}`).toEqual([...scores].sort((a, b) => Number(b) - Number(a)));
      }
  });

  it('is named in ignored_params on the lanes that do not rank by it', async () => {
    await clock.advance(120_000);
    const res = await h.request<{ data: SearchResponse }>('POST', '/search/query', {
      key: ws.viewer.key,
      body: { mode: 'fuzzy', query: 'rubber case', ranking: 'hybrid' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.corpus.ignored_params).toContain('ranking');
  });

  it('reads the topic without the asking, and short texts as less informative', () => {
    expect(topicStems('What did the group discuss about the case material?')).toEqual(['cas', 'material']);
    expect(information(GENERIC)).toBeLessThanOrEqual(0.5);
    expect(information('Sounds good.')).toBeLessThan(1);
    expect(information(INFORMATIVE)).toBe(1);
  });
});

describe('the keyword ranking reads a topic acronym both ways', () => {
  const match = (id: string, text: string, similarity: number): Match => ({
    id,
    interactionId: id,
    turnId: null,
    speaker: null,
    text,
    occurredAt: null,
    similarity,
    title: 'Email',
    kind: 'email',
    excluded: false,
    accountId: null,
    accountName: null,
    dealId: null,
    dealName: null,
  });
  const nearer = match('near', 'Our admin team wants weekly reports on every login they make.', 0.9);

  it.each([
    ['what did they say about MFA?', 'We require multi-factor authentication for every admin login.'],
    ['what did they say about role-based access control?', 'RBAC per region is a hard requirement for us.'],
  ])('%j ranks %j over a nearer text about something else', (query, said) => {
    const ranked = orderHybrid(query, [nearer, match('said', said, 0.5)], [], false);
    expect(ranked.map((m) => m.id)).toEqual(['said', 'near']);
  });
});
