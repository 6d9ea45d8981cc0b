import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../platform/clock.js';
import { textHash } from '../../platform/text-hash.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { interactions, transcriptTurns, utterances, utteranceVectors } from '../../schema/index.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { searchClient } from '../support/search-client.js';

/**
 * `post`, the fourth interaction kind: one public social-media thread (the root post and its
 * replies), its words in transcript turns like a call's, the reply authors on the external side,
 * no duration, direction or body. Written straight into a workspace's warehouse, as a connector
 * would, and read back through the real app by every lane, the field catalog and an agent.
 */

const NOW = new Date('2026-03-02T12:00:00.000Z');
const DAY_MS = 86_400_000;
const clock = new ManualClock(NOW);
let h: Harness;
let ws: SeededWorkspace;
let client: ReturnType<typeof searchClient>;

/** A word that occurs nowhere else: said by a reply author in the post, and on a call. */
const WORD = 'quokkaflux';
const ROOT_TEXT = 'We just shipped usage-based plans. Questions welcome!';
const REPLY_TEXT = `The ${WORD} tier looks far too expensive for a small team like ours.`;
const postId = randomUUID();
const callId = randomUUID();

beforeAll(async () => {
  h = await createHarness({ clock });
  ws = await h.seedWorkspace('Post kind workspace');
  client = searchClient(h, clock, () => ws.viewer.key);
  const db = h.database.db;
  const postAt = new Date(NOW.getTime() - 2 * DAY_MS);
  const callAt = new Date(NOW.getTime() - 3 * DAY_MS);
  await db.insert(interactions).values([
    {
      id: postId,
      workspaceId: ws.id,
      kind: 'post',
      title: 'Usage-based plans launch thread',
      occurredAt: postAt,
      durationSeconds: null,
      direction: null,
      body: null,
      source: 'bluesky',
      externalId: 'at://did:plc:example/app.bsky.feed.post/3k',
      participantCount: 2,
      externalParticipantCount: 1,
    },
    {
      id: callId,
      workspaceId: ws.id,
      kind: 'call',
      title: 'Pricing review',
      occurredAt: callAt,
      durationSeconds: 1800,
      source: 'gong',
    },
  ]);
  const rootTurn = randomUUID();
  const replyTurn = randomUUID();
  await db.insert(transcriptTurns).values([
    {
      id: rootTurn,
      workspaceId: ws.id,
      interactionId: postId,
      turnIndex: 0,
      speakerName: 'Our Company',
      side: 'internal',
      text: ROOT_TEXT,
      occurredAt: postAt,
    },
    {
      id: replyTurn,
      workspaceId: ws.id,
      interactionId: postId,
      turnIndex: 1,
      speakerName: 'A reader',
      side: 'external',
      text: REPLY_TEXT,
      occurredAt: postAt,
    },
    {
      id: randomUUID(),
      workspaceId: ws.id,
      interactionId: callId,
      turnIndex: 0,
      speakerName: 'Buyer',
      side: 'external',
      text: `Is the ${WORD} tier negotiable?`,
      occurredAt: callAt,
    },
  ]);
  // The reply, as the semantic lane reads it: an external utterance with a vector in the store.
  const embedder = h.services.embedder.id;
  await db.insert(utterances).values({
    id: randomUUID(),
    workspaceId: ws.id,
    interactionId: postId,
    turnId: replyTurn,
    utteranceIndex: 0,
    side: 'external',
    speakerName: 'A reader',
    text: REPLY_TEXT,
    embedder,
    occurredAt: postAt,
  });
  const [vector] = await h.services.embedder.embed([REPLY_TEXT]);
  await db
    .insert(utteranceVectors)
    .values({ workspaceId: ws.id, embedder, textHash: textHash(REPLY_TEXT), embedding: vector as number[] });
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const ids = (rows: unknown[]) => rows.map((r) => String((r as { id: unknown }).id));

describe('the database', () => {
  it('accepts kind post and refuses a kind outside the four', async () => {
    const [row] = (
      await h.pglite.client.query<{ kind: string }>(`select kind from interactions where id = $1`, [postId])
    ).rows;
    expect(row?.kind).toBe('post');
    const insert = (kind: string) =>
      h.pglite.client.query(
        `insert into interactions (id, workspace_id, kind, title, occurred_at, source) values ($1, $2, $3, 'x', now(), 'test')`,
        [randomUUID(), ws.id, kind],
      );
    await expect(insert('tweet')).rejects.toThrow(/interactions_kind_check/);
    const [constraint] = (
      await h.pglite.client.query<{ def: string }>(
        `select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'interactions_kind_check'`,
      )
    ).rows;
    expect(constraint?.def).toMatch(/'post'/);
  });
});

describe('the filter lane', () => {
  it('finds the post by kind eq post, and not by kind in [call]', async () => {
    const posts = await client.ok({ filters: [{ field: 'kind', op: 'eq', value: 'post' }] });
    expect(ids(posts.results)).toEqual([postId]);
    expect(posts.results[0]).toMatchObject({
      kind: 'post',
      source: 'bluesky',
      duration_seconds: null,
      direction: null,
      body: null,
    });
    const calls = await client.ok({ filters: [{ field: 'kind', op: 'in', value: ['call'] }] });
    expect(ids(calls.results)).toEqual([callId]);
  });
});

describe('GET /search/fields', () => {
  it('lists post among the kind values', async () => {
    const res = await h.request('GET', '/search/fields', { key: ws.viewer.key });
    expect(res.status, res.text.slice(0, 600)).toBe(200);
    const kind = res.body.data.surfaces.interactions.fields.find((f: { name: string }) => f.name === 'kind');
    expect(kind.values).toEqual(['call', 'meeting', 'email', 'post']);
    expect(kind.description).toMatch(/\bpost\b/);
  });
});

describe('the fuzzy lane', () => {
  it('finds the post by a word a reply author wrote, with that turn as the match', async () => {
    const data = await client.ok({ query: WORD, mode: 'fuzzy' });
    expect(new Set(ids(data.results))).toEqual(new Set([postId, callId]));
    const post = data.results.find((r) => (r as { id: string }).id === postId) as {
      kind: string;
      matching_turns: { side: string; text: string }[];
    };
    expect(post.kind).toBe('post');
    expect(post.matching_turns).toEqual([expect.objectContaining({ side: 'external', text: REPLY_TEXT })]);
  });

  it('restricts to posts when the ask says posts, social posts or bluesky, and to calls when it says calls', async () => {
    for (const query of [`posts about ${WORD}`, `social media threads mentioning ${WORD}`, `${WORD} on Bluesky`]) {
      const data = await client.ok({ query, mode: 'fuzzy' });
      expect(ids(data.results), query).toEqual([postId]);
      const plan = data.detail.internal.plan!;
      expect(plan.subqueries[0], query).toMatchObject({ kinds: ['post'], terms: [WORD], accounts: [] });
    }
    const calls = await client.ok({ query: `calls about ${WORD}`, mode: 'fuzzy' });
    expect(ids(calls.results)).toEqual([callId]);
  });
});

describe('the semantic lane', () => {
  it('matches what a reply author said, and names the interaction kind post', async () => {
    const data = await client.ok({ query: REPLY_TEXT, mode: 'semantic', limit: 5 });
    expect(data.results[0]).toMatchObject({
      interaction_id: postId,
      interaction_kind: 'post',
      side: 'external',
      content_preview: REPLY_TEXT,
    });
  });
});

describe('the agents', () => {
  const drain = () => (h.services.queue as LocalTransport).drain();
  async function ask(input: string) {
    const started = await h.request('POST', '/chat', { key: ws.editor.key, body: { input } });
    expect(started.status, started.text).toBe(202);
    await drain();
    const run = (await h.request('GET', `/chat/runs/${started.body.data.run_id}`, { key: ws.viewer.key })).body.data;
    expect(run.status).toBe('complete');
    return run.answer as {
      text: string;
      content_blocks: { kind: string; value?: unknown; query?: { filters?: unknown[] } }[];
    };
  }

  it('counts posts when asked for posts, and every kind when asked for no kind', async () => {
    const posts = await ask('how many posts do we have?');
    const postMetric = posts.content_blocks.find((b) => b.kind === 'metric');
    expect(postMetric?.value).toBe(1);
    expect(postMetric?.query?.filters).toEqual([{ field: 'kind', op: 'eq', value: 'post' }]);

    const all = await ask('how many interactions do we have?');
    const allMetric = all.content_blocks.find((b) => b.kind === 'metric');
    expect(allMetric?.value).toBe(2);
    expect(allMetric?.query?.filters).toEqual([
      { field: 'kind', op: 'in', value: ['call', 'meeting', 'email', 'post'] },
    ]);
  });
});
