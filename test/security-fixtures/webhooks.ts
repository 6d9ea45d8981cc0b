import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { buildEnvelope } from '../../functions/webhooks/events.js';
import { newId } from '../../platform/ids.js';
import { webhookDeliveries, webhooks } from '../../schema/webhooks.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';

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

const aWebhook = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertWebhook(h, ws) },
});
const byWebhookId = { kind: 'by_id' as const, foreign: aWebhook };

/** Security fixtures of the webhooks surface (see index.ts for how to write one). */
export const webhookFixtures: Record<string, SecurityFixture> = {
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
