import { and, eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { newId } from '../../platform/ids.js';
import { connections } from '../../schema/index.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';

/**
 * The connections surface. The security harness points HUBSPOT_API_BASE_URL at a local fake HubSpot
 * (test/support/fake-providers.ts) that accepts this token, so a connect or reconnect is checked
 * with a provider without leaving the machine.
 */
export const FAKE_HUBSPOT_TOKEN = 'pat-na1-fake-token';

type Overrides = Partial<typeof connections.$inferInsert>;

export async function insertConnection(
  h: Harness,
  ws: SeededWorkspace,
  connectorType: string,
  overrides: Overrides = {},
): Promise<string> {
  const id = newId();
  await h.database.db.insert(connections).values({
    id,
    workspaceId: ws.id,
    connectorType,
    displayName: `${connectorType} ${id.slice(-6)}`,
    status: 'connected',
    createdBy: ws.admin.userId,
    caller: { user_id: ws.admin.userId },
    credentialsSealed: await h.services.secretBox.seal(JSON.stringify({ api_key: FAKE_HUBSPOT_TOKEN })),
    ...overrides,
  });
  return id;
}

const byId = (type: string, overrides: Overrides = {}, body?: () => Record<string, unknown>) => ({
  kind: 'by_id' as const,
  foreign: async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
    params: { id: await insertConnection(h, ws, type, overrides) },
    ...(body ? { body: body() } : {}),
  }),
});

const read = (type = 'hubspot'): SecurityFixture => ({
  request: async ({ h, ws }) => ({ params: { id: await insertConnection(h, ws, type) } }),
  tenancy: byId(type),
});

export const connectionFixtures: Record<string, SecurityFixture> = {
  'connections.catalog': { request: () => ({}), tenancy: { kind: 'workspace' } },
  'connections.list': {
    request: async ({ h, ws }) => {
      await insertConnection(h, ws, 'hubspot', { status: 'disconnected' });
      return { query: { limit: 200 } };
    },
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        // Sealed or plain, a credential never leaves the service.
        const text = JSON.stringify(data);
        expect(text).not.toContain(FAKE_HUBSPOT_TOKEN);
        expect(text).not.toMatch(/v1\.[A-Za-z0-9_-]{8,}\./);
      },
    },
  },
  'connections.get': read(),
  'connections.status': read(),
  'connections.runs': read(),
  'connections.summary': read(),
  'connections.connect': {
    // A fresh connect each probe: the single-instance HubSpot connection of the workspace is cleared first.
    request: async ({ h, ws }) => {
      await h.database.db
        .delete(connections)
        .where(and(eq(connections.workspaceId, ws.id), eq(connections.connectorType, 'hubspot')));
      return { body: { connector_type: 'hubspot', api_key: FAKE_HUBSPOT_TOKEN } };
    },
    tenancy: { kind: 'workspace', assertOwn: (data) => expect((data as { mode: string }).mode).toBe('connected') },
  },
  'connections.disconnect': read(),
  'connections.update': {
    request: async ({ h, ws }) => ({
      params: { id: await insertConnection(h, ws, 'hubspot') },
      body: { display_name: `renamed ${newId().slice(-8)}` },
    }),
    tenancy: byId('hubspot', {}, () => ({ display_name: `renamed ${newId().slice(-8)}` })),
  },
  'connections.reconnect': {
    // Broken (a sync was refused for its credentials), so a reconnect is allowed.
    request: async ({ h, ws }) => ({
      params: { id: await insertConnection(h, ws, 'hubspot', { status: 'disconnected', credentialsSealed: null }) },
      body: { api_key: FAKE_HUBSPOT_TOKEN },
    }),
    tenancy: byId('hubspot', { status: 'disconnected', credentialsSealed: null }, () => ({
      api_key: FAKE_HUBSPOT_TOKEN,
    })),
  },
  'connections.set_call_filters': {
    request: async ({ h, ws }) => ({
      params: { id: await insertConnection(h, ws, 'gong', { status: 'disconnected', fields: { api_id: 'GONGKEY' } }) },
      body: { enabled: true, exclude_domains: ['acme.com'] },
    }),
    tenancy: byId('gong', { status: 'disconnected' }, () => ({ enabled: true, exclude_domains: ['acme.com'] })),
  },
  'connections.set_crm_recency': {
    request: async ({ h, ws }) => ({
      params: { id: await insertConnection(h, ws, 'hubspot', { status: 'disconnected' }) },
      body: { window: 24 },
    }),
    tenancy: byId('hubspot', { status: 'disconnected' }, () => ({ window: 24 })),
  },
  'connections.set_comms_filter': {
    request: async ({ h, ws }) => ({
      params: { id: await insertConnection(h, ws, 'google_calendar', { status: 'disconnected' }) },
      body: { external_only: true },
    }),
    tenancy: byId('google_calendar', { status: 'disconnected' }, () => ({ external_only: true })),
  },
};
