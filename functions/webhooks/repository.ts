import { and, count, desc, eq } from 'drizzle-orm';
import { type Page, pageWithTotal } from '../../platform/db/paging.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { webhookDeliveries, webhooks } from '../../schema/webhooks.js';
import type { WebhookEventName } from './events.js';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Registration limit per workspace (the spec leaves it open; documented in docs/guides/webhooks.md). */
export const MAX_WEBHOOKS_PER_WORKSPACE = 20;

export async function getWebhook(db: Queryable, workspaceId: string, id: string): Promise<WebhookRow> {
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.workspaceId, workspaceId), eq(webhooks.id, id)));
  if (!row) throw new ApiError('not_found', 'No such webhook in this workspace.', { webhook_id: id });
  return row;
}

const webhookCount = (db: Queryable, workspaceId: string) =>
  db.select({ n: count() }).from(webhooks).where(eq(webhooks.workspaceId, workspaceId));

export async function countWebhooks(db: Queryable, workspaceId: string): Promise<number> {
  const [row] = await webhookCount(db, workspaceId);
  return row?.n ?? 0;
}

export async function listWebhooks(db: Queryable, workspaceId: string, page: Page) {
  return pageWithTotal(
    db
      .select()
      .from(webhooks)
      .where(eq(webhooks.workspaceId, workspaceId))
      .orderBy(desc(webhooks.createdAt), desc(webhooks.id)),
    webhookCount(db, workspaceId),
    page,
  );
}

export async function listDeliveries(db: Queryable, workspaceId: string, webhookId: string, page: Page) {
  const where = and(eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.webhookId, webhookId));
  return pageWithTotal(
    db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id)),
    db.select({ n: count() }).from(webhookDeliveries).where(where),
    page,
  );
}

export async function getDelivery(
  db: Queryable,
  workspaceId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow> {
  const [row] = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.workspaceId, workspaceId),
        eq(webhookDeliveries.webhookId, webhookId),
        eq(webhookDeliveries.id, deliveryId),
      ),
    );
  if (!row) throw new ApiError('not_found', 'No such delivery for this webhook.', { delivery_id: deliveryId });
  return row;
}

/** How many attempts this event has had at this webhook so far (redeliveries continue the count). */
export async function attemptsSoFar(db: Queryable, webhookId: string, eventId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhookId, webhookId), eq(webhookDeliveries.eventId, eventId)));
  return row?.n ?? 0;
}

export function toWebhook(row: WebhookRow) {
  return {
    id: row.id,
    business_id: row.workspaceId,
    user_id: row.userId,
    url: row.url,
    events: row.events as WebhookEventName[],
    active: row.active,
    disabled_reason: row.disabledReason,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    event_id: row.eventId,
    event: row.event,
    payload: row.payload,
    status_code: row.statusCode,
    attempt: row.attempt,
    error: row.error,
    duration_ms: row.durationMs,
    created_at: row.createdAt.toISOString(),
  };
}
