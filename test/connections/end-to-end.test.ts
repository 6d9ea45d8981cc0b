import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionsWorld, seedGong, seedHubSpot, type ConnectionsWorld } from './support.js';

/**
 * The whole path on an empty workspace: connect HubSpot and Gong → sync → search finds the synced
 * calls in the fuzzy and semantic lanes and the deals in the filter lane → disconnect → reconnect.
 */
describe('connections end to end: from an empty workspace to answers in search', () => {
  let w: ConnectionsWorld;
  beforeAll(async () => {
    w = await connectionsWorld();
    seedHubSpot(w.hubspot);
    seedGong(w.gong);
  }, 60_000);
  afterAll(async () => w?.close());

  const search = async (body: Record<string, unknown>) => {
    const res = await w.api('POST', '/search/query', { body });
    expect(res.status, res.text).toBe(200);
    return res.body.data as {
      mode_ran: string;
      results: Record<string, unknown>[];
      detail: { internal: { status: string }; coverage: { latest_ingest_at: string | null } | null };
    };
  };

  it('starts empty: every lane answers honestly with nothing', async () => {
    const fuzzy = await search({ query: 'onboarding review with Acme', mode: 'fuzzy' });
    expect(fuzzy.results).toEqual([]);
    const deals = await search({
      mode: 'filter',
      surface: 'deals',
      filters: [{ field: 'stage', op: 'eq', value: 'closed_won' }],
    });
    expect(deals.results).toEqual([]);
  });

  it('connects both, syncs, and search finds the calls (fuzzy and semantic) and the deals (filter), with the real sync as freshness', async () => {
    const crm = await w.api('POST', '/connections', { body: { connector_type: 'hubspot', api_key: w.hubspot.token } });
    expect(crm.body.data.mode).toBe('connected');
    // Accounts first, so the calls link to them by their participants' domains.
    await w.settle();
    const calls = await w.api('POST', '/connections', {
      body: {
        connector_type: 'gong',
        api_id: w.gong.accessKey,
        api_key: w.gong.secret,
        call_filters: { enabled: true, exclude_domains: ['initech.com'] },
      },
    });
    expect(calls.body.data.mode).toBe('connected');
    await w.settle();
    const list = (await w.api('GET', '/connections')).body.data;
    expect(list.connections.map((c: any) => [c.connector.type, c.health])).toEqual([
      ['gong', 'healthy'],
      ['hubspot', 'healthy'],
    ]);

    const fuzzy = await search({ query: 'Acme Robotics onboarding review', mode: 'fuzzy' });
    expect(fuzzy.mode_ran).toBe('fuzzy');
    expect(JSON.stringify(fuzzy.results)).toContain('Acme Robotics onboarding review');
    expect(fuzzy.detail.coverage?.latest_ingest_at).not.toBeNull();

    const semantic = await search({
      query: 'We need all customer data to stay inside the European Union.',
      mode: 'semantic',
      limit: 5,
    });
    expect(semantic.mode_ran).toBe('semantic');
    expect(JSON.stringify(semantic.results[0])).toContain('European Union');

    const won = await search({
      mode: 'filter',
      surface: 'deals',
      filters: [{ field: 'stage', op: 'eq', value: 'closed_won' }],
    });
    expect(won.mode_ran).toBe('filter');
    expect(JSON.stringify(won.results)).toContain('Initech renewal');
    expect(JSON.stringify(won.results)).not.toContain('Globex pilot');

    // The excluded domain's call never entered the warehouse, so no lane can find it.
    const excluded = await search({ query: 'Initech EU security sync', mode: 'fuzzy' });
    expect(JSON.stringify(excluded.results)).not.toContain('Initech EU security sync');
  });

  it('disconnects both (the synced data stays searchable) and reconnects them in place', async () => {
    const list = (await w.api('GET', '/connections')).body.data.connections as {
      id: string;
      connector: { type: string };
    }[];
    for (const c of list) expect((await w.api('DELETE', `/connections/${c.id}`)).body.data.status).toBe('disconnected');
    expect(
      JSON.stringify((await search({ query: 'Acme Robotics onboarding review', mode: 'fuzzy' })).results),
    ).toContain('Acme Robotics onboarding review');

    const hubspot = list.find((c) => c.connector.type === 'hubspot')!;
    const gong = list.find((c) => c.connector.type === 'gong')!;
    expect(
      (await w.api('POST', `/connections/${hubspot.id}/reconnect`, { body: { api_key: w.hubspot.token } })).body.data
        .connection.id,
    ).toBe(hubspot.id);
    expect(
      (await w.api('POST', `/connections/${gong.id}/reconnect`, { body: { api_key: w.gong.secret } })).body.data
        .connection.id,
    ).toBe(gong.id);
    await w.settle();
    const after = (await w.api('GET', '/connections')).body.data;
    expect(after.total).toBe(2);
    expect(after.connections.map((c: any) => [c.status, c.health])).toEqual([
      ['connected', 'healthy'],
      ['connected', 'healthy'],
    ]);
    const runs = (await w.api('GET', `/connections/${gong.id}/runs`)).body.data.runs;
    expect(runs[0]).toMatchObject({ trigger: 'reconnect', status: 'complete' });
  });
});
