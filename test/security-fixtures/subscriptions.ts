import { expect } from 'vitest';
import { newId } from '../../platform/ids.js';
import { connections, subscriptions } from '../../schema/index.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';
import { settle } from './chat.js';

/**
 * Security fixtures of subscriptions: each probe gets a Google Calendar connection and a paused
 * subscription of its own (paused: the suite's clock never reads a calendar or fires).
 */

async function insertCalendarConnection(h: Harness, ws: SeededWorkspace): Promise<string> {
  const id = newId();
  await h.database.db.insert(connections).values({
    id,
    workspaceId: ws.id,
    connectorType: 'google_calendar',
    status: 'connected',
    ownerUserId: ws.editor.userId,
    createdBy: ws.editor.userId,
    caller: {},
  });
  return id;
}

async function insertSubscription(h: Harness, ws: SeededWorkspace): Promise<string> {
  const id = newId();
  await h.database.db.insert(subscriptions).values({
    id,
    workspaceId: ws.id,
    name: 'Suite subscription',
    sourceKind: 'calendar.event_upcoming',
    prompt: 'Prep me for this meeting.',
    config: {
      connection_id: await insertCalendarConnection(h, ws),
      calendar_id: 'primary',
      lead_minutes: 60,
      require_attendees: false,
    },
    enabled: false,
    createdBy: ws.editor.userId,
    caller: {
      user_id: ws.editor.userId,
      email: ws.editor.email,
      role: 'editor',
      auth_method: 'identity_provider',
      credential_id: 'suite',
      scopes: ['data:read'],
      bundle: null,
    },
  });
  return id;
}

const aSubscription = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertSubscription(h, ws) },
});

export const subscriptionFixtures: Record<string, SecurityFixture> = {
  'subscriptions.list_kinds': {
    request: () => ({}),
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(data.kinds.length).toBeGreaterThan(0) },
  },
  'subscriptions.list': {
    request: async (ctx) => {
      await insertSubscription(ctx.h, ctx.ws);
      return { query: { limit: 200 } };
    },
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(data.total).toBeGreaterThan(0) },
  },
  'subscriptions.get': { request: aSubscription, tenancy: { kind: 'by_id', foreign: aSubscription } },
  'subscriptions.list_fires': { request: aSubscription, tenancy: { kind: 'by_id', foreign: aSubscription } },
  'subscriptions.create': {
    request: async (ctx) => ({
      body: {
        name: 'Meeting prep',
        source_kind: 'calendar.event_upcoming',
        prompt: 'Prep me for this meeting.',
        config: { connection_id: await insertCalendarConnection(ctx.h, ctx.ws), lead_minutes: 30 },
      },
    }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data).toMatchObject({ name: 'Meeting prep', enabled: true }),
    },
  },
  'subscriptions.update': {
    request: async (ctx) => ({ ...(await aSubscription(ctx)), body: { name: 'Renamed' } }),
    tenancy: {
      kind: 'by_id',
      foreign: async (ctx) => ({ ...(await aSubscription(ctx)), body: { name: 'Renamed' } }),
    },
  },
  'subscriptions.delete': { request: aSubscription, tenancy: { kind: 'by_id', foreign: aSubscription } },
  'subscriptions.test_fire': {
    request: async (ctx) => {
      await settle(ctx.h);
      return aSubscription(ctx);
    },
    tenancy: { kind: 'by_id', foreign: aSubscription },
  },
};
