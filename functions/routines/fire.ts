import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import { ApiError } from '../../platform/errors.js';
import { routineFires, routines } from '../../schema/routines.js';
import type { RunCaller } from '../../schema/runs.js';
import { startAgentRun, type AgentRunHandles } from '../agents/index.js';
import type { Caller } from '../identity/caller.js';
import { resolveRunCaller } from '../identity/run-caller.js';
import type { Services } from '../services.js';
import { localDate } from './cron.js';
import { getRoutineOrThrow, type RoutineRow } from './repository.js';
import { effectiveConfig } from './schemas.js';

export const ROUTINE_FIRE_KIND = 'routine_fire';

/** A scheduled fire's run input (routines/fire-pipeline.ts): which routine, for which scheduled time. */
export const RoutineFireInputSchema = z.object({ routine_id: z.uuid(), scheduled_for: z.iso.datetime() });
export type RoutineFireInput = z.infer<typeof RoutineFireInputSchema>;

/** The fire was already started (a duplicate delivery, a racing scheduler): nothing to do. */
class AlreadyFired extends Error {}

/**
 * Fire a routine for one scheduled time: a chat run with `trigger: "routine"`, named
 * "<routine name> - <local date>", with no pauses (no one is there to answer), the routine's depth,
 * agent and roster, and its write permissions. Claiming the fire and starting the run commit
 * together, so a scheduled time fires exactly once: `claimed` says the tick already inserted the
 * fire row (then this fills in its run); otherwise the row is inserted here (run-now).
 */
export async function fireRoutine(
  services: Services,
  routine: RoutineRow,
  caller: Caller,
  fire: { scheduledFor: Date; trigger: 'schedule' | 'run_now' },
): Promise<AgentRunHandles | null> {
  const config = effectiveConfig(routine.config);
  const single = typeof config.agents === 'string' && config.agents !== 'all' ? config.agents : null;
  const roster = Array.isArray(config.agents) ? config.agents : null;
  try {
    return await startAgentRun(services, caller, {
      input: routine.prompt,
      name: `${routine.name} - ${localDate(fire.scheduledFor, routine.timezone)}`,
      agent: routine.agent ?? single ?? undefined,
      onQuestion: 'auto',
      pauses: { question: false, approval: false, budget: false },
      depth: config.depth,
      trigger: 'routine',
      routineId: routine.id,
      delegateRoster: roster,
      mayDelegate: single === null && config.depth !== 'quick',
      routine: { id: routine.id, write_outputs: config.write_outputs, actions_allowed: config.actions_allowed },
      prepare: async ({ tx, now }, ids) => {
        if (fire.trigger === 'run_now') {
          const [inserted] = await tx
            .insert(routineFires)
            .values({
              routineId: routine.id,
              scheduledFor: fire.scheduledFor,
              workspaceId: routine.workspaceId,
              trigger: 'run_now',
              runId: ids.runId,
              chatId: ids.chatId,
            })
            .onConflictDoNothing()
            .returning({ id: routineFires.routineId });
          if (!inserted)
            throw new ApiError('conflict', 'This routine was fired for this instant already; try again.', {
              routine_id: routine.id,
            });
        } else {
          const [claimed] = await tx
            .update(routineFires)
            .set({ runId: ids.runId, chatId: ids.chatId })
            .where(
              and(
                eq(routineFires.routineId, routine.id),
                eq(routineFires.scheduledFor, fire.scheduledFor),
                isNull(routineFires.runId),
              ),
            )
            .returning({ id: routineFires.routineId });
          if (!claimed) throw new AlreadyFired();
        }
        await tx
          .update(routines)
          .set({ lastFiredFor: fire.scheduledFor, lastChatId: ids.chatId, lastRunId: ids.runId, updatedAt: now })
          .where(eq(routines.id, routine.id));
      },
    });
  } catch (error) {
    if (error instanceof AlreadyFired) return null;
    throw error;
  }
}

/**
 * The stage of a scheduled fire (routines/fire-pipeline.ts): the tick claimed the fire; this starts
 * its agent run as the routine's owner, re-checked now (a removed owner fails the fire `forbidden`).
 * A deleted or disabled routine fires nothing.
 */
export async function runScheduledFire(
  services: Services,
  input: RoutineFireInput,
): Promise<{ outcome: string; run_id?: string; chat_id?: string }> {
  const [routine] = await services.db.select().from(routines).where(eq(routines.id, input.routine_id));
  if (!routine) return { outcome: 'routine_deleted' };
  if (!routine.enabled) return { outcome: 'routine_disabled' };
  const caller = await resolveRunCaller(services.db, routine.workspaceId, routine.caller as unknown as RunCaller);
  const handles = await fireRoutine(services, routine, caller, {
    scheduledFor: new Date(input.scheduled_for),
    trigger: 'schedule',
  });
  return handles
    ? { outcome: 'fired', run_id: handles.run_id, chat_id: handles.chat_id }
    : { outcome: 'already_fired' };
}

/** `POST /routines/{id}/run-now`: a fire at once, as the member asking. */
export async function fireNow(services: Services, caller: Caller, routineId: string): Promise<AgentRunHandles> {
  const routine = await getRoutineOrThrow(services.db, caller.workspaceId, routineId);
  const handles = await fireRoutine(services, routine, caller, {
    scheduledFor: services.clock.now(),
    trigger: 'run_now',
  });
  if (!handles)
    throw new ApiError('conflict', 'This routine was fired for this instant already; try again.', {
      routine_id: routineId,
    });
  return handles;
}
