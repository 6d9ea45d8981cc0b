import { and, arrayContains, eq } from 'drizzle-orm';
import { z } from 'zod';
import { newId } from '../../platform/ids.js';
import type { CommitScope } from '../../queues/pipeline.js';
import { webhooks } from '../../schema/webhooks.js';

/** The spec's event names (Events 1), which webhooks subscribe to. */
export const WEBHOOK_EVENTS = [
  'artifact.created',
  'artifact.updated',
  'artifact.status_changed',
  'session.completed',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** An addition to the spec's four: sent only by the ping operation, to check an endpoint. */
export const PING_EVENT = 'webhook.ping';

export const WEBHOOK_DELIVERY_KIND = 'webhook_delivery';

/** The JSON body of every delivery. */
export interface EventEnvelope {
  id: string;
  type: string;
  created_at: string;
  business_id: string;
  data: Record<string, unknown>;
}

export function buildEnvelope(
  workspaceId: string,
  type: string,
  data: Record<string, unknown>,
  at: Date,
): EventEnvelope {
  return { id: `evt_${newId()}`, type, created_at: at.toISOString(), business_id: workspaceId, data };
}

export interface DeliveryRunInput extends Record<string, unknown> {
  webhook_id: string;
  envelope: EventEnvelope;
}

/** A delivery run's stored input, as the queue hands it back: checked before a stage trusts it. */
export const DeliveryRunInputSchema: z.ZodType<DeliveryRunInput> = z.object({
  webhook_id: z.uuid(),
  envelope: z.object({
    id: z.string().min(1),
    type: z.string().min(1),
    created_at: z.string(),
    business_id: z.uuid(),
    data: z.record(z.string(), z.unknown()),
  }),
});

/**
 * The internal event bus: a surface that completes a session or changes an artifact emits here,
 * inside the transaction that made the change. Every active webhook of the workspace subscribed to
 * the event gets a delivery run, published only if that transaction commits.
 */
export async function emitEvent(
  scope: CommitScope,
  event: { workspaceId: string; type: WebhookEventName; data: Record<string, unknown>; at: Date },
): Promise<{ eventId: string; deliveries: number }> {
  const subscribed = await scope.tx
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(
      and(
        eq(webhooks.workspaceId, event.workspaceId),
        eq(webhooks.active, true),
        arrayContains(webhooks.events, [event.type]),
      ),
    );
  const envelope = buildEnvelope(event.workspaceId, event.type, event.data, event.at);
  for (const hook of subscribed) {
    await scope.startRun({
      workspaceId: event.workspaceId,
      kind: WEBHOOK_DELIVERY_KIND,
      input: { webhook_id: hook.id, envelope } satisfies DeliveryRunInput,
    });
  }
  return { eventId: envelope.id, deliveries: subscribed.length };
}
