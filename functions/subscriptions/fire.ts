import { and, eq, gte, sql } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { subscriptionFires, subscriptions } from '../../schema/subscriptions.js';
import type { RunCaller } from '../../schema/runs.js';
import { startAgentRun, type AgentRunHandles } from '../agents/index.js';
import type { Caller } from '../identity/caller.js';
import { resolveRunCaller } from '../identity/run-caller.js';
import type { Services } from '../services.js';
import { accountOf, turnFor } from './calendar-event.js';
import type { FireRow, SubscriptionRow } from './repository.js';
import { EventSnapshotSchema, effectiveRunConfig, type EventSnapshot } from './schemas.js';

export const SUBSCRIPTION_FIRE_KIND = 'subscription_fire';

/**
 * Fires that start runs, per workspace per rolling hour: a calendar with hundreds of imminent
 * events cannot start hundreds of agent runs. Past it a fire is `skipped` with `rate_limited`.
 */
export const FIRES_PER_WORKSPACE_PER_HOUR = 30;

/** The fire was settled meanwhile (a racing delivery, a read that canceled it): nothing to do. */
class AlreadySettled extends Error {}
/** The workspace's hourly fire budget is spent. */
class RateCapped extends Error {}

type Outcome = { outcome: string; run_id?: string; chat_id?: string };

/** Move a still-pending fire to a final status without a run. */
async function settle(
  services: Services,
  fire: FireRow,
  status: 'skipped' | 'failed',
  reason: string,
): Promise<Outcome> {
  await services.db
    .update(subscriptionFires)
    .set({ status, reason, settledAt: services.clock.now() })
    .where(and(eq(subscriptionFires.id, fire.id), eq(subscriptionFires.status, 'pending')));
  return { outcome: `${status}:${reason}` };
}

/**
 * Start the headless chat run of one fire (or of a test fire: `fire` null): the subscription's
 * prompt with the event in the turn, its agent and run config, no pauses (no one is there to
 * answer), the chat marked with the subscription. For a ledger fire, the hourly cap is counted and
 * the fire moved to `fired` with its run inside the transaction that starts the run, under a
 * per-workspace lock, so neither a racing delivery nor a racing fire of the same workspace can
 * start a second run or pass the cap.
 */
async function startFireRun(
  services: Services,
  sub: SubscriptionRow,
  caller: Caller,
  event: EventSnapshot,
  fire: FireRow | null,
): Promise<AgentRunHandles> {
  const runConfig = effectiveRunConfig(sub.runConfig);
  const now = services.clock.now();
  return startAgentRun(services, caller, {
    input: turnFor(sub.prompt, { name: sub.name, leadMinutes: fire?.leadMinutes ?? leadOf(sub) }, event, now, !fire),
    name: `${sub.name} - ${event.title}`,
    agent: sub.agent ?? undefined,
    onQuestion: 'auto',
    pauses: { question: false, approval: false, budget: false },
    depth: runConfig.depth,
    trigger: 'subscription',
    subscriptionId: sub.id,
    subscription: { id: sub.id, write_outputs: runConfig.write_outputs, actions_allowed: runConfig.actions_allowed },
    prepare: async ({ tx, now: at }, ids) => {
      if (!fire) return;
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`subscription_fires:${sub.workspaceId}`}))`);
      const [fired] = await tx
        .select({ n: sql<number>`count(*)::int` })
        .from(subscriptionFires)
        .where(
          and(
            eq(subscriptionFires.workspaceId, sub.workspaceId),
            eq(subscriptionFires.status, 'fired'),
            gte(subscriptionFires.settledAt, new Date(at.getTime() - 3_600_000)),
          ),
        );
      if ((fired?.n ?? 0) >= FIRES_PER_WORKSPACE_PER_HOUR) throw new RateCapped();
      const [claimed] = await tx
        .update(subscriptionFires)
        .set({ status: 'fired', runId: ids.runId, chatId: ids.chatId, settledAt: at, event })
        .where(and(eq(subscriptionFires.id, fire.id), eq(subscriptionFires.status, 'pending')))
        .returning({ id: subscriptionFires.id });
      if (!claimed) throw new AlreadySettled();
      await tx
        .update(subscriptions)
        .set({ lastFiredAt: at, lastChatId: ids.chatId, lastRunId: ids.runId })
        .where(eq(subscriptions.id, sub.id));
    },
  });
}

const namesUnknownAgent = (error: ApiError): boolean =>
  Array.isArray(error.details?.fields) &&
  error.details.fields.some((f: unknown) => (f as { code?: unknown }).code === 'unknown_agent');

const leadOf = (sub: SubscriptionRow): number => Number(sub.config.lead_minutes ?? 0);

/**
 * The stage of a claimed fire (subscriptions/pipelines.ts). A fire that is no longer pending is
 * done; a paused subscription skips it (`subscription_disabled`), a meeting that has begun skips it
 * (`meeting_started`: never after the start), a spent hourly budget skips it (`rate_limited`), an
 * agent pin that no longer resolves skips it (`agent_unresolvable`), a creator who lost access
 * fails it; otherwise the run starts as the subscription's creator, re-checked now. Anything else
 * is retried by the engine, and the last attempt fails the fire with the reason.
 */
export async function runClaimedFire(
  services: Services,
  fireId: string,
  attempt: { current: number; max: number },
): Promise<Outcome> {
  const [fire] = await services.db.select().from(subscriptionFires).where(eq(subscriptionFires.id, fireId));
  if (fire?.status !== 'pending') return { outcome: 'already_settled' };
  const [sub] = await services.db.select().from(subscriptions).where(eq(subscriptions.id, fire.subscriptionId));
  if (!sub) return { outcome: 'subscription_deleted' };
  if (!sub.enabled) return settle(services, fire, 'skipped', 'subscription_disabled');
  if (services.clock.now().getTime() >= fire.eventStart.getTime())
    return settle(services, fire, 'skipped', 'meeting_started');
  const snapshot = EventSnapshotSchema.parse(fire.event);
  try {
    const caller = await resolveRunCaller(services.db, sub.workspaceId, sub.caller as unknown as RunCaller);
    const event = { ...snapshot, account: await accountOf(services.db, sub.workspaceId, snapshot) };
    const handles = await startFireRun(services, sub, caller, event, fire);
    return { outcome: 'fired', run_id: handles.run_id, chat_id: handles.chat_id };
  } catch (error) {
    if (error instanceof AlreadySettled) return { outcome: 'already_settled' };
    if (error instanceof RateCapped) return settle(services, fire, 'skipped', 'rate_limited');
    if (error instanceof ApiError && error.code === 'invalid_argument' && namesUnknownAgent(error))
      return settle(services, fire, 'skipped', 'agent_unresolvable');
    if (error instanceof ApiError && error.code === 'forbidden')
      return settle(services, fire, 'failed', `forbidden: ${error.message}`);
    if (attempt.current < attempt.max) throw error;
    return settle(services, fire, 'failed', error instanceof Error ? error.message : String(error));
  }
}

/**
 * `POST /subscriptions/{id}/test-fire`: one fire now with a labeled synthetic event (starting one
 * lead time from now, with the caller as organizer and attendee), as the member asking. A preview:
 * nothing is written to the ledger and the hourly cap does not count it; the chat is the
 * subscription's like any fire's.
 */
export async function testFire(services: Services, caller: Caller, sub: SubscriptionRow): Promise<AgentRunHandles> {
  const now = services.clock.now();
  const event: EventSnapshot = {
    id: 'test-fire',
    title: '[Test fire] Sample meeting',
    start: new Date(now.getTime() + leadOf(sub) * 60_000).toISOString(),
    end: null,
    calendar_id: String(sub.config.calendar_id ?? 'primary'),
    organizer: caller.email,
    attendees: [{ email: caller.email, name: null }],
    account: null,
  };
  return startFireRun(services, sub, caller, event, null);
}
