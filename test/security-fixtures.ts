import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { buildEnvelope } from '../functions/webhooks/events.js';
import { newId } from '../platform/ids.js';
import { webhookDeliveries, webhooks } from '../schema/webhooks.js';
import type { Harness, SeededWorkspace } from './harness.js';
import type { OperationRequest, SecurityFixture } from './security-suite.js';

/**
 * One entry per operation in `allOperations` (test/security.test.ts fails on a missing or stale
 * entry). An entry says how to build a valid request in a given workspace and how the operation
 * relates to tenants; the shared suite in test/security-suite.ts derives every refusal from the
 * operation's declaration. When you add an operation, add it here:
 *
 *   - `request({h, ws})`: a valid request in `ws` (path params, query, body). It runs for every
 *     probe, so an operation on one resource should create that resource here (through `h` or the
 *     database) and address it; never rely on state another entry left behind.
 *   - `tenancy`: `{kind: 'by_id', foreign}` when the operation addresses a resource by id
 *     (`foreign` creates one in the other workspace: the caller must get 404 not_found), or
 *     `{kind: 'workspace', assertOwn?}` when it reads or writes the workspace as a whole.
 *   - `okStatus` when an authorized valid call does not return the declared success status.
 *
 * The security harness runs with ALLOW_LOOPBACK_WEBHOOKS=1, a ManualClock and no network: anything
 * that would call out must point at loopback.
 */

/** A loopback address nothing listens on: deliveries queued by the suite fail fast and locally. */
const HOOK_URL = 'http://127.0.0.1:9/security-suite';

async function insertWebhook(h: Harness, ws: SeededWorkspace): Promise<string> {
  const id = newId();
  await h.database.db.insert(webhooks).values({
    id,
    workspaceId: ws.id,
    userId: ws.admin.userId,
    url: HOOK_URL,
    events: ['session.completed'],
    secretSealed: await h.services.secretBox.seal(`whsec_${newId().replace(/-/g, '')}`),
  });
  return id;
}

async function insertDelivery(h: Harness, ws: SeededWorkspace, webhookId: string): Promise<string> {
  const id = newId();
  const envelope = buildEnvelope(ws.id, 'session.completed', { session_id: newId() }, h.services.clock.now());
  await h.database.db.insert(webhookDeliveries).values({
    id,
    workspaceId: ws.id,
    webhookId,
    eventId: envelope.id,
    event: envelope.type,
    payload: envelope as unknown as Record<string, unknown>,
    statusCode: 500,
    attempt: 1,
    error: 'HTTP 500',
    durationMs: 12,
  });
  return id;
}

const aWebhook = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({ params: { id: await insertWebhook(h, ws) } });
const byWebhookId = { kind: 'by_id' as const, foreign: aWebhook };

export const securityFixtures: Record<string, SecurityFixture> = {
  'setup.status': {
    request: () => ({}),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data, { ws }) => {
        expect(data.workspace).toEqual({ id: ws.id, name: ws.name });
      },
    },
  },

  // The filter lane on the workspace's (empty) warehouse: past validation an empty workspace is success: true.
  'search.query': {
    request: () => ({ body: { filters: [{ field: 'kind', op: 'eq', value: 'call' }], limit: 5 } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        expect(data.success).toBe(true);
        expect(data.mode_ran).toBe('filter');
        expect(data.corpus.empty_reason).toBe('not_synced');
        expect(data.detail.coverage).toMatchObject({ total_rows: 0, latest_event_at: null });
      },
    },
  },
  'search.fields': {
    request: () => ({}),
    tenancy: { kind: 'workspace', assertOwn: (data) => expect(Object.keys(data.surfaces)).toEqual(['interactions', 'deals', 'deal_qualification']) },
  },
  'search.overview': {
    request: () => ({}),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => {
        for (const surface of ['interactions', 'deals', 'deal_qualification']) expect(data.surfaces[surface]).toMatchObject({ row_count: 0, latest_event_at: null });
      },
    },
  },

  'webhooks.create': {
    // Keeps the workspace under its webhook cap however many probes create one.
    request: async ({ h, ws }) => {
      await h.database.db.delete(webhooks).where(eq(webhooks.workspaceId, ws.id));
      return { body: { url: HOOK_URL, events: ['session.completed'] } };
    },
    tenancy: { kind: 'workspace', assertOwn: (data, { ws }) => expect(data.business_id).toBe(ws.id) },
  },
  'webhooks.list': {
    request: async ({ h, ws }) => {
      await insertWebhook(h, ws);
      return { query: { limit: 200 } };
    },
    tenancy: {
      kind: 'workspace',
      assertOwn: (data, { ws }) => {
        expect(data.webhooks.length).toBeGreaterThan(0);
        for (const hook of data.webhooks) expect(hook.business_id).toBe(ws.id);
      },
    },
  },
  'webhooks.get': { request: aWebhook, tenancy: byWebhookId },
  'webhooks.update': {
    request: async (ctx) => ({ ...(await aWebhook(ctx)), body: { active: false } }),
    tenancy: { kind: 'by_id', foreign: async (ctx) => ({ ...(await aWebhook(ctx)), body: { active: false } }) },
  },
  'webhooks.delete': { request: aWebhook, tenancy: byWebhookId },
  'webhooks.deliveries': { request: aWebhook, tenancy: byWebhookId },
  'webhooks.redeliver': {
    request: async ({ h, ws }) => {
      const id = await insertWebhook(h, ws);
      return { params: { id, delivery_id: await insertDelivery(h, ws, id) } };
    },
    tenancy: {
      kind: 'by_id',
      foreign: async ({ h, ws }) => {
        const id = await insertWebhook(h, ws);
        return { params: { id, delivery_id: await insertDelivery(h, ws, id) } };
      },
    },
  },
  'webhooks.ping': { request: aWebhook, tenancy: byWebhookId },
};
