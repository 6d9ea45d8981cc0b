import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * The monthly verb quotas of the knowledge operations: each accepted call counts
 * once against its family (search: hybrid search, cluster search, substrate query; research: ask), a
 * 400 never does; remember belongs to no family the spec names and counts against none. Counts are
 * read from usage_counters with the test's own SQL.
 */

let h: Harness;
let ws: SeededWorkspace;
let key: string;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
  key = (await ws.keyFor(ws.editor, 'internal_agent')).key;
});
afterAll(async () => h?.close());

/** Every family's count this workspace has used, summed over periods. */
async function usage(): Promise<Record<string, number>> {
  const { rows } = await h.pglite.client.query<{ family: string; used: number }>(
    'select family, sum(used)::int as used from usage_counters where workspace_id = $1 group by family',
    [ws.id],
  );
  return Object.fromEntries(rows.map((r) => [r.family, r.used]));
}

const post = (path: string, body: unknown) => h.request<any>('POST', path, { key, body });

describe.each([
  { op: 'hybrid search', path: '/search/hybrid', ok: { query: 'renewal pricing' }, bad: { query: '' } },
  { op: 'cluster search', path: '/clusters/search', ok: { query: 'pricing' }, bad: { query: 'pricing', limit: 0 } },
  {
    op: 'substrate query',
    path: '/substrate/query',
    ok: { intent: 'answer_question', query: 'security review' },
    bad: { intent: 'guess', query: 'security review' },
  },
])('$op', ({ path, ok, bad }) => {
  it('counts once against the search family when accepted, never for a 400', async () => {
    const before = await usage();
    const refused = await post(path, bad);
    expect(refused.status, refused.text).toBe(400);
    expect(await usage()).toEqual(before);
    const accepted = await post(path, ok);
    expect(accepted.status, accepted.text).toBe(200);
    expect(await usage()).toEqual({ ...before, search: (before.search ?? 0) + 1 });
  });
});

describe('ask', () => {
  it('counts once against the research family when accepted, never for a 400', async () => {
    const before = await usage();
    const refused = await post('/ask', { query: '' });
    expect(refused.status, refused.text).toBe(400);
    expect(await usage()).toEqual(before);
    const accepted = await post('/ask', { query: 'Why do customers push back on pricing?' });
    expect(accepted.status, accepted.text).toBe(200);
    // The research run's own searches count in the search family (tool calls are metered too): only research is asserted here.
    expect((await usage()).research).toBe((before.research ?? 0) + 1);
  }, 120_000);
});

describe('remember', () => {
  it('counts against no family (the spec names none for it), accepted or refused', async () => {
    const before = await usage();
    expect((await post('/memory', { text: '' })).status).toBe(400);
    const accepted = await post('/memory', { text: 'Acme renews through procurement in Q4.', source: 'web' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.data.persisted).toBe(true);
    expect(await usage()).toEqual(before);
  });
});
