import { and, eq, inArray, sql } from 'drizzle-orm';
import { newId } from '../../platform/ids.js';
import { connections } from '../../schema/connections.js';
import { subscriptionFires, subscriptions } from '../../schema/subscriptions.js';
import { openCalendarReader, ProviderError, type CalendarEvent } from '../connections/index.js';
import type { Services } from '../services.js';
import { matchesFilters, snapshotOf, startOf } from './calendar-event.js';
import { CalendarEventUpcomingConfigSchema } from './kinds.js';

export const SUBSCRIPTION_POLL_KIND = 'subscription_poll';
/** How often a subscription's calendar is read. */
export const POLL_INTERVAL_MS = 5 * 60_000;
/** How far past the lead window a read looks, so a fire is planned well before it is due. */
export const LOOKAHEAD_MS = 24 * 3_600_000;

/** The source cannot be read for a reason the member must fix (shown as the subscription's `source.last_error`). */
class SourceProblem extends Error {}

type Cancel = { id: string; reason: 'event_canceled' | 'event_rescheduled' | 'event_no_longer_matches' };

/**
 * Read a calendar subscription's source once and bring its ledger in line with it: a `pending`
 * fire for each timed, matching event that has not begun (due at max(now, start − lead)), and the
 * pending fires of events that moved (`event_rescheduled`; the new start gets its own fire), were
 * cancelled or deleted (`event_canceled`) or no longer pass the filters canceled. A pending fire
 * whose event left the window read is looked up by id, so a meeting moved to next month is told
 * from one that was deleted. The (subscription, event, start, lead) key makes a repeated read plan
 * nothing twice; a canceled occurrence that comes back (moved back to its first start) is pending again,
 * a fired one never fires again.
 */
export async function pollSubscription(
  services: Services,
  subscriptionId: string,
): Promise<{ outcome: string; planned?: number; canceled?: number }> {
  const [sub] = await services.db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId));
  if (!sub) return { outcome: 'subscription_deleted' };
  if (!sub.enabled) return { outcome: 'subscription_disabled' };
  const config = CalendarEventUpcomingConfigSchema.parse(sub.config);
  const now = services.clock.now();
  const leadMs = config.lead_minutes * 60_000;
  const pending = await services.db
    .select({ id: subscriptionFires.id, eventId: subscriptionFires.eventId, eventStart: subscriptionFires.eventStart })
    .from(subscriptionFires)
    .where(
      and(
        eq(subscriptionFires.subscriptionId, sub.id),
        eq(subscriptionFires.status, 'pending'),
        eq(subscriptionFires.leadMinutes, config.lead_minutes),
      ),
    );

  let events: CalendarEvent[];
  const current = new Map<string, CalendarEvent | null>();
  try {
    const [connection] = await services.db
      .select()
      .from(connections)
      .where(and(eq(connections.workspaceId, sub.workspaceId), eq(connections.id, config.connection_id)));
    if (connection?.connectorType !== 'google_calendar')
      throw new SourceProblem('The calendar connection no longer exists in this workspace.');
    if (connection.status !== 'connected')
      throw new SourceProblem(`The calendar connection is ${connection.status}: reconnect it.`);
    const reader = await openCalendarReader(services, connection);
    events = await reader.window(config.calendar_id, now, new Date(now.getTime() + leadMs + LOOKAHEAD_MS));
    for (const e of events) current.set(e.id, e);
    for (const eventId of new Set(pending.map((f) => f.eventId))) {
      if (!current.has(eventId)) current.set(eventId, await reader.event(config.calendar_id, eventId));
    }
  } catch (error) {
    if (!(error instanceof SourceProblem) && !(error instanceof ProviderError)) throw error;
    await services.db
      .update(subscriptions)
      .set({ lastPolledAt: now, lastPollError: error.message })
      .where(eq(subscriptions.id, sub.id));
    return { outcome: 'source_error' };
  }

  const plan = events.flatMap((event) => {
    const start = startOf(event);
    if (event.status === 'cancelled' || !start || start.getTime() <= now.getTime()) return [];
    if (!matchesFilters(event, config)) return [];
    return [
      {
        id: newId(),
        subscriptionId: sub.id,
        workspaceId: sub.workspaceId,
        eventId: event.id,
        eventStart: start,
        leadMinutes: config.lead_minutes,
        dueAt: new Date(Math.max(now.getTime(), start.getTime() - leadMs)),
        status: 'pending' as const,
        event: snapshotOf(event, config.calendar_id, start),
      },
    ];
  });
  const cancels: Cancel[] = pending.flatMap((fire): Cancel[] => {
    const event = current.get(fire.eventId) ?? null;
    if (!event || event.status === 'cancelled') return [{ id: fire.id, reason: 'event_canceled' }];
    if (startOf(event)?.getTime() !== fire.eventStart.getTime()) return [{ id: fire.id, reason: 'event_rescheduled' }];
    if (!matchesFilters(event, config)) return [{ id: fire.id, reason: 'event_no_longer_matches' }];
    return [];
  });

  await services.db.transaction(async (tx) => {
    for (const reason of ['event_canceled', 'event_rescheduled', 'event_no_longer_matches'] as const) {
      const ids = cancels.filter((c) => c.reason === reason).map((c) => c.id);
      if (ids.length === 0) continue;
      await tx
        .update(subscriptionFires)
        .set({ status: 'canceled', reason, settledAt: now })
        .where(and(inArray(subscriptionFires.id, ids), eq(subscriptionFires.status, 'pending')));
    }
    if (plan.length > 0)
      await tx
        .insert(subscriptionFires)
        .values(plan)
        .onConflictDoUpdate({
          target: [
            subscriptionFires.subscriptionId,
            subscriptionFires.eventId,
            subscriptionFires.eventStart,
            subscriptionFires.leadMinutes,
          ],
          set: {
            status: 'pending',
            reason: null,
            settledAt: null,
            claimedAt: null,
            dueAt: sql`excluded.due_at`,
            event: sql`excluded.event`,
          },
          setWhere: sql`${subscriptionFires.status} = 'canceled'`,
        });
    await tx.update(subscriptions).set({ lastPolledAt: now, lastPollError: null }).where(eq(subscriptions.id, sub.id));
  });
  return { outcome: 'read', planned: plan.length, canceled: cancels.length };
}
