import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/port.js';
import { accounts, connections, contacts, deals, sourceFreshness } from '../../schema/index.js';
import { RecordingQueue } from '../engine/fixtures.js';
import { connectionsWorld, expectEnvelope, seedHubSpot, type ConnectionsWorld } from './support.js';

/** Connecting HubSpot and syncing it into the warehouse, as an admin would on a Monday morning. */
describe('HubSpot: connect, sync, repair', () => {
  let w: ConnectionsWorld;
  let connectionId: string;
  beforeAll(async () => {
    w = await connectionsWorld();
    seedHubSpot(w.hubspot);
  }, 60_000);
  afterAll(async () => w?.close());

  const warehouse = async () => {
    const db = w.h.database.db;
    const where = <T extends { workspaceId: any; source: any }>(t: T) =>
      and(eq(t.workspaceId, w.ws.id), eq(t.source, 'hubspot'));
    return {
      accounts: await db.select().from(accounts).where(where(accounts)),
      contacts: await db.select().from(contacts).where(where(contacts)),
      deals: await db.select().from(deals).where(where(deals)),
    };
  };
  const connection = async () => (await w.api('GET', `/connections/${connectionId}`)).body.data;

  it('lists a catalog with every field of an entry, and says why a source cannot be connected here', async () => {
    const res = await w.api('GET', '/connections/catalog');
    expect(res.status, res.text).toBe(200);
    const byType = new Map<string, any>(res.body.data.connectors.map((c: any) => [c.type, c]));
    expect([...byType.keys()]).toEqual(
      expect.arrayContaining(['hubspot', 'gong', 'salesforce', 'google_calendar', 'bluesky', 'call_webhook']),
    );
    const hubspot = byType.get('hubspot');
    expect(hubspot).toMatchObject({
      kind: 'first_party',
      category: 'crm',
      authMethod: 'api_key',
      connectable: true,
      unavailableReason: null,
      single_instance: true,
      ownership: 'workspace',
    });
    expect(hubspot.logo).toEqual({ key: 'hubspot', url: null, monogram: 'HS' });
    expect(hubspot.connect.fields).toEqual([
      expect.objectContaining({ key: 'api_key', secret: true, resupplyOnReconnect: true }),
    ]);
    expect(byType.get('gong').connect.fields.map((f: any) => [f.key, f.secret])).toEqual([
      ['api_id', false],
      ['api_key', true],
    ]);
    const salesforce = byType.get('salesforce');
    expect(salesforce).toMatchObject({ authMethod: 'oauth', connectable: false, connect: { fields: [] } });
    expect(salesforce.unavailableReason).toContain('SALESFORCE_CLIENT_ID');
    expect(byType.get('bluesky')).toMatchObject({
      authMethod: 'handle',
      category: 'social',
      connectable: true,
      connect: { fields: [expect.objectContaining({ key: 'account_handle', secret: false })] },
    });
    expect(byType.get('call_webhook').authMethod).toBe('webhook');
  });

  it('refuses what it must before anything is stored: API keys, unknown or unconnectable sources, missing or stray fields, rejected tokens, a provider that is down', async () => {
    const body = { connector_type: 'hubspot', api_key: w.hubspot.token };
    const byKey = expectEnvelope(await w.api('POST', '/connections', { key: w.ws.admin.key, body }), 403, 'forbidden');
    expect(byKey.message).toContain('API key');
    expect(
      expectEnvelope(
        await w.api('POST', '/connections', { body: { connector_type: 'pipedrive', api_key: 'x' } }),
        400,
        'invalid_argument',
      ).details.field,
    ).toBe('connector_type');
    expect(
      expectEnvelope(
        await w.api('POST', '/connections', { body: { connector_type: 'salesforce' } }),
        409,
        'connector_not_connectable',
      ).message,
    ).toContain('SALESFORCE_CLIENT_ID');
    expect(
      expectEnvelope(
        await w.api('POST', '/connections', { body: { connector_type: 'gong', api_key: 'secret-only' } }),
        400,
        'invalid_argument',
      ).details.field,
    ).toBe('api_id');
    expect(
      expectEnvelope(
        await w.api('POST', '/connections', { body: { ...body, api_id: 'nope' } }),
        400,
        'invalid_argument',
      ).details.field,
    ).toBe('api_id');
    expect(
      expectEnvelope(
        await w.api('POST', '/connections', { body: { connector_type: 'hubspot' } }),
        400,
        'invalid_argument',
      ).details.field,
    ).toBe('api_key');
    const rejected = await w.api('POST', '/connections', {
      body: { connector_type: 'hubspot', api_key: 'pat-na1-wrong' },
    });
    expect(expectEnvelope(rejected, 400, 'invalid_argument').details.field).toBe('api_key');
    expect(rejected.text).not.toContain('pat-na1-wrong');
    expect(rejected.text).not.toContain('Authentication credentials not found');
    w.hubspot.failNext('account', { status: 503 });
    expectEnvelope(await w.api('POST', '/connections', { body }), 503, 'dependency_unavailable');
    expect((await w.api('GET', '/connections')).body.data.total).toBe(0);
  });

  it('connects with the token checked by HubSpot, never returns it, and syncs companies, contacts and deals in the recency window', async () => {
    const res = await w.api('POST', '/connections', { body: { connector_type: 'hubspot', api_key: w.hubspot.token } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({
      mode: 'connected',
      authorize_url: null,
      connection: { status: 'connected', connector: { type: 'hubspot', category: 'crm' } },
    });
    expect(res.body.data.sync_run_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.text).not.toContain(w.hubspot.token);
    connectionId = res.body.data.connection.id;
    const stored = (await w.h.database.db.select().from(connections).where(eq(connections.id, connectionId)))[0]!;
    expect(stored.credentialsSealed).toMatch(/^v1\./);
    expect(stored.credentialsSealed).not.toContain(w.hubspot.token);

    // Before the first sync completes, the summary says "not synced" with nulls, never zeros.
    const early = (await w.api('GET', `/connections/${connectionId}/summary`)).body.data;
    expect(early).toMatchObject({ synced: false, crm: { accounts: null, deals: null, open_deals: null } });

    await w.settle();
    const data = await warehouse();
    // The company untouched for two years is outside the default 12-month window.
    expect(data.accounts.map((a) => a.name).sort()).toEqual(['Acme Robotics', 'Globex', 'Initech']);
    expect(data.accounts.find((a) => a.externalId === '102')?.type).toBe('sales_target');
    // Nora has no company: the warehouse keeps contacts under accounts, so she is skipped and counted.
    expect(data.contacts.map((c) => c.email).sort()).toEqual(['dana@acme.com', 'gil@globex.com', 'ina@initech.com']);
    const acme = data.accounts.find((a) => a.externalId === '101')!;
    expect(data.contacts.find((c) => c.externalId === '201')?.accountId).toBe(acme.id);
    const dealsById = new Map(data.deals.map((d) => [d.externalId, d]));
    expect(dealsById.get('301')).toMatchObject({
      stage: 'negotiation',
      amount: 120000,
      accountId: acme.id,
      isClosed: false,
      probability: 40,
      currency: 'USD',
    });
    expect(dealsById.get('303')).toMatchObject({ stage: 'closed_won', isWon: true, isClosed: true, probability: 100 });
    expect(dealsById.get('304')).toMatchObject({ stage: 'closed_lost', isWon: false, isClosed: true });

    const view = await connection();
    expect(view).toMatchObject({
      status: 'connected',
      health: 'healthy',
      is_syncing: false,
      last_run: {
        status: 'complete',
        streams_total: 3,
        streams_failed: 0,
        records_written: 10,
        error_reason: null,
        trigger: 'connect',
      },
    });
    expect(Date.parse(view.last_synced_at)).toBeLessThanOrEqual(w.clock.now().getTime());
    expect(Date.parse(view.next_sync_at) - Date.parse(view.last_synced_at)).toBe(15 * 60_000);
    const summary = (await w.api('GET', `/connections/${connectionId}/summary`)).body.data;
    expect(summary).toMatchObject({
      synced: true,
      category: 'crm',
      crm: { accounts: 3, contacts: 3, deals: 4, open_deals: 2, won_deals: 1 },
      calls: null,
    });
    const [freshness] = await w.h.database.db
      .select()
      .from(sourceFreshness)
      .where(and(eq(sourceFreshness.workspaceId, w.ws.id), eq(sourceFreshness.source, 'hubspot')));
    expect(freshness).toMatchObject({ surface: 'deals' });
    expect(freshness?.lastSyncAt).not.toBeNull();
    expect(freshness?.latestIngestAt).not.toBeNull();
  });

  it('answers a second connect of the single-instance source with already_connected and the same connection', async () => {
    const res = await w.api('POST', '/connections', { body: { connector_type: 'hubspot', api_key: w.hubspot.token } });
    expect(res.body.data).toMatchObject({
      mode: 'already_connected',
      sync_run_id: null,
      connection: { id: connectionId },
    });
    expect((await w.api('GET', '/connections')).body.data.total).toBe(1);
  });

  it('syncs incrementally on the schedule: only what changed is asked for, a modified deal is updated in place, a repeated page changes nothing', async () => {
    const before = await warehouse();
    w.hubspot.requests.length = 0;
    const deal = w.hubspot.objects.deals.find((d) => d.id === '302')!;
    deal.properties = {
      ...deal.properties,
      dealstage: 'closedwon',
      hs_is_closed: 'true',
      hs_is_closed_won: 'true',
      hs_lastmodifieddate: w.clock.now().toISOString(),
    };
    await w.tick(); // not due yet: nothing starts
    expect((await w.api('GET', `/connections/${connectionId}/runs`)).body.data.total).toBe(1);
    await w.clock.advance(16 * 60_000);
    await w.tick();
    await w.tick(); // a second tick while the first sync runs starts nothing more
    await w.settle();
    const runs = (await w.api('GET', `/connections/${connectionId}/runs`)).body.data;
    expect(runs.total).toBe(2);
    expect(runs.runs[0]).toMatchObject({ trigger: 'schedule', status: 'complete' });
    expect(runs.runs[1]).toMatchObject({ trigger: 'connect' });
    // Every search carried the cursor: records modified at or after the newest one seen before.
    const searches = w.hubspot.requests.filter((r) => r.path.endsWith('/search'));
    expect(searches.length).toBe(3);
    for (const s of searches) expect(JSON.stringify(s.body)).toContain('"operator":"GTE"');
    const after = await warehouse();
    expect(after.deals.length).toBe(before.deals.length);
    const updated = after.deals.find((d) => d.externalId === '302')!;
    expect(updated).toMatchObject({
      stage: 'closed_won',
      isWon: true,
      id: before.deals.find((d) => d.externalId === '302')!.id,
    });

    // Read everything again from the start (cursors cleared): same rows, same ids, nothing added.
    await w.h.database.db
      .update(connections)
      .set({ cursors: {}, nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
    const again = await warehouse();
    const ids = (rows: { id: string }[]) => rows.map((r) => r.id).sort();
    expect(ids(again.accounts)).toEqual(ids(after.accounts));
    expect(ids(again.contacts)).toEqual(ids(after.contacts));
    expect(ids(again.deals)).toEqual(ids(after.deals));
  });

  it('pages through large objects and restarts past the 10,000-result search window', async () => {
    for (let i = 0; i < 450; i++) {
      w.hubspot.objects.contacts.push({
        id: String(5000 + i),
        properties: {
          firstname: `Bulk${i}`,
          lastname: 'Person',
          email: `bulk${i}@acme.com`,
          associatedcompanyid: '101',
          createdate: w.clock.now().toISOString(),
          hs_lastmodifieddate: new Date(w.clock.now().getTime() + i * 1000).toISOString(),
        },
      });
    }
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    w.hubspot.requests.length = 0;
    await w.tick();
    await w.settle();
    const contactPages = w.hubspot.requests.filter((r) => r.path === '/crm/v3/objects/contacts/search');
    expect(contactPages.length).toBe(3); // 200 + 200 + 51 (the last one modified at the cursor is read again)
    expect(contactPages.every((r) => (r.body as { limit: number }).limit === 200)).toBe(true);
    expect((await warehouse()).contacts.length).toBe(453);
    const run = (await w.api('GET', `/connections/${connectionId}/runs`)).body.data.runs[0];
    expect(run).toMatchObject({ status: 'complete', streams_failed: 0 });
  });

  it('waits out a 429 for as long as Retry-After says, showing rate_limited meanwhile, then finishes', async () => {
    w.hubspot.failNext('search:contacts', {
      status: 429,
      headers: { 'retry-after': '120' },
      body: { status: 'error', message: 'You have reached your secondly limit.', category: 'RATE_LIMITS' },
    });
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.drain();
    const waiting = await connection();
    expect(waiting.health).toBe('rate_limited');
    expect(Date.parse(waiting.rate_limited_until) - w.clock.now().getTime()).toBe(120_000);
    await w.clock.advance(60_000);
    await w.drain();
    expect((await connection()).health).toBe('rate_limited'); // not before Retry-After
    await w.settle();
    const done = await connection();
    expect(done).toMatchObject({
      health: 'healthy',
      rate_limited_until: null,
      last_run: { status: 'complete', error_reason: null },
    });
  });

  it('retries a 5xx page, and fails the sync as transient after five; a malformed page fails as unknown without provider text', async () => {
    w.hubspot.failNext('search:deals', { status: 502 }, 2);
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
    expect((await connection()).last_run).toMatchObject({ status: 'complete', streams_failed: 0 });

    w.hubspot.failNext(
      'search:companies',
      { status: 500, body: { message: 'internal stack at com.hubspot.Secret' } },
      5,
    );
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
    const failed = await connection();
    expect(failed).toMatchObject({ health: 'error', last_run: { status: 'failed', error_reason: 'transient' } });

    w.hubspot.failNext('search:companies', { status: 200, body: { results: 'not a list' } }, 5);
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
    const runs = await w.api('GET', `/connections/${connectionId}/runs`);
    expect(runs.body.data.runs[0]).toMatchObject({ status: 'failed', error_reason: 'unknown' });
    expect(runs.text).not.toContain('com.hubspot');
    expect(runs.text).not.toContain('not a list');
  });

  it('shows needs_reauth after a 401, refuses a reconnect without the token or with a bad one, and restores the same connection with a good one', async () => {
    const good = w.hubspot.token;
    w.hubspot.token = 'pat-na1-rotated';
    await w.h.database.db
      .update(connections)
      .set({ nextSyncAt: w.clock.now() })
      .where(eq(connections.id, connectionId));
    await w.tick();
    await w.settle();
    const broken = await connection();
    expect(broken).toMatchObject({ health: 'needs_reauth', last_run: { status: 'failed', error_reason: 'auth' } });
    // A broken connection is not synced on and on with the same bad token.
    expect(
      expectEnvelope(
        await w.api('POST', `/connections/${connectionId}/reconnect`, { body: {} }),
        400,
        'invalid_argument',
      ).details.field,
    ).toBe('api_key');
    expectEnvelope(
      await w.api('POST', `/connections/${connectionId}/reconnect`, { body: { api_key: good } }),
      400,
      'invalid_argument',
    );
    const res = await w.api('POST', `/connections/${connectionId}/reconnect`, { body: { api_key: 'pat-na1-rotated' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ mode: 'connected', connection: { id: connectionId } });
    await w.settle();
    expect((await connection()).health).toBe('healthy');
    expect((await w.api('GET', '/connections')).body.data.total).toBe(1);
    expect(
      expectEnvelope(
        await w.api('POST', `/connections/${connectionId}/reconnect`, { body: { api_key: 'pat-na1-rotated' } }),
        400,
        'invalid_argument',
      ).message,
    ).toContain('healthy');
  });

  it('widening the CRM recency window to all re-reads history and brings the dormant company', async () => {
    expectEnvelope(
      await w.api('PUT', `/connections/${connectionId}/crm-recency`, { body: { window: 0 } }),
      400,
      'invalid_argument',
    );
    expectEnvelope(
      await w.api('PUT', `/connections/${connectionId}/call-filters`, { body: { enabled: false } }),
      400,
      'invalid_argument',
    );
    const res = await w.api('PUT', `/connections/${connectionId}/crm-recency`, { body: { window: 'all' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.config.crm_recency).toEqual({ window: 'all' });
    await w.tick();
    await w.settle();
    expect((await warehouse()).accounts.map((a) => a.name)).toContain('Old Dormant Co');
  });

  it('disconnects (syncs stop, data and row kept, credentials dropped) and reconnects in place', async () => {
    const before = await warehouse();
    const res = await w.api('DELETE', `/connections/${connectionId}`, { as: w.editor });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'disconnected', health: 'disconnected', next_sync_at: null });
    expect(
      (await w.h.database.db.select().from(connections).where(eq(connections.id, connectionId)))[0]?.credentialsSealed,
    ).toBeNull();
    const runsBefore = (await w.api('GET', `/connections/${connectionId}/runs`)).body.data.total;
    await w.clock.advance(3600_000);
    await w.tick();
    await w.settle();
    expect((await w.api('GET', `/connections/${connectionId}/runs`)).body.data.total).toBe(runsBefore);
    expect((await warehouse()).deals.length).toBe(before.deals.length);
    // The summary still counts what was synced.
    expect((await w.api('GET', `/connections/${connectionId}/summary`)).body.data.crm.deals).toBe(before.deals.length);

    expectEnvelope(
      await w.api('POST', `/connections/${connectionId}/reconnect`, { body: {} }),
      400,
      'invalid_argument',
    );
    const back = await w.api('POST', `/connections/${connectionId}/reconnect`, { body: { api_key: w.hubspot.token } });
    expect(back.body.data).toMatchObject({ mode: 'connected', connection: { id: connectionId, status: 'connected' } });
    await w.settle();
    expect((await connection()).health).toBe('healthy');
    expect((await w.api('GET', '/connections')).body.data.total).toBe(1);
  });

  it('sets the owner only on personal connections, to members only', async () => {
    const res = await w.api('PATCH', `/connections/${connectionId}`, { body: { owner_user_id: w.ws.editor.userId } });
    expect(expectEnvelope(res, 400, 'invalid_argument').message).toContain('belong to the workspace');
    const renamed = await w.api('PATCH', `/connections/${connectionId}`, { body: { display_name: 'Main CRM' } });
    expect(renamed.body.data.display_name).toBe('Main CRM');
  });

  it('keeps tenants apart: another workspace sees none of it', async () => {
    const other = await w.h.seedWorkspace('Elsewhere');
    const token = await other.tokenFor(other.admin, ['connections:read', 'connections:write', 'connections:delete']);
    expect((await w.h.request('GET', '/connections', { bearer: token })).body.data.total).toBe(0);
    expectEnvelope(await w.h.request('GET', `/connections/${connectionId}`, { bearer: token }), 404, 'not_found');
    expectEnvelope(
      await w.h.request('GET', `/connections/${connectionId}/summary`, { bearer: token }),
      404,
      'not_found',
    );
    expectEnvelope(await w.h.request('DELETE', `/connections/${connectionId}`, { bearer: token }), 404, 'not_found');
  });
});

describe('HubSpot: one sync of a connection at a time', () => {
  it('starts one sync when two scheduler ticks and two reconnects race on a stale connection that is due', {
    tags: ['race'],
  }, async () => {
    const w = await connectionsWorld();
    try {
      seedHubSpot(w.hubspot);
      const connected = await w.api('POST', '/connections', {
        body: { connector_type: 'hubspot', api_key: w.hubspot.token },
      });
      expect(connected.status, connected.text).toBe(200);
      const id: string = connected.body.data.connection.id;
      await w.settle();
      // Two hours without a tick: due for its scheduled sync, and stale, so a reconnect is allowed.
      await w.clock.advance(2 * 3600_000);

      // Deliveries are held during the race: no sync can finish in it, so every sync it started is still queued.
      const local = w.h.services.queue;
      w.h.services.queue = new RecordingQueue();
      const reconnect = () => w.api('POST', `/connections/${id}/reconnect`, { body: { api_key: w.hubspot.token } });
      const [, , ...reconnects] = await Promise.all([w.tick(), w.tick(), reconnect(), reconnect()]).finally(() => {
        w.h.services.queue = local;
      });
      for (const res of reconnects) expect(res.status, res.text).toBe(200);
      const syncs = await queryRows<{ id: string; trigger: string; status: string }>(
        w.h.database.db,
        sql`select id, input->>'trigger' as trigger, status from runs
            where kind = 'connection_sync' and input->>'connection_id' = ${id} order by created_at, id`,
      );
      // The connect's sync and exactly one more, by whichever of the four claimed the connection first.
      expect(syncs).toHaveLength(2);
      expect(syncs[0]).toMatchObject({ trigger: 'connect', status: 'complete' });
      expect(syncs[1]).toMatchObject({ trigger: expect.stringMatching(/^(schedule|reconnect)$/), status: 'queued' });
      // A reconnect names the sync it started, or none when another's sync was already queued.
      const named = reconnects.map((res) => res.body.data.sync_run_id).filter((runId) => runId !== null);
      expect(named).toEqual(syncs[1]?.trigger === 'reconnect' ? [syncs[1].id] : []);
    } finally {
      await w.close();
    }
  });
});
