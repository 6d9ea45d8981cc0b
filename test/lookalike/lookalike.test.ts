import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../functions/http/env.js';
import { materializeCentroids } from '../../functions/lookalike/centroids.js';
import { requestMaterializations } from '../../functions/lookalike/index.js';
import { ManualClock } from '../../platform/clock.js';
import { queryRows } from '../../platform/db/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { workspaces } from '../../schema/index.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
const drain = () => (h.services.queue as LocalTransport).drain();

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock });
  ws = await h.corpusWorkspace();
  other = await h.seedWorkspace('Lookalike other tenant');
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const find = (body: Record<string, unknown>, key = ws.viewer.key) => h.request('POST', '/lookalike', { key, body });

/**
 * Each entity's centroid computed here from the raw tables, independently of entity_centroids, and
 * the seed's neighbours ranked by SQL's own cosine distance over those centroids.
 */
async function expectedNeighbours(type: 'company' | 'deal', seedId: string, limit: number) {
  const key = type === 'company' ? sql.raw('i.account_id') : sql.raw('i.deal_id');
  return queryRows<{ entity_id: string; member_count: number; score: number }>(
    h.database.db,
    sql`with c as (
          select ${key} as entity_id, avg(v.embedding) as centroid, count(*)::int as member_count
          from utterances u
          join interactions i on i.id = u.interaction_id
          join utterance_vectors v on v.workspace_id = u.workspace_id and v.embedder = u.embedder and v.text_hash = u.text_hash
          where u.workspace_id = ${ws.id} and u.side = 'external' and u.embedder = ${h.services.embedder.id}
            and ${key} is not null
          group by ${key}
        )
        select c.entity_id, c.member_count, 1 - (c.centroid <=> s.centroid) as score
        from c, (select centroid from c where entity_id = ${seedId}) s
        where c.entity_id <> ${seedId}
        order by c.centroid <=> s.centroid, c.entity_id
        limit ${limit}`,
  );
}

async function busiestAccount(): Promise<{ id: string; domain: string; name: string }> {
  const [row] = await queryRows<{ id: string; domain: string; name: string }>(
    h.database.db,
    sql`select a.id, a.domain, a.name from accounts a join interactions i on i.account_id = a.id
        where a.workspace_id = ${ws.id} and a.domain is not null
        group by a.id order by count(*) desc, a.id limit 1`,
  );
  return row!;
}

describe('POST /lookalike (find)', () => {
  it('answers available: false before the centroids are materialized, never a guessed list', async () => {
    const seed = await busiestAccount();
    const res = await find({ entity_type: 'company', entity_id: seed.id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      success: true,
      available: false,
      reason: 'centroids_not_materialized',
      seed: null,
      matches: [],
    });
  });

  it('materializes one centroid per company and deal on the engine, once per change of the store', async () => {
    const first = await requestMaterializations(h.services, clock.now(), ws.id);
    expect(first.runIds).toHaveLength(1);
    // A second request while the first is queued starts nothing.
    expect((await requestMaterializations(h.services, clock.now(), ws.id)).runIds).toHaveLength(0);
    await drain();
    const [run] = await queryRows<{ status: string; error: unknown }>(
      h.database.db,
      sql`select status, error from runs where id = ${first.runIds[0]!}`,
    );
    expect(run).toMatchObject({ status: 'complete', error: null });
    // Nothing changed since: nothing to do.
    expect((await requestMaterializations(h.services, clock.now(), ws.id)).runIds).toHaveLength(0);

    const counts = await queryRows<{ entity_type: string; n: number; expected: number }>(
      h.database.db,
      sql`select t.entity_type, (select count(*)::int from entity_centroids c where c.workspace_id = ${ws.id} and c.entity_type = t.entity_type) as n,
            case t.entity_type
              when 'company' then (select count(distinct i.account_id)::int from utterances u join interactions i on i.id = u.interaction_id
                                    where u.workspace_id = ${ws.id} and u.side = 'external' and u.embedder is not null)
              else (select count(distinct i.deal_id)::int from utterances u join interactions i on i.id = u.interaction_id
                    where u.workspace_id = ${ws.id} and u.side = 'external' and u.embedder is not null)
            end as expected
          from (values ('company'), ('deal')) t(entity_type)`,
    );
    for (const c of counts) {
      expect(c.n, c.entity_type).toBe(c.expected);
      expect(c.n, c.entity_type).toBeGreaterThan(5);
    }
  });

  it('computes the centroids a chunk of entities at a time, the event loop turning between chunks', async () => {
    // Counted, not timed: setImmediate callbacks run while the materialization is in progress. In one
    // statement (PGlite runs it synchronously) the loop did not turn once.
    let turns = 0;
    let done = false;
    const spin = () => {
      if (done) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    const counts = await h.database.db.transaction((tx) =>
      materializeCentroids(tx, ws.id, h.services.embedder.id, clock.now()),
    );
    done = true;
    expect(counts.companies + counts.deals).toBeGreaterThan(20);
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('ranks companies by cosine similarity of their centroids, as SQL over the raw vectors does', async () => {
    const seed = await busiestAccount();
    const res = await find({ entity_type: 'company', entity_id: seed.id, limit: 8 });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.available).toBe(true);
    expect(data.reason).toBeNull();
    expect(data.seed).toMatchObject({
      entity_type: 'company',
      entity_id: seed.id,
      name: seed.name,
      domain: seed.domain,
    });
    expect(data.seed.computed_at).toBe(CORPUS_NOW.toISOString());
    const expected = await expectedNeighbours('company', seed.id, 8);
    expect(data.matches).toHaveLength(8);
    expect(data.matches.map((m: { entity_id: string }) => m.entity_id)).toEqual(expected.map((e) => e.entity_id));
    data.matches.forEach((m: { score: number; member_count: number }, i: number) => {
      expect(m.score).toBeCloseTo(Number(expected[i]!.score), 4);
      expect(m.member_count).toBe(expected[i]!.member_count);
    });
    for (let i = 1; i < data.matches.length; i++)
      expect(data.matches[i - 1].score).toBeGreaterThanOrEqual(data.matches[i].score);
    const [own] = await queryRows<{ n: number }>(
      h.database.db,
      sql`select count(*)::int as n from utterances u join interactions i on i.id = u.interaction_id
          where i.account_id = ${seed.id} and u.side = 'external' and u.embedder is not null`,
    );
    expect(data.seed.member_count).toBe(own!.n);
  });

  it('takes a company by domain (any case, with a scheme) and answers as by its id', async () => {
    const seed = await busiestAccount();
    const byId = await find({ entity_type: 'company', entity_id: seed.id, limit: 5 });
    const byDomain = await find({
      entity_type: 'company',
      domain: `https://WWW.${seed.domain.toUpperCase()}/`,
      limit: 5,
    });
    expect(byDomain.status).toBe(200);
    expect(byDomain.body.data).toEqual(byId.body.data);
  });

  it('ranks deals by their own centroids', async () => {
    const [deal] = await queryRows<{ id: string }>(
      h.database.db,
      sql`select i.deal_id as id from interactions i join utterances u on u.interaction_id = i.id
          where i.workspace_id = ${ws.id} and i.deal_id is not null and u.side = 'external'
          group by i.deal_id order by count(*) desc, i.deal_id limit 1`,
    );
    const res = await find({ entity_type: 'deal', entity_id: deal!.id, limit: 5 });
    expect(res.body.data.available).toBe(true);
    const expected = await expectedNeighbours('deal', deal!.id, 5);
    expect(res.body.data.matches.map((m: { entity_id: string }) => m.entity_id)).toEqual(
      expected.map((e) => e.entity_id),
    );
  });

  it('answers available: false for an account of this workspace that has no conversation', async () => {
    const id = '0193b000-0000-7000-8000-0000000a1111';
    await h.database.db.execute(
      sql`insert into accounts (id, workspace_id, name, domain) values (${id}, ${ws.id}, 'Quiet Co', 'quiet.example')`,
    );
    const res = await find({ entity_type: 'company', entity_id: id });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ available: false, reason: 'centroids_not_materialized', matches: [] });
  });

  it('answers a domain no company of this workspace carries with available: false at 200, not 404', async () => {
    const seed = await busiestAccount();
    // A domain nobody has, and one only another workspace's account has: the same honest answer, no leak.
    for (const [body, key] of [
      [{ entity_type: 'company', domain: 'no-such-company.example' }, ws.viewer.key],
      [{ entity_type: 'company', domain: seed.domain }, other.viewer.key],
    ] as const) {
      const res = await find(body, key);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.body.data).toEqual({
        success: true,
        available: false,
        reason: 'centroids_not_materialized',
        message: expect.stringContaining(body.domain),
        embedder: h.services.embedder.id,
        seed: null,
        matches: [],
      });
    }
  });

  it('refuses bad requests with 400 and an entity_id of another workspace (or none) with 404', async () => {
    const seed = await busiestAccount();
    for (const body of [
      { entity_type: 'company' },
      { entity_type: 'company', entity_id: seed.id, limit: 51 },
      { entity_type: 'deal', domain: 'acme.com' },
      { entity_type: 'company', entity_id: seed.id, domain: seed.domain },
      { entity_type: 'team', entity_id: seed.id },
    ]) {
      const res = await find(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_argument');
    }
    const foreign = await find({ entity_type: 'company', entity_id: seed.id }, other.viewer.key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    const none = await find({ entity_type: 'deal', entity_id: '0193b000-0000-7000-8000-0000000a2222' });
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('not_found');
  });

  it('is the lookalike MCP tool too', async () => {
    const seed = await busiestAccount();
    const res = await h.fetch(`${API_PREFIX}/mcp`, {
      method: 'POST',
      headers: {
        'x-api-key': ws.viewer.key,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'lookalike',
          arguments: { action: 'find', entity_type: 'company', entity_id: seed.id, limit: 3 },
        },
      }),
    });
    const text = await res.text();
    const expected = await expectedNeighbours('company', seed.id, 3);
    for (const e of expected) expect(text).toContain(e.entity_id);
    expect(text).toContain('"available\\":true');
  });
});

describe('POST /lookalike/themes', () => {
  it('returns the nearest themes with score, member_count and freshness, as SQL ranks them', async () => {
    const res = await h.request('POST', '/lookalike/themes', {
      key: ws.viewer.key,
      body: { query: 'frustration with slow security reviews blocking procurement', limit: 5 },
    });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.results.length).toBeGreaterThan(0);
    const [vector] = await h.services.embedder.embed(['frustration with slow security reviews blocking procurement']);
    const expected = await queryRows<{ id: string; member_count: number; score: number }>(
      h.database.db,
      sql`select id, member_count, 1 - (embedding <=> ${`[${vector!.join(',')}]`}::vector) as score from themes
          where workspace_id = ${ws.id} and embedder = ${h.services.embedder.id}
          order by embedding <=> ${`[${vector!.join(',')}]`}::vector, id limit 5`,
    );
    const positive = expected.filter((e) => Number(e.score) > 0);
    expect(data.results.map((r: { cluster_id: string }) => r.cluster_id)).toEqual(positive.map((e) => e.id));
    data.results.forEach((r: { score: number; member_count: number }, i: number) => {
      expect(r.score).toBeCloseTo(Number(positive[i]!.score), 4);
      expect(r.member_count).toBe(positive[i]!.member_count);
    });
    const [index] = await queryRows<{ n: number; synced: Date }>(
      h.database.db,
      sql`select count(*)::int as n, max(created_at) as synced from themes where workspace_id = ${ws.id} and embedder = ${h.services.embedder.id}`,
    );
    expect(data.freshness).toMatchObject({
      source: 'theme_index',
      embedder: h.services.embedder.id,
      theme_count: index!.n,
    });
    expect(data.freshness.synced_at).toBe(new Date(index!.synced).toISOString());
  });

  it('answers an empty list (not an error) in a workspace with no theme', async () => {
    const res = await h.request('POST', '/lookalike/themes', { key: other.viewer.key, body: { query: 'pricing' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: true, results: [], freshness: { theme_count: 0, synced_at: null } });
  });
});

describe('lookalike quota', () => {
  it('counts find and themes in the lookalike family and refuses past a cap with 429 quota_exceeded', async () => {
    const capped = await h.seedWorkspace('Lookalike capped');
    await h.database.db
      .update(workspaces)
      .set({ quotaOverrides: { lookalike: 2 } })
      .where(eq(workspaces.id, capped.id));
    const themes = () => h.request('POST', '/lookalike/themes', { key: capped.viewer.key, body: { query: 'pricing' } });
    expect((await themes()).status).toBe(200);
    // An invalid call costs nothing.
    expect((await find({ entity_type: 'company' }, capped.viewer.key)).status).toBe(400);
    expect((await themes()).status).toBe(200);
    const over = await themes();
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'quota_exceeded', details: { family: 'lookalike', limit: 2 } });
  });
});
