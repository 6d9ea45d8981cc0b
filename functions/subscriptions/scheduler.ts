import { sql } from 'drizzle-orm';
import { queryRows } from '../../platform/db/port.js';
import { subscriptionFires, subscriptions } from '../../schema/subscriptions.js';
import { BACKGROUND_CHUNK, yieldToEventLoop } from '../../platform/scheduler/yield.js';
import type { Services } from '../services.js';
import { SUBSCRIPTION_FIRE_KIND } from './fire.js';
import { POLL_INTERVAL_MS, SUBSCRIPTION_POLL_KIND } from './poll.js';

/** Subscriptions one tick starts reading, and due fires one tick claims; the rest wait for the next tick. */
const BATCH = 500;
/** A claimed fire still pending this long after its claim lost its worker: it is failed (`claim_expired`). */
export const CLAIM_TIMEOUT_MS = 30 * 60_000;

/**
 * The subscriptions' step of the scheduled tick (functions/scheduled-tick.ts): (1) the enabled
 * subscriptions whose next read is due get their next read time moved one interval on and a
 * `subscription_poll` run each; (2) the pending fires that are due get `claimed_at` and a
 * `subscription_fire` run each; (3) fires claimed long ago and still pending are failed. Each claim
 * is an UPDATE of rows still unclaimed, with FOR UPDATE SKIP LOCKED, in the transaction that starts
 * the runs: a racing scheduler or a repeated tick claims nothing twice, and the fire run itself
 * settles the row only from `pending`.
 *
 * One read first: with nothing due (most ticks) no transaction is opened. What is due is claimed in
 * chunks of BACKGROUND_CHUNK, a transaction each with the event loop turning between two, up to
 * BATCH of each per tick.
 */
export async function tickSubscriptions(
  services: Services,
  at: Date,
): Promise<{ polls: number; claimed: number; reaped: number }> {
  const done = { polls: 0, claimed: 0, reaped: 0 };
  if (!(await anythingDue(services, at))) return done;
  for (let chunk = 0; chunk < BATCH / BACKGROUND_CHUNK; chunk++) {
    if (chunk > 0) await yieldToEventLoop();
    const step = await claimChunk(services, at, chunk === 0);
    done.polls += step.polls;
    done.claimed += step.claimed;
    done.reaped += step.reaped;
    if (step.polls < BACKGROUND_CHUNK && step.claimed < BACKGROUND_CHUNK) break;
  }
  return done;
}

/** Whether a read, a fire or a reap is due: one indexed read, no lock. */
async function anythingDue(services: Services, at: Date): Promise<boolean> {
  const iso = at.toISOString();
  const [row] = await queryRows<{ due: boolean }>(
    services.db,
    sql`select exists (select 1 from ${subscriptions} where enabled and next_poll_at <= ${iso}::timestamptz)
          or exists (select 1 from ${subscriptionFires} where status = 'pending' and claimed_at is null and due_at <= ${iso}::timestamptz)
          or exists (select 1 from ${subscriptionFires} where status = 'pending'
                       and claimed_at < ${new Date(at.getTime() - CLAIM_TIMEOUT_MS).toISOString()}::timestamptz) as due`,
  );
  return row?.due === true;
}

/** One chunk: claim up to BACKGROUND_CHUNK due reads and fires (and reap, once a tick) in one transaction. */
function claimChunk(
  services: Services,
  at: Date,
  reap: boolean,
): Promise<{ polls: number; claimed: number; reaped: number }> {
  const iso = at.toISOString();
  return services.engine.transaction(async ({ tx, startRuns }) => {
    const polls = await queryRows<{ id: string; workspace_id: string }>(
      tx,
      sql`
      update ${subscriptions} set next_poll_at = ${new Date(at.getTime() + POLL_INTERVAL_MS).toISOString()}::timestamptz
      where id in (
        select id from ${subscriptions}
        where enabled and next_poll_at <= ${iso}::timestamptz
        order by next_poll_at limit ${BACKGROUND_CHUNK} for update skip locked
      ) and next_poll_at <= ${iso}::timestamptz
      returning id, workspace_id`,
    );
    const claimed = await queryRows<{ id: string; workspace_id: string }>(
      tx,
      sql`
      update ${subscriptionFires} set claimed_at = ${iso}::timestamptz
      where id in (
        select id from ${subscriptionFires}
        where status = 'pending' and claimed_at is null and due_at <= ${iso}::timestamptz
        order by due_at limit ${BACKGROUND_CHUNK} for update skip locked
      ) and claimed_at is null
      returning id, workspace_id`,
    );
    const reaped = reap
      ? await queryRows<{ id: string }>(
          tx,
          sql`
      update ${subscriptionFires} set status = 'failed', reason = 'claim_expired', settled_at = ${iso}::timestamptz
      where status = 'pending' and claimed_at < ${new Date(at.getTime() - CLAIM_TIMEOUT_MS).toISOString()}::timestamptz
      returning id`,
        )
      : [];
    await startRuns([
      ...polls.map((r) => ({
        workspaceId: r.workspace_id,
        kind: SUBSCRIPTION_POLL_KIND,
        input: { subscription_id: r.id },
      })),
      ...claimed.map((r) => ({ workspaceId: r.workspace_id, kind: SUBSCRIPTION_FIRE_KIND, input: { fire_id: r.id } })),
    ]);
    return { polls: polls.length, claimed: claimed.length, reaped: reaped.length };
  });
}
