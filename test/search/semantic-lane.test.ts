import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELLED_QUERIES, precisionAt10, themeLabeller } from '../../bench/semantic-labels.js';
import { createApp } from '../../functions/app.js';
import { API_PREFIX } from '../../functions/http/env.js';
import { assembleResponse } from '../../functions/search/assemble.js';
import type { SearchRequest } from '../../functions/search/request.js';
import { SearchResponseSchema, type SearchResponse } from '../../functions/search/response.js';
import { HYDRATE_BRIDGE_CAP, PREVIEW_CHARS, preview, runSemanticLane } from '../../functions/search/semantic-lane.js';
import { resolveSearch } from '../../functions/search/validate.js';
import type { Services } from '../../functions/services.js';
import { ManualClock } from '../../platform/clock.js';
import { queryRows, type Database } from '../../platform/db/port.js';
import { interactions, themes, transcriptTurns, utterances, utteranceVectors } from '../../schema/index.js';
import { textHash } from '../../platform/text-hash.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { failingDb } from '../support/search-client.js';

const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;
const DAY = 86_400_000;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock });
  ws = await h.corpusWorkspace();
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const db = (): Database => h.database.db;

/** POST /search/query; the clock moves two minutes first, so the 10/min per-user budget never bites. */
async function search(body: Record<string, unknown>, key = ws.viewer.key) {
  await clock.advance(120_000);
  return h.request<{ data: SearchResponse; error?: { code: string; message: string } }>('POST', '/search/query', {
    key,
    body,
  });
}

async function searchOk(body: Record<string, unknown>, key?: string): Promise<SearchResponse> {
  const res = await search(body, key);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The lane and the assembler without HTTP, on any services (a failing database, for one). */
async function runDirect(request: SearchRequest, options: { services?: Services; workspaceId?: string } = {}) {
  const services = options.services ?? h.services;
  const workspaceId = options.workspaceId ?? ws.id;
  const { search: resolved, ignored } = await resolveSearch(request, services.model);
  const now = services.clock.now();
  const outcome = await runSemanticLane({
    services,
    workspaceId,
    search: resolved,
    now,
    signal: new AbortController().signal,
  });
  const response = await assembleResponse(services, workspaceId, resolved, outcome, ignored, now);
  return { outcome, response: SearchResponseSchema.parse(response) };
}

const embed = async (text: string): Promise<number[]> => (await h.services.embedder.embed([text]))[0] as number[];

interface Row extends Record<string, unknown> {
  id: string;
}
const rowsOf = (data: SearchResponse) => data.results as Row[];

/** Insert one interaction with turns and utterances (external, embedded unless told otherwise). */
async function insertConversation(
  workspaceId: string,
  spec: {
    title: string;
    accountId?: string | null;
    turns: { side: 'external' | 'internal'; text: string }[];
    utterances: {
      turn: number | null;
      text: string;
      side?: 'external' | 'internal';
      embedder?: string | null;
      vectorOf?: string;
    }[];
  },
): Promise<{ interactionId: string; turnIds: string[]; utteranceIds: string[] }> {
  const interactionId = randomUUID();
  const at = new Date(CORPUS_NOW.getTime() - 3 * DAY);
  await db()
    .insert(interactions)
    .values({
      id: interactionId,
      workspaceId,
      kind: 'call',
      title: spec.title,
      accountId: spec.accountId ?? null,
      occurredAt: at,
      source: 'gong',
    });
  const turnIds = spec.turns.map(() => randomUUID());
  if (spec.turns.length > 0) {
    await db()
      .insert(transcriptTurns)
      .values(
        spec.turns.map((t, i) => ({
          id: turnIds[i] as string,
          workspaceId,
          interactionId,
          turnIndex: i,
          speakerName: `Speaker ${i}`,
          side: t.side,
          text: t.text,
          occurredAt: at,
        })),
      );
  }
  const utteranceIds = spec.utterances.map(() => randomUUID());
  const rows = [];
  const vectors = [];
  for (const [i, u] of spec.utterances.entries()) {
    const embedder = u.embedder === undefined ? h.services.embedder.id : u.embedder;
    rows.push({
      id: utteranceIds[i] as string,
      workspaceId,
      interactionId,
      turnId: u.turn === null ? null : (turnIds[u.turn] as string),
      utteranceIndex: i,
      side: u.side ?? ('external' as const),
      speakerName: 'Probe Speaker',
      text: u.text,
      embedder,
      occurredAt: at,
    });
    if (embedder !== null)
      vectors.push({ workspaceId, embedder, textHash: textHash(u.text), embedding: await embed(u.vectorOf ?? u.text) });
  }
  if (rows.length > 0) await db().insert(utterances).values(rows);
  // The store holds one vector per text: a text seen before keeps its first vector.
  if (vectors.length > 0) await db().insert(utteranceVectors).values(vectors).onConflictDoNothing();
  return { interactionId, turnIds, utteranceIds };
}

describe('routing and matches', () => {
  it('routes meaning-shaped wording in auto mode to the semantic lane, with sensible pricing matches', async () => {
    const data = await searchOk({ query: 'why do customers object to our per-seat pricing?' });
    expect(data.success).toBe(true);
    expect(data.mode_ran).toBe('semantic');
    const rows = rowsOf(data);
    expect(rows.length).toBe(100); // the default limit
    const topTen = rows.slice(0, 10).map((r) => String(r.content_preview));
    const aboutPrice = topTen.filter((t) => /pric|per seat|per-seat|discount|cost|expensive|budget/i.test(t));
    expect(aboutPrice.length, topTen.join('\n')).toBeGreaterThanOrEqual(8);
    // Ordered by similarity, each row an utterance with its interaction.
    const sims = rows.map((r) => Number(r.similarity));
    expect([...sims].sort((a, b) => b - a)).toEqual(sims);
    expect(sims.every((s) => s > 0 && s <= 1)).toBe(true);
    for (const r of rows.slice(0, 5)) {
      expect(r).toMatchObject({
        id: expect.any(String),
        interaction_id: expect.any(String),
        interaction_title: expect.any(String),
        interaction_kind: expect.stringMatching(/^(call|meeting)$/),
        interaction_excluded: expect.any(Boolean),
        occurred_at: expect.any(String),
        speaker: expect.any(String),
        side: 'external',
        content_preview: expect.any(String),
        similarity: expect.any(Number),
      });
      expect(String(r.content_preview).length).toBeLessThanOrEqual(PREVIEW_CHARS);
    }
  });

  it('keeps top-10 precision high on labelled queries for every corpus topic', async () => {
    const label = themeLabeller();
    const byTopic = new Map<string, number[]>();
    for (const q of LABELLED_QUERIES) {
      const { response } = await runDirect({ query: q.query, mode: 'semantic', limit: 10 });
      const p = precisionAt10(
        q,
        rowsOf(response).map((r) => String(r.content_preview)),
        label,
      );
      byTopic.set(q.topic, [...(byTopic.get(q.topic) ?? []), p]);
    }
    const all = [...byTopic.values()].flat();
    const mean = all.reduce((a, b) => a + b, 0) / all.length;
    // v1 of the local embedder scored 0.67 here, v2 0.87 (bench/embedder-quality.ts).
    expect(mean).toBeGreaterThanOrEqual(0.8);
    for (const topic of ['security', 'integrations', 'champion', 'churn']) {
      const ps = byTopic.get(topic) ?? [];
      expect(ps.reduce((a, b) => a + b, 0) / ps.length, topic).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('returns only external speech', async () => {
    const data = await searchOk({
      query: 'how long does implementation take for a team our size',
      mode: 'semantic',
      limit: 200,
    });
    const ids = rowsOf(data).map((r) => r.id);
    expect(ids.length).toBe(200);
    const sides = await queryRows<{ side: string; n: number }>(
      db(),
      sql`select side, count(*)::int as n from utterances where id in (${sql.join(
        ids.map((id) => sql`${id}::uuid`),
        sql`, `,
      )}) group by side`,
    );
    expect(sides).toEqual([{ side: 'external', n: 200 }]);
    // Internal utterances have the same words in the rep's answers; none of them appears.
    expect(rowsOf(data).every((r) => r.side === 'external')).toBe(true);
  });

  it('truncates the preview at 280 characters with an ellipsis marker', () => {
    const long = `${'word '.repeat(100)}end`;
    const p = preview(long);
    expect(p.length).toBeLessThanOrEqual(PREVIEW_CHARS);
    expect(p.endsWith('…')).toBe(true);
    expect(preview('short text')).toBe('short text');
  });

  it('never compares vectors of another embedder, even identical ones', async () => {
    const probe = 'kumquat xylophone harbour probe sentence';
    const { utteranceIds } = await insertConversation(ws.id, {
      title: 'Other embedder probe',
      turns: [],
      utterances: [
        // Vectors equal to the query's own (similarity 1 if they were compared), stamped with another embedder.
        { turn: null, text: probe, embedder: 'test:other-embedder-v0' },
        { turn: null, text: probe, embedder: 'test:other-embedder-v0' },
      ],
    });
    const data = await searchOk({ query: probe, mode: 'semantic', limit: 1000 });
    const ids = new Set(rowsOf(data).map((r) => r.id));
    for (const id of utteranceIds) expect(ids.has(id)).toBe(false);
    expect(rowsOf(data).every((r) => Number(r.similarity) < 0.99)).toBe(true);
  });

  it('can match utterances of excluded interactions (the mirror ignores exclusion settings)', async () => {
    const [pick] = await queryRows<{ id: string; text: string; interaction_id: string }>(
      db(),
      sql`select u.id, u.text, u.interaction_id from utterances u
          join excluded_interactions x on x.workspace_id = u.workspace_id and x.interaction_id = u.interaction_id
          where u.workspace_id = ${ws.id} and u.side = 'external' and u.embedder = ${h.services.embedder.id}
            and (select count(*) from utterances v where v.workspace_id = u.workspace_id and v.text = u.text) = 1
          order by length(u.text) desc, u.id limit 1`,
    );
    expect(pick).toBeDefined();
    const data = await searchOk({ query: pick!.text, mode: 'semantic', limit: 20 });
    const hit = rowsOf(data).find((r) => r.id === pick!.id);
    expect(hit, 'the excluded interaction’s utterance is matched').toBeDefined();
    expect(hit).toMatchObject({ interaction_id: pick!.interaction_id, interaction_excluded: true });
    expect(Number(hit!.similarity)).toBeGreaterThan(0.99);
  });
});

describe('the corpus block and coverage', () => {
  it('fills every corpus and coverage field, with gaps against the external-utterance baseline', async () => {
    const data = await searchOk({ query: 'the renewal is at risk', mode: 'semantic', limit: 100, coverage: true });
    const { corpus, detail } = data;
    expect(corpus).toMatchObject({
      store: 'pgvector',
      grain: 'utterance',
      content: 'preview',
      speaker_scope: 'external_only',
      filters_applied: false,
      audience_applied: false,
      ignored_params: [],
      row_count: 100,
      match_count: 100,
    });
    for (const absent of [
      'hydrated_grain',
      'unresolved_matches',
      'collapsed_matches',
      'empty_reason',
      'degraded',
      'surface',
    ])
      expect(corpus).not.toHaveProperty(absent);
    // More than 100 utterances share a word with the query: the limit cut the result.
    expect(corpus.truncated).toBe(true);
    const c = corpus.coverage;
    expect(c.basis).toBe('returned_rows');
    expect(c.basis_reason).toBe('truncated');
    expect(Object.keys(c.age_buckets).sort()).toEqual(['last_30d', 'last_7d', 'last_90d', 'older']);
    const bucketSum = Object.values(c.age_buckets).reduce((s, b) => s + b.row_count, 0);
    expect(c.dated_row_count).toBe(100);
    expect(bucketSum).toBe(100);
    const times = rowsOf(data)
      .map((r) => String(r.occurred_at))
      .sort();
    expect(c.min_timestamp).toBe(times[0]);
    expect(c.max_timestamp).toBe(times[times.length - 1]);
    expect(c.gaps_status).toBe('ok');
    expect(c.gaps_baseline).toBe('interactions_external');
    expect(Array.isArray(c.gaps)).toBe(true);
    for (const g of c.gaps ?? []) {
      expect(new Date(g.start).getTime()).toBeLessThan(new Date(g.end).getTime());
      expect(g.corpus_row_count).toBeGreaterThan(0);
      // A gap is a window where the result had nothing.
      expect(times.some((t) => t >= g.start && t < g.end)).toBe(false);
    }
    expect(c.gaps!.length).toBeGreaterThan(0);
    expect(detail.internal).toEqual({ status: 'ok', rows: 100, row_count: 100 });
    expect(detail.coverage).toMatchObject({
      total_rows: expect.any(Number),
      latest_event_at: expect.any(String),
      is_stale: expect.any(Boolean),
    });
    expect(detail.coverage!.total_rows).toBeGreaterThan(4000);
    expect(data.compiled.sql).toMatch(/FROM utterance_vectors v/);
    expect(data.compiled.sql).toMatch(/JOIN utterances u ON u.text_hash = n.text_hash/);
    expect(data.compiled.sql).toContain(`u.embedder = '${h.services.embedder.id}'`);
    expect(data.compiled.sql).not.toContain(ws.id);
  });

  it('lists surface (and other filter-lane params) as ignored; hydrate is ignored outside the semantic lane', async () => {
    const data = await searchOk({
      query: 'what do customers say about the Salesforce sync',
      surface: 'deals',
      mode: 'semantic',
      limit: 5,
    });
    expect(data.mode_ran).toBe('semantic');
    expect(data.corpus.ignored_params).toEqual(['surface']);
    const fuzzy = await resolveSearch(
      { query: 'calls with Acme last week', mode: 'fuzzy', hydrate: true },
      h.services.model,
    );
    expect(fuzzy.search.lane).toBe('fuzzy');
    expect(fuzzy.ignored).toContain('hydrate');
    const filter = await resolveSearch(
      { filters: [{ field: 'kind', op: 'eq', value: 'call' }], hydrate: false },
      h.services.model,
    );
    expect(filter.search.lane).toBe('filter');
    expect(filter.ignored).toContain('hydrate');
    const semantic = await resolveSearch(
      { query: 'how do buyers feel about pricing', hydrate: true },
      h.services.model,
    );
    expect(semantic.search.lane).toBe('semantic');
    expect(semantic.ignored).not.toContain('hydrate');
  });
});

describe('hydrate', () => {
  it('bridges matches to turns: one row per turn, with unresolved and collapsed matches counted', async () => {
    const words = 'zebra marmalade quantum accordion';
    const convo = await insertConversation(ws.id, {
      title: 'Hydrate probe call',
      turns: [
        { side: 'external', text: `${words} first. ${words} second.` },
        { side: 'external', text: `${words} fourth.` },
      ],
      utterances: [
        { turn: 0, text: `${words} first.` },
        { turn: 0, text: `${words} second.` },
        { turn: null, text: `${words} third.` },
        { turn: 1, text: `${words} fourth.` },
      ],
    });
    const [u1, u2, u3, u4] = convo.utteranceIds as [string, string, string, string];
    const [t1, t2] = convo.turnIds as [string, string];

    const plain = await searchOk({ query: words, mode: 'semantic', limit: 4 });
    expect(new Set(rowsOf(plain).map((r) => r.id))).toEqual(new Set([u1, u2, u3, u4]));

    const data = await searchOk({ query: words, mode: 'semantic', limit: 4, hydrate: true });
    const { corpus } = data;
    expect(corpus).toMatchObject({
      store: 'pgvector',
      grain: 'utterance',
      hydrated_grain: 'turn',
      content: 'full',
      match_count: 4,
      row_count: 2,
      unresolved_matches: 1,
      collapsed_matches: 1,
    });
    expect(corpus.row_count).toBeLessThanOrEqual(corpus.match_count);
    const rows = rowsOf(data);
    const turn1 = rows.find((r) => r.id === t1)!;
    const turn2 = rows.find((r) => r.id === t2)!;
    expect(turn1).toMatchObject({
      interaction_id: convo.interactionId,
      interaction_title: 'Hydrate probe call',
      side: 'external',
      turn_index: 0,
      text: `${words} first. ${words} second.`,
    });
    expect(new Set(turn1.match_ids as string[])).toEqual(new Set([u1, u2]));
    expect(turn2.match_ids).toEqual([u4]);
    expect(rows.flatMap((r) => r.match_ids as string[])).not.toContain(u3);
    expect(data.detail.message).toMatch(/turns? from the utterance store \(pgvector\)/);
  });

  it('keeps row_count + collapsed + unresolved = match_count without the cap, and row_count <= match_count', async () => {
    const data = await searchOk({
      query: 'our champion is leaving the company',
      mode: 'semantic',
      limit: 60,
      hydrate: true,
    });
    const { corpus } = data;
    expect(corpus.hydrated_grain).toBe('turn');
    expect(corpus.match_count).toBe(60);
    expect(corpus.row_count).toBeLessThanOrEqual(corpus.match_count);
    expect(corpus.row_count + corpus.collapsed_matches! + corpus.unresolved_matches!).toBe(corpus.match_count);
    expect(rowsOf(data).reduce((s, r) => s + (r.match_ids as string[]).length, 0)).toBe(
      corpus.row_count + corpus.collapsed_matches!,
    );
    // Corpus turns are consecutive speech of one speaker: several matched lines often share a turn.
    expect(corpus.collapsed_matches).toBeGreaterThan(0);
    for (const r of rowsOf(data)) expect(typeof r.text).toBe('string');
  });

  it('bridges at most 200 match ids; beyond that the result says truncated', async () => {
    const data = await searchOk({
      query: 'the pricing is too expensive for our budget',
      mode: 'semantic',
      limit: 300,
      hydrate: true,
    });
    const { corpus } = data;
    expect(corpus.match_count).toBe(300);
    expect(corpus.truncated).toBe(true);
    expect(corpus.row_count + corpus.collapsed_matches! + corpus.unresolved_matches!).toBe(HYDRATE_BRIDGE_CAP);
    expect(corpus.coverage.basis).toBe('returned_rows');
    expect(corpus.coverage.basis_reason).toBe('truncated');
    expect(data.detail.message).toMatch(/first 200 of 300 matches/);
  });

  it('falls back to the call grain when the turn lookup fails: rows are the matches’ interactions', async () => {
    const services: Services = { ...h.services, db: failingDb(h.database.db, (text) => /transcript_turns/.test(text)) };
    const { response } = await runDirect(
      { query: 'we need SAML single sign-on and SCIM provisioning', mode: 'semantic', limit: 30, hydrate: true },
      { services },
    );
    const { corpus } = response;
    expect(response.success).toBe(true);
    expect(corpus).toMatchObject({ hydrated_grain: 'call', content: 'full', match_count: 30, unresolved_matches: 0 });
    expect(corpus.row_count).toBeGreaterThan(0);
    expect(corpus.row_count + corpus.collapsed_matches!).toBe(30);
    const interactionIds = (
      await queryRows<{ id: string }>(db(), sql`select id from interactions where workspace_id = ${ws.id}`)
    ).map((r) => r.id);
    const known = new Set(interactionIds);
    for (const r of rowsOf(response)) {
      expect(known.has(r.id)).toBe(true);
      expect(r.interaction_id).toBe(r.id);
      expect(r).toHaveProperty('summary');
      expect((r.match_ids as string[]).length).toBeGreaterThan(0);
    }
    expect(response.detail.message).toMatch(/turn lookup failed/);
    expect(response.detail.message).toMatch(/context, not the matches/);
  });

  it('refuses customer_voice without hydrate (400) and drops non-buyer interactions with it', async () => {
    const refused = await search({
      query: 'what do investors think about our runway and burn',
      mode: 'semantic',
      audience: 'customer_voice',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe('invalid_argument');
    expect(refused.body.error?.message).toMatch(/hydrate/);

    const query = 'how much runway do you have at the current burn and net revenue retention';
    const all = await searchOk({ query, mode: 'semantic', limit: 100, hydrate: true });
    const voice = await searchOk({ query, mode: 'semantic', limit: 100, hydrate: true, audience: 'customer_voice' });
    expect(all.corpus.audience_applied).toBe(false);
    expect(voice.corpus.audience_applied).toBe(true);
    expect(voice.corpus.row_count).toBeLessThan(all.corpus.row_count);
    expect(voice.corpus.row_count).toBeLessThanOrEqual(voice.corpus.match_count);
    // Dropped rows are neither unresolved nor collapsed.
    expect(voice.corpus.row_count + voice.corpus.collapsed_matches! + voice.corpus.unresolved_matches!).toBeLessThan(
      voice.corpus.match_count,
    );
    expect(voice.detail.message).toMatch(/customer_voice dropped \d+ of 100/);

    const check = async (ids: string[]) =>
      queryRows<{ id: string; type: string | null; buyer: boolean }>(
        db(),
        sql`select i.id, a.type,
                   exists (select 1 from participants p left join contacts c on c.id = p.contact_id
                           where p.interaction_id = i.id and p.side = 'external'
                             and (p.role in ('champion', 'economic_buyer', 'technical_evaluator', 'end_user', 'procurement', 'legal') or coalesce(c.is_buyer, false))) as buyer
            from interactions i left join accounts a on a.id = i.account_id
            where i.id in (${sql.join(
              ids.map((id) => sql`${id}::uuid`),
              sql`, `,
            )})`,
      );
    const dropTypes = ['investor', 'advisor', 'media', 'competitor', 'vendor', 'partner', 'reseller', 'other'];
    const allChecked = await check(rowsOf(all).map((r) => String(r.interaction_id)));
    expect(allChecked.some((r) => r.type !== null && dropTypes.includes(r.type) && !r.buyer)).toBe(true);
    const voiceChecked = await check(rowsOf(voice).map((r) => String(r.interaction_id)));
    for (const r of voiceChecked)
      expect(r.type === null || !dropTypes.includes(r.type) || r.buyer, JSON.stringify(r)).toBe(true);
  });

  it('keeps a genuine buyer on a dropped account type under customer_voice', async () => {
    const [rescued] = await queryRows<{ text: string; interaction_id: string; type: string }>(
      db(),
      sql`select u.text, u.interaction_id, a.type from utterances u
          join interactions i on i.id = u.interaction_id join accounts a on a.id = i.account_id
          where u.workspace_id = ${ws.id} and u.side = 'external' and u.embedder is not null and u.turn_id is not null
            and a.type in ('investor', 'advisor', 'media', 'competitor', 'vendor', 'partner', 'reseller', 'other')
            and exists (select 1 from participants p left join contacts c on c.id = p.contact_id
                        where p.interaction_id = i.id and p.side = 'external'
                          and (p.role in ('champion', 'economic_buyer', 'technical_evaluator', 'end_user', 'procurement', 'legal') or coalesce(c.is_buyer, false)))
            and (select count(*) from utterances v where v.workspace_id = u.workspace_id and v.text = u.text) = 1
          order by length(u.text) desc, u.id limit 1`,
    );
    expect(rescued, 'the corpus has a buyer on a non-customer account').toBeDefined();
    const data = await searchOk({
      query: rescued!.text,
      mode: 'semantic',
      limit: 5,
      hydrate: true,
      audience: 'customer_voice',
    });
    expect(rowsOf(data).map((r) => r.interaction_id)).toContain(rescued!.interaction_id);
  });
});

describe('degraded, empty and failed stores', () => {
  it('degrades to the theme index when the workspace has no utterance vectors for this embedder', async () => {
    const other = await h.seedWorkspace('Themes only');
    // Utterances exist, but none embedded by this embedder.
    await insertConversation(other.id, {
      title: 'Unembedded call',
      turns: [],
      utterances: [
        { turn: null, text: 'widget onboarding is slow', embedder: null },
        { turn: null, text: 'widget onboarding is slow', embedder: 'test:other-embedder-v0' },
      ],
    });
    const rows = [];
    for (let i = 0; i < 60; i++) {
      const label = `Widget onboarding theme ${i}`;
      const summary = `Customers talk about widget onboarding, variant ${i}.`;
      rows.push({
        id: randomUUID(),
        workspaceId: other.id,
        label,
        summary,
        embedding: await embed(`${label}\n${summary}`),
        embedder: h.services.embedder.id,
        memberCount: 10 + i,
        interactionCount: 5 + i,
        examples: [{ text: `widget onboarding example ${i}`, utteranceId: randomUUID(), interactionId: randomUUID() }],
        lastSeenAt: new Date(CORPUS_NOW.getTime() - i * DAY),
      });
    }
    await db().insert(themes).values(rows);

    const data = await searchOk(
      { query: 'what do customers say about widget onboarding', mode: 'semantic', limit: 200, coverage: true },
      other.viewer.key,
    );
    expect(data.mode_ran).toBe('semantic');
    expect(data.corpus).toMatchObject({
      store: 'theme_index',
      grain: 'theme',
      degraded: true,
      content: 'full',
      filters_applied: false,
      audience_applied: false,
      row_count: 50,
      match_count: 50,
      truncated: true,
    });
    expect(data.corpus).not.toHaveProperty('empty_reason');
    expect(data.corpus.coverage).toMatchObject({
      basis: 'unavailable',
      basis_reason: 'no_time_field',
      max_timestamp: null,
      min_timestamp: null,
      dated_row_count: 0,
      gaps_status: 'unavailable',
      gaps_reason: 'no_time_field',
    });
    expect(data.detail.internal.status).toBe('degraded');
    expect(data.detail.message).toMatch(/no external-speaker vectors from embedder/);
    expect(data.detail.message).toMatch(/test:other-embedder-v0/);
    expect(data.detail.message).toMatch(/clamped from 200 to 50/);
    const first = rowsOf(data)[0]!;
    expect(first).toMatchObject({
      label: expect.stringMatching(/^Widget onboarding theme/),
      summary: expect.any(String),
      member_count: expect.any(Number),
      interaction_count: expect.any(Number),
      similarity: expect.any(Number),
    });
    expect(first.examples).toEqual([
      {
        text: expect.stringMatching(/^widget onboarding example/),
        utterance_id: expect.any(String),
        interaction_id: expect.any(String),
      },
    ]);

    // Hydrate and the customer-voice audience cannot apply to themes: accepted, not honoured, said so.
    const hydrated = await searchOk(
      {
        query: 'what do customers say about widget onboarding',
        mode: 'semantic',
        hydrate: true,
        audience: 'customer_voice',
      },
      other.viewer.key,
    );
    expect(hydrated.corpus).toMatchObject({ store: 'theme_index', audience_applied: false, row_count: 50 });
    expect(hydrated.corpus.ignored_params).toEqual(['audience', 'hydrate']);
    expect(hydrated.corpus).not.toHaveProperty('hydrated_grain');
  });

  it('degrades to the theme index when the utterance read fails', async () => {
    const services: Services = {
      ...h.services,
      db: failingDb(h.database.db, (text) => /from utterance_vectors/.test(text)),
    };
    const { response } = await runDirect(
      { query: 'what do customers say about the SOC 2 report and security review', mode: 'semantic' },
      { services },
    );
    expect(response.corpus).toMatchObject({ store: 'theme_index', grain: 'theme', degraded: true });
    expect(response.corpus.row_count).toBeGreaterThan(0);
    expect(response.corpus.row_count).toBeLessThanOrEqual(50);
    expect(rowsOf(response)[0]!.label).toBe('SOC 2 report and security questionnaires');
    expect(response.detail.message).toMatch(/could not be read/);
  });

  it('reports not_synced for a workspace with nothing synced (success, empty coverage)', async () => {
    const empty = await h.seedWorkspace('Empty semantic');
    const data = await searchOk(
      { query: 'how do customers feel about pricing', mode: 'semantic', coverage: true },
      empty.viewer.key,
    );
    expect(data.success).toBe(true);
    expect(data.results).toEqual([]);
    expect(data.corpus).toMatchObject({
      empty_reason: 'not_synced',
      row_count: 0,
      match_count: 0,
      degraded: true,
      store: 'theme_index',
    });
    expect(data.detail.coverage).toMatchObject({ total_rows: 0, latest_event_at: null });
    expect(data.corpus.coverage.age_buckets).toEqual({
      last_7d: { row_count: 0 },
      last_30d: { row_count: 0 },
      last_90d: { row_count: 0 },
      older: { row_count: 0 },
    });
  });

  it('reports read_failed (never a 500) when both the utterance store and the theme index fail', async () => {
    const services: Services = {
      ...h.services,
      db: failingDb(h.database.db, (text) => /utterances|themes/.test(text)),
    };
    const { response } = await runDirect({ query: 'what do customers worry about', mode: 'semantic' }, { services });
    expect(response.corpus).toMatchObject({ empty_reason: 'read_failed', row_count: 0, degraded: true });
    expect(response.detail.internal.status).toBe('read_failed');
    expect(response.detail.message).toMatch(/not an empty result/);

    // Through HTTP, on an app over the failing database: 200 with the typed failure.
    const { app } = createApp({ services });
    await clock.advance(120_000);
    const res = await app.request(`${h.services.config.publicUrl}${API_PREFIX}/search/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ws.viewer.key },
      body: JSON.stringify({ query: 'what do customers worry about', mode: 'semantic' }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: SearchResponse };
    expect(body.data.corpus.empty_reason).toBe('read_failed');
    // The freshness probe read the failing store too: null coverage, never zeros.
    expect(body.data.detail.coverage).toBeNull();
  });

  it('reports no_match when vectors exist but the query has nothing to match on', async () => {
    const data = await searchOk({ query: 'the and of to', mode: 'semantic' });
    expect(data.corpus).toMatchObject({ empty_reason: 'no_match', row_count: 0, store: 'pgvector' });
    expect(data.corpus.coverage).toMatchObject({ basis: 'unavailable', basis_reason: 'no_rows' });
    expect(data.corpus).not.toHaveProperty('degraded');
  });
});

describe('tenant isolation', () => {
  it('never matches another workspace’s utterances, in either direction', async () => {
    const other = await h.seedWorkspace('Isolation B');
    const probe = 'walrus saffron trombone pricing objection probe';
    const b = await insertConversation(other.id, {
      title: 'Tenant B call',
      turns: [{ side: 'external', text: probe }],
      utterances: [{ turn: 0, text: probe }],
    });
    const fromA = await searchOk({ query: probe, mode: 'semantic', limit: 1000, hydrate: true });
    const aRows = rowsOf(fromA);
    expect(aRows.some((r) => r.interaction_id === b.interactionId || r.id === b.turnIds[0])).toBe(false);
    const plainA = await searchOk({ query: probe, mode: 'semantic', limit: 1000 });
    expect(rowsOf(plainA).some((r) => r.id === b.utteranceIds[0])).toBe(false);

    const fromB = await searchOk(
      { query: 'what do customers say about pricing objections', mode: 'semantic', limit: 1000 },
      other.viewer.key,
    );
    expect(rowsOf(fromB).map((r) => r.id)).toEqual([b.utteranceIds[0]]);
    expect(fromB.detail.coverage?.total_rows).toBe(1);
    // Nothing beyond the limit: the coverage covers the whole matched set; gaps were not asked for.
    expect(fromB.corpus).not.toHaveProperty('truncated');
    expect(fromB.corpus.coverage).toMatchObject({
      basis: 'matched_set',
      dated_row_count: 1,
      gaps_status: 'not_requested',
    });
    expect(fromB.corpus.coverage).not.toHaveProperty('basis_reason');
    expect(fromB.corpus.coverage).not.toHaveProperty('gaps');
    expect(fromB.corpus.coverage.age_buckets).toEqual({
      last_7d: { row_count: 1 },
      last_30d: { row_count: 0 },
      last_90d: { row_count: 0 },
      older: { row_count: 0 },
    });
  });
});

describe('MCP', () => {
  it('runs a semantic query through the search tool', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${h.services.config.publicUrl}${API_PREFIX}/mcp`), {
      fetch: async (url, init) => h.fetch(new Request(url, init)),
      requestInit: { headers: { 'X-API-Key': ws.viewer.key } },
    });
    const client = new Client({ name: 'semantic-test', version: '0.0.1' });
    await client.connect(transport);
    try {
      await clock.advance(120_000);
      const result = (await client.callTool({
        name: 'search',
        arguments: { action: 'query', query: 'what do customers say about data residency in the EU', limit: 5 },
      })) as {
        isError?: boolean;
        structuredContent?: SearchResponse;
      };
      expect(result.isError).toBeFalsy();
      const data = result.structuredContent!;
      expect(data.mode_ran).toBe('semantic');
      expect(data.corpus).toMatchObject({
        store: 'pgvector',
        grain: 'utterance',
        row_count: 5,
        speaker_scope: 'external_only',
      });
      expect(
        rowsOf(data).filter((r) => /EU|data residency|Germany|stored|region/i.test(String(r.content_preview))).length,
      ).toBeGreaterThanOrEqual(4);
    } finally {
      await client.close();
    }
  });
});
