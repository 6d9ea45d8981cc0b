import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { type Page, pageWithTotal } from '../../platform/db/paging.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { routineFires, routines } from '../../schema/routines.js';
import { effectiveConfig, type RoutineView } from './schemas.js';

export type RoutineRow = typeof routines.$inferSelect;

export async function getRoutineOrThrow(db: Queryable, workspaceId: string, id: string): Promise<RoutineRow> {
  const [row] = await db
    .select()
    .from(routines)
    .where(and(eq(routines.workspaceId, workspaceId), eq(routines.id, id)));
  if (!row) throw new ApiError('not_found', 'No such routine in this workspace.', { routine_id: id });
  return row;
}

export async function listRoutines(db: Queryable, workspaceId: string, enabled: boolean | undefined, page: Page) {
  const where: SQL | undefined = and(
    eq(routines.workspaceId, workspaceId),
    enabled === undefined ? undefined : eq(routines.enabled, enabled),
  );
  return pageWithTotal(
    db.select().from(routines).where(where).orderBy(desc(routines.createdAt), desc(routines.id)),
    db.select({ n: count() }).from(routines).where(where),
    page,
  );
}

export function renderRoutine(row: RoutineRow): RoutineView {
  const config = effectiveConfig(row.config);
  return {
    id: row.id,
    name: row.name,
    prompt: row.prompt,
    cron: row.cron,
    timezone: row.timezone,
    agent: row.agent,
    config: { ...config, agents: config.agents ?? null },
    enabled: row.enabled,
    next_run_at: row.enabled ? (row.nextRunAt?.toISOString() ?? null) : null,
    last_fire: row.lastFiredFor
      ? {
          scheduled_for: row.lastFiredFor.toISOString(),
          chat_id: row.lastChatId,
          run_id: row.lastRunId,
          session_id: row.lastRunId,
        }
      : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Fires of a routine, newest first (its chats and runs). */
export async function firesOf(db: Queryable, routineId: string, limit = 20) {
  return db
    .select()
    .from(routineFires)
    .where(eq(routineFires.routineId, routineId))
    .orderBy(desc(routineFires.scheduledFor))
    .limit(limit);
}
