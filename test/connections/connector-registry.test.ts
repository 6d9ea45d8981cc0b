import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accounts, connections } from '../../schema/index.js';
import type { Connector } from '../../functions/connections/connector.js';
import { allConnectors } from '../../functions/connections/connectors/index.js';
import { planCrmPage } from '../../functions/connections/crm-ingest.js';
import { ProviderError } from '../../functions/connections/provider-errors.js';
import { crmSummary, commsSummary } from '../../functions/connections/summary-blocks.js';
import { connectionsWorld, expectEnvelope, type ConnectionsWorld } from './support.js';

const CALLBACK = '/api/platform/v1/connections/oauth/callback';
const OAUTH_CLIENTS = {
  SALESFORCE_CLIENT_ID: 'sf-client',
  SALESFORCE_CLIENT_SECRET: 'sf-secret',
  GOOGLE_CLIENT_ID: 'google-client',
  GOOGLE_CLIENT_SECRET: 'google-secret',
};

/** What the catalog must show for a connector: its own entry, field for field. */
const entryOf = (c: Connector, connectable: boolean) => ({
  type: c.type,
  name: c.name,
  kind: 'first_party',
  category: c.category,
  authMethod: c.authMethod,
  logo: { key: c.type, url: null, monogram: c.monogram },
  connect: { method: c.authMethod, fields: c.fields, keyUrl: c.keyUrl },
  connectable,
  unavailableReason: connectable ? null : expect.any(String),
  single_instance: c.single_instance,
  ownership: c.ownership,
  description: c.description,
  dataStreams: c.dataStreams,
});

/**
 * The connectors list is the one place a connector is switched on: the catalog is exactly its
 * entries, a connect checks credentials and opens syncs through the connector it names, and an OAuth
 * connect and callback use the connector's own settings. A list passed in instead (two test-only
 * connectors) replaces every built-in one, with no other change.
 */
describe('connectors: the catalog, syncs and OAuth flows come from the one list', () => {
  describe('the service list (allConnectors)', () => {
    let w: ConnectionsWorld;
    beforeAll(async () => {
      w = await connectionsWorld(OAUTH_CLIENTS);
    });
    afterAll(async () => {
      await w?.close();
    });

    it('shows every connector of the list in the catalog, in list order, each with its own entry', async () => {
      const res = await w.api('GET', '/connections/catalog');
      expect(res.status).toBe(200);
      expect(res.body.data.connectors).toEqual(allConnectors.map((c) => entryOf(c, true)));
      // Every built-in provider is in the list: a connector outside it would be missing here.
      expect(allConnectors.map((c) => c.type).sort()).toEqual(
        ['bluesky', 'call_webhook', 'gong', 'google_calendar', 'hubspot', 'salesforce'].sort(),
      );
    });

    it('sends each OAuth connector to the authorize URL its own settings build', async () => {
      const config = w.h.services.config;
      const oauthConnectors = allConnectors.filter((c) => c.authMethod === 'oauth');
      expect(oauthConnectors.map((c) => c.type).sort()).toEqual(['google_calendar', 'salesforce']);
      for (const connector of oauthConnectors) {
        expect(connector.oauth, `${connector.type} declares its OAuth settings`).toBeDefined();
        const res = await w.api('POST', '/connections', { body: { connector_type: connector.type } });
        expect(res.status).toBe(200);
        expect(res.body.data.mode).toBe('oauth_redirect');
        const got = new URL(res.body.data.authorize_url);
        const own = new URL(
          connector.oauth?.authorizeUrl(config, {
            state: got.searchParams.get('state') ?? '',
            challenge: got.searchParams.get('code_challenge') ?? '',
            redirectUri: `http://platform.test${CALLBACK}`,
          }) ?? '',
        );
        expect(got.origin + got.pathname).toBe(own.origin + own.pathname);
        expect(Object.fromEntries(got.searchParams)).toEqual(Object.fromEntries(own.searchParams));
      }
    });
  });

  describe('a list passed in', () => {
    const SOURCE = 'test_notes';
    const notes: Connector = {
      type: SOURCE,
      name: 'Test notes',
      category: 'crm',
      authMethod: 'api_key',
      monogram: 'TN',
      fields: [
        {
          key: 'api_key',
          label: 'Token',
          secret: true,
          placeholder: null,
          help: 'Any token but "refused".',
          resupplyOnReconnect: true,
        },
      ],
      keyUrl: null,
      single_instance: true,
      ownership: 'workspace',
      description: 'A test-only CRM with one company.',
      dataStreams: ['companies'],
      unavailable: () => null,
      async checkCredentials(_services, fields, secrets) {
        if (secrets.api_key === 'refused') throw new ProviderError('auth', 'refused');
        return fields;
      },
      openSyncSource: (services, connection) => ({
        source: SOURCE,
        streams: ['companies'],
        surfaceOf: () => null,
        async fetch(_stream, _saved, now) {
          const planned = await planCrmPage(
            services.db,
            connection.workspaceId,
            SOURCE,
            {
              kind: 'companies',
              rows: [
                {
                  externalId: 'note-1',
                  name: 'Notes Company',
                  domain: 'notes.test',
                  type: null,
                  industry: null,
                  employeeCount: null,
                  createdAt: null,
                },
              ],
            },
            now,
          );
          return { cursor: { read: true }, done: true, ...planned };
        },
      }),
      summary: crmSummary,
    };
    const consent: Connector = {
      type: 'test_consent',
      name: 'Test consent',
      category: 'comms',
      authMethod: 'oauth',
      monogram: 'TC',
      fields: [],
      keyUrl: null,
      single_instance: false,
      ownership: 'personal',
      description: 'A test-only OAuth source.',
      dataStreams: ['events'],
      unavailable: () => null,
      oauth: {
        type: 'test_consent',
        name: 'Test consent',
        authorizeUrl: (_config, p) =>
          `https://consent.example.test/authorize?${new URLSearchParams({ state: p.state, redirect_uri: p.redirectUri })}`,
        // Nothing listens here: the code exchange fails as a provider that cannot be reached.
        tokenUrl: () => 'http://127.0.0.1:9/test-consent/token',
        clientId: () => 'test-consent-client',
        clientSecret: () => 'test-consent-secret',
      },
      summary: commsSummary,
    };

    let w: ConnectionsWorld;
    beforeAll(async () => {
      w = await connectionsWorld(OAUTH_CLIENTS, { connectors: [notes, consent] });
    });
    afterAll(async () => {
      await w?.close();
    });

    it('shows exactly the list in the catalog: its connectors, and none of the built-in ones', async () => {
      const res = await w.api('GET', '/connections/catalog');
      expect(res.status).toBe(200);
      expect(res.body.data.connectors).toEqual([entryOf(notes, true), entryOf(consent, true)]);
    });

    it('refuses a built-in connector this service does not list, naming the ones it does', async () => {
      const res = await w.api('POST', '/connections', { body: { connector_type: 'hubspot', api_key: 'pat-x' } });
      const error = expectEnvelope(res, 400, 'invalid_argument');
      expect(error.details).toMatchObject({ field: 'connector_type', allowed: [notes.type, consent.type] });
    });

    it('checks credentials with the listed connector, syncs through its source, and summarizes with its block', async () => {
      const refused = await w.api('POST', '/connections', { body: { connector_type: notes.type, api_key: 'refused' } });
      expect(expectEnvelope(refused, 400, 'invalid_argument').details).toMatchObject({
        field: 'api_key',
        connector_type: notes.type,
      });
      const stored = await w.h.database.db
        .select({ id: connections.id })
        .from(connections)
        .where(eq(connections.workspaceId, w.ws.id));
      expect(stored).toEqual([]);

      const res = await w.api('POST', '/connections', { body: { connector_type: notes.type, api_key: 'token' } });
      expect(res.status).toBe(200);
      expect(res.body.data.mode).toBe('connected');
      const id = res.body.data.connection.id as string;
      expect(res.body.data.sync_run_id).toEqual(expect.any(String));
      await w.settle();

      const rows = await w.h.database.db
        .select({ name: accounts.name, domain: accounts.domain })
        .from(accounts)
        .where(and(eq(accounts.workspaceId, w.ws.id), eq(accounts.source, SOURCE)));
      expect(rows).toEqual([{ name: 'Notes Company', domain: 'notes.test' }]);
      const [row] = await w.h.database.db
        .select({ cursors: connections.cursors, lastSyncedAt: connections.lastSyncedAt })
        .from(connections)
        .where(eq(connections.id, id));
      expect(row?.cursors).toEqual({ companies: { read: true } });
      expect(row?.lastSyncedAt).not.toBeNull();

      const runs = await w.api('GET', `/connections/${id}/runs`);
      expect(runs.body.data.runs).toMatchObject([
        { status: 'complete', streams_total: 1, streams_failed: 0, records_written: 1 },
      ]);
      const summary = await w.api('GET', `/connections/${id}/summary`);
      expect(summary.status).toBe(200);
      expect(summary.body.data).toMatchObject({
        category: 'crm',
        synced: true,
        crm: { accounts: rows.length, contacts: 0, deals: 0 },
        calls: null,
        comms: null,
        social: null,
      });
    });

    it('runs an OAuth connect and its callback on the listed connector’s own settings', async () => {
      const res = await w.api('POST', '/connections', { body: { connector_type: consent.type } });
      expect(res.status).toBe(200);
      expect(res.body.data.mode).toBe('oauth_redirect');
      const url = new URL(res.body.data.authorize_url);
      expect(url.origin + url.pathname).toBe('https://consent.example.test/authorize');
      expect(url.searchParams.get('redirect_uri')).toBe(`http://platform.test${CALLBACK}`);
      const id = res.body.data.connection.id as string;

      // The callback finds the connector's token endpoint through the list: unreachable, the consent ends in error.
      const back = await w.h.fetch(
        `${CALLBACK}?${new URLSearchParams({ state: url.searchParams.get('state') ?? '', code: 'code-1' })}`,
      );
      expect(back.status).toBe(302);
      const location = new URL(back.headers.get('location') ?? '', 'http://platform.test');
      expect(Object.fromEntries(location.searchParams)).toEqual({
        connection_id: id,
        connection_result: 'error',
        reason: 'transient',
      });
    });
  });
});
