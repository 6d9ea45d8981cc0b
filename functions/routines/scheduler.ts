import { and, eq, lte, sql } from 'drizzle-orm';
import { routineFires, routines } from '../../schema/routines.js';
import { BACKGROUND_CHUNK, yieldToEventLoop } from '../../platform/scheduler/yield.js';
import type { Services } from '../services.js';
import { latestDueOccurrence, nextOccurrence } from './cron.js';
import { ROUTINE_FIRE_KIND } from './fire.js';

/** Due routines one tick takes; the rest wait for the next tick (they stay due). */
const BATCH = 1_000;

/**
 * Fire what is due, from the scheduled tick (functions/scheduled-tick.ts). In a handful of
 * statements whatever the number due: read the due routines (one indexed read), claim one fire per
 * routine for its latest scheduled time at or before the tick (one insert; the (routine, scheduled
 * time) key makes a racing scheduler or a repeated tick claim nothing), move every due routine's
 * next_run_at past the tick (one update), and start one `routine_fire` run per claimed fire (two
 * inserts and one batched publish). Each fire's run then starts its agent run on its own.
 *
 * After downtime only the latest missed time fires (no burst of catch-up runs); the earlier ones
 * are skipped, and next_run_at moves to the first time after the tick.
 *
 * The claims go in chunks of BACKGROUND_CHUNK routines, a transaction each, the event loop turning
 * between two: a thousand due routines do not hold the API's requests for the whole batch.
 */
export async function fireDueRoutines(services: Services, at: Date): Promise<{ due: number; claimed: number }> {
  const due = await services.db
    .select({
      id: routines.id,
      workspaceId: routines.workspaceId,
      cron: routines.cron,
      timezone: routines.timezone,
      nextRunAt: routines.nextRunAt,
    })
    .from(routines)
    .where(and(eq(routines.enabled, true), lte(routines.nextRunAt, at)))
    .orderBy(routines.nextRunAt)
    .limit(BATCH);
  if (due.length === 0) return { due: 0, claimed: 0 };
  let claimed = 0;
  for (let i = 0; i < due.length; i += BACKGROUND_CHUNK) {
    if (i > 0) await yieldToEventLoop();
    claimed += await claimFires(services, at, due.slice(i, i + BACKGROUND_CHUNK));
  }
  return { due: due.length, claimed };
}

interface DueRoutine {
  id: string;
  workspaceId: string;
  cron: string;
  timezone: string;
  nextRunAt: Date | null;
}

/** One chunk of due routines: claim their fires, move their next_run_at, start a run per claim (one transaction). */
function claimFires(services: Services, at: Date, due: readonly DueRoutine[]): Promise<number> {
  const plan = due.map((r) => ({
    ...r,
    scheduledFor: latestDueOccurrence(r.cron, r.timezone, r.nextRunAt ?? at, at),
    next: nextOccurrence(r.cron, r.timezone, at),
  }));
  return services.engine.transaction(async ({ tx, startRuns }) => {
    const won = await tx
      .insert(routineFires)
      .values(
        plan.map((p) => ({
          routineId: p.id,
          scheduledFor: p.scheduledFor,
          workspaceId: p.workspaceId,
          trigger: 'schedule' as const,
        })),
      )
      .onConflictDoNothing()
      .returning({ routineId: routineFires.routineId, scheduledFor: routineFires.scheduledFor });
    const rows = sql.join(
      plan.map((p) => sql`(${p.id}::uuid, ${p.next.toISOString()}::timestamptz)`),
      sql`, `,
    );
    await tx.execute(
      sql`update ${routines} set next_run_at = v.next from (values ${rows}) as v(id, next) where ${routines.id} = v.id and ${routines.nextRunAt} <= ${at.toISOString()}::timestamptz`,
    );
    const byId = new Map(plan.map((p) => [p.id, p]));
    await startRuns(
      won.map((w) => ({
        workspaceId: byId.get(w.routineId)!.workspaceId,
        kind: ROUTINE_FIRE_KIND,
        input: { routine_id: w.routineId, scheduled_for: w.scheduledFor.toISOString() },
      })),
    );
    return won.length;
  });
}
