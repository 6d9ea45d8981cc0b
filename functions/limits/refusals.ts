import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { rateLimitRefusals } from '../../schema/index.js';
import type { Database } from '../../platform/db/port.js';
import type { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';

/** How many recent 429s a workspace keeps: enough for the console's usage page, bounded whatever the traffic. */
export const RECENT_REFUSALS_KEPT = 100;

export interface RefusalRecord {
  workspaceId: string;
  userId: string | null;
  operation: string;
  error: ApiError;
  at: Date;
}

/**
 * Record a 429 answered to a workspace's caller (a per-user operation limit, a monthly quota, the cap
 * on working agent runs), then drop what falls beyond the newest RECENT_REFUSALS_KEPT. Two small
 * statements on the refusal path only, which is already the slow path of a caller over their budget.
 * The global per-address limit answers before any workspace is known and is not recorded here.
 */
export async function recordRefusal(db: Database, record: RefusalRecord): Promise<void> {
  const details = (record.error.details ?? {}) as Record<string, unknown>;
  await db.insert(rateLimitRefusals).values({
    id: newId(),
    workspaceId: record.workspaceId,
    userId: record.userId,
    operation: record.operation,
    code: record.error.code,
    family: typeof details.family === 'string' ? details.family : null,
    limit: typeof details.limit === 'number' ? details.limit : null,
    createdAt: record.at,
  });
  await db
    .delete(rateLimitRefusals)
    .where(
      and(
        eq(rateLimitRefusals.workspaceId, record.workspaceId),
        lt(
          rateLimitRefusals.createdAt,
          sql`(select created_at from ${rateLimitRefusals} where workspace_id = ${record.workspaceId} order by created_at desc offset ${RECENT_REFUSALS_KEPT - 1} limit 1)`,
        ),
      ),
    );
}

/** The workspace's most recent 429s, newest first. */
export async function recentRefusals(db: Database, workspaceId: string, limit = 50) {
  return db
    .select()
    .from(rateLimitRefusals)
    .where(eq(rateLimitRefusals.workspaceId, workspaceId))
    .orderBy(desc(rateLimitRefusals.createdAt), desc(rateLimitRefusals.id))
    .limit(limit);
}
