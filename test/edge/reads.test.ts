import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ADMIN_EMAIL } from '../../functions/embedded/demo-bootstrap.js';
import { BUDGETS } from './budgets.js';
import { api, closeSql, edge, measure, newAdminKey, sql } from './support.js';

/**
 * Reads through the real bundle in workerd, each held to its round-trip budget at the relay
 * (test/edge/budgets.ts): an authenticated read (first and steady), a filter search, and the
 * 401 and 404 envelopes.
 */
let key: string;

beforeAll(async () => {
  // A key this isolate has never seen, so the first read below really is the key's first.
  key = await newAdminKey('edge tier reads');
});
afterAll(closeSql);

const within = (
  seen: { relay: { connectionsOpened: number; queries: number } },
  budget: { connections: number; queries: number },
) => {
  expect(seen.relay.connectionsOpened, JSON.stringify(seen)).toBeLessThanOrEqual(budget.connections);
  expect(seen.relay.queries, JSON.stringify(seen)).toBeLessThanOrEqual(budget.queries);
};

describe('an authenticated read in workerd', () => {
  it('answers who the caller is, within its first and steady budgets', async () => {
    const first = await measure(() => api('GET', '/setup/status', { key }));
    expect(first.result.status, first.result.text).toBe(200);
    expect(first.result.body.data).toMatchObject({
      auth_method: 'api_key',
      workspace: { id: edge.workspaceId },
      caller: { email: DEMO_ADMIN_EMAIL },
    });
    within(first.total, BUDGETS.firstAuthenticatedRead);
    // The read did reach the database through the relay (a cache answering alone would not).
    expect(first.total.relay.queries).toBeGreaterThan(0);
    // The key's last use was written (after the response) to the database the relay serves.
    const [row] = await sql<{ last_used_at: Date | null }>('select last_used_at from api_keys where name = $1', [
      'edge tier reads',
    ]);
    expect(row?.last_used_at).not.toBeNull();

    const steady = await measure(() => api('GET', '/setup/status', { key }));
    expect(steady.result.status, steady.result.text).toBe(200);
    within(steady.total, BUDGETS.steadyAuthenticatedRead);
    expect(steady.total.relay.queries).toBeGreaterThan(0);
    // Each request's limiter check is one Upstash REST round trip (one rule on this route).
    expect(steady.total.redis.requests).toBe(1);
  });
});

describe('a filter search in workerd', () => {
  it('answers the same rows independent SQL finds, within its budget', async () => {
    const { result, total } = await measure(() =>
      api('POST', '/search/query', {
        key,
        body: {
          surface: 'deals',
          filters: [{ field: 'stage', op: 'in', value: ['proposal', 'negotiation'] }],
          group_by: ['stage'],
          metrics: [{ fn: 'count' }],
        },
      }),
    );
    expect(result.status, result.text).toBe(200);
    within(total, BUDGETS.filterSearch);

    const expected = await sql<{ stage: string; n: string }>(
      `select stage, count(*)::text as n from deals where workspace_id = $1 and stage in ('proposal', 'negotiation')
       group by stage order by stage`,
      [edge.workspaceId],
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(result.body.data.mode_ran).toBe('filter');
    const rows = result.body.data.results as { stage: string; count: number }[];
    const answered = Object.fromEntries(rows.map((r) => [r.stage, r.count]));
    expect(answered).toEqual(Object.fromEntries(expected.map((r) => [r.stage, Number(r.n)])));
  });
});

describe('an analysis over every conversation in workerd', () => {
  it('reads the corpus as one slice on the server, within its budget', async () => {
    const { result, total } = await measure(() => api('POST', '/analyses/talk-ratio', { key, body: {} }));
    expect(result.status, result.text).toBe(200);
    within(total, BUDGETS.talkRatio);
    const [calls] = await sql<{ n: string }>(
      `select count(*)::text as n from interactions where workspace_id = $1 and kind in ('call', 'meeting')`,
      [edge.workspaceId],
    );
    // More calls and meetings than an embedded slice holds: the budget would not hold at that pacing.
    expect(Number(calls?.n)).toBeGreaterThan(300);
    expect(result.body.data.results.by_rep.length).toBeGreaterThan(0);
  });
});

describe('error envelopes in workerd', () => {
  it('401 without a credential, before any database work', async () => {
    const { result, total } = await measure(() => api('GET', '/setup/status'));
    expect(result.status).toBe(401);
    expect(Object.keys(result.body)).toEqual(['error']);
    expect(result.body.error).toMatchObject({ code: 'unauthenticated', message: expect.any(String) });
    expect(result.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="/);
    within(total, BUDGETS.unauthenticated);
  });

  it('404 for an agent that does not exist, within its budget', async () => {
    const { result, total } = await measure(() => api('GET', '/agents/00000000-0000-7000-8000-0000000e0404', { key }));
    expect(result.status, result.text).toBe(404);
    expect(result.body.error).toMatchObject({ code: 'not_found' });
    expect(typeof result.body.error.message).toBe('string');
    within(total, BUDGETS.notFound);
  });
});
