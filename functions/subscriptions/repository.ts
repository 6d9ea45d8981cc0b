import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { type Page, pageWithTotal } from '../../platform/db/paging.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { subscriptionFires, subscriptions, type SubscriptionFireStatus } from '../../schema/subscriptions.js';
import { isSourceKind, type SourceKind } from './kinds.js';
import { EventSnapshotSchema, effectiveRunConfig, type FireView, type SubscriptionView } from './schemas.js';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type FireRow = typeof subscriptionFires.$inferSelect;

export async function getSubscriptionOrThrow(db: Queryable, workspaceId: string, id: string): Promise<SubscriptionRow> {
  const [row] = await db
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.workspaceId, workspaceId), eq(subscriptions.id, id)));
  if (!row) throw new ApiError('not_found', 'No such subscription in this workspace.', { subscription_id: id });
  return row;
}

export async function listSubscriptions(
  db: Queryable,
  workspaceId: string,
  filters: { sourceKind?: SourceKind | undefined; enabled?: boolean | undefined },
  page: Page,
) {
  const where: SQL | undefined = and(
    eq(subscriptions.workspaceId, workspaceId),
    filters.sourceKind === undefined ? undefined : eq(subscriptions.sourceKind, filters.sourceKind),
    filters.enabled === undefined ? undefined : eq(subscriptions.enabled, filters.enabled),
  );
  return pageWithTotal(
    db.select().from(subscriptions).where(where).orderBy(desc(subscriptions.createdAt), desc(subscriptions.id)),
    db.select({ n: count() }).from(subscriptions).where(where),
    page,
  );
}

/** A subscription's ledger, latest due first. */
export async function listFires(
  db: Queryable,
  subscriptionId: string,
  status: SubscriptionFireStatus | undefined,
  page: Page,
) {
  const where = and(
    eq(subscriptionFires.subscriptionId, subscriptionId),
    status === undefined ? undefined : eq(subscriptionFires.status, status),
  );
  return pageWithTotal(
    db.select().from(subscriptionFires).where(where).orderBy(desc(subscriptionFires.dueAt), desc(subscriptionFires.id)),
    db.select({ n: count() }).from(subscriptionFires).where(where),
    page,
  );
}

export function renderSubscription(row: SubscriptionRow): SubscriptionView {
  if (!isSourceKind(row.sourceKind)) throw new Error(`subscription ${row.id} has an unknown kind ${row.sourceKind}`);
  return {
    id: row.id,
    name: row.name,
    source_kind: row.sourceKind,
    prompt: row.prompt,
    config: row.config,
    agent: row.agent,
    run_config: effectiveRunConfig(row.runConfig),
    enabled: row.enabled,
    source: {
      next_read_at: row.enabled ? (row.nextPollAt?.toISOString() ?? null) : null,
      last_read_at: row.lastPolledAt?.toISOString() ?? null,
      last_error: row.lastPollError,
    },
    last_fire: row.lastFiredAt
      ? {
          fired_at: row.lastFiredAt.toISOString(),
          chat_id: row.lastChatId,
          run_id: row.lastRunId,
          session_id: row.lastRunId,
        }
      : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function renderFire(row: FireRow): FireView {
  return {
    id: row.id,
    subscription_id: row.subscriptionId,
    status: row.status,
    skip_reason: row.status === 'skipped' ? row.reason : null,
    cancel_reason: row.status === 'canceled' ? row.reason : null,
    error: row.status === 'failed' ? row.reason : null,
    event_id: row.eventId,
    event_start: row.eventStart.toISOString(),
    lead_minutes: row.leadMinutes,
    due_at: row.dueAt.toISOString(),
    event: EventSnapshotSchema.parse(row.event),
    chat_id: row.chatId,
    run_id: row.runId,
    settled_at: row.settledAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}
