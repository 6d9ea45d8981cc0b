import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { connections, runs } from '../../schema/index.js';
import { type Page, type PageOfRows, pageWithTotal } from '../../platform/db/paging.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';

/** Reading connections and their sync runs, always within one workspace. */
export type ConnectionRow = typeof connections.$inferSelect;
export type SyncRunRow = typeof runs.$inferSelect;

export const CONNECTION_SYNC_KIND = 'connection_sync';

export async function getConnection(db: Queryable, workspaceId: string, id: string): Promise<ConnectionRow> {
  const row = isUuid(id)
    ? (
        await db
          .select()
          .from(connections)
          .where(and(eq(connections.id, id), eq(connections.workspaceId, workspaceId)))
      )[0]
    : undefined;
  if (!row) throw new ApiError('not_found', `No connection ${id} in this workspace.`, { id });
  return row;
}

export async function listConnections(
  db: Queryable,
  workspaceId: string,
  page: Page,
): Promise<PageOfRows<ConnectionRow>> {
  const where = eq(connections.workspaceId, workspaceId);
  return pageWithTotal(
    db.select().from(connections).where(where).orderBy(desc(connections.createdAt), desc(connections.id)),
    db.select({ n: sql<number>`count(*)::int` }).from(connections).where(where),
    page,
  );
}

export async function syncRuns(
  db: Queryable,
  workspaceId: string,
  connectionId: string,
  page: Page,
): Promise<PageOfRows<SyncRunRow>> {
  const where = and(
    eq(runs.workspaceId, workspaceId),
    eq(runs.kind, CONNECTION_SYNC_KIND),
    sql`(${runs.input}->>'connection_id') = ${connectionId}`,
  );
  return pageWithTotal(
    db.select().from(runs).where(where).orderBy(desc(runs.createdAt), desc(runs.id)),
    db.select({ n: sql<number>`count(*)::int` }).from(runs).where(where),
    page,
  );
}

export async function latestRun(db: Queryable, workspaceId: string, connectionId: string): Promise<SyncRunRow | null> {
  return (await syncRuns(db, workspaceId, connectionId, { limit: 1, offset: 0 })).rows[0] ?? null;
}

/** The newest sync run of each connection, in one read (a list page's `last_run`). */
export async function latestRuns(
  db: Queryable,
  workspaceId: string,
  connectionIds: readonly string[],
): Promise<Map<string, SyncRunRow>> {
  if (connectionIds.length === 0) return new Map();
  const rows = await db
    .selectDistinctOn([sql`(${runs.input}->>'connection_id')`])
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, workspaceId),
        eq(runs.kind, CONNECTION_SYNC_KIND),
        inArray(sql`(${runs.input}->>'connection_id')`, [...connectionIds]),
      ),
    )
    .orderBy(sql`(${runs.input}->>'connection_id')`, desc(runs.createdAt), desc(runs.id));
  return new Map(rows.map((r) => [String((r.input as { connection_id?: unknown }).connection_id), r]));
}

/** The live connection of a type in the workspace (newest first), if any: single-instance sources have at most one. */
export async function connectionOfType(
  db: Queryable,
  workspaceId: string,
  connectorType: string,
): Promise<ConnectionRow | undefined> {
  const [row] = await db
    .select()
    .from(connections)
    .where(and(eq(connections.workspaceId, workspaceId), eq(connections.connectorType, connectorType)))
    .orderBy(sql`${connections.status} = 'disconnected'`, desc(connections.createdAt))
    .limit(1);
  return row;
}

/** The connection of one provider account (a handle source names its account by a stable id), live ones first. */
export async function connectionOfAccount(
  db: Queryable,
  workspaceId: string,
  connectorType: string,
  accountId: string,
): Promise<ConnectionRow | undefined> {
  const [row] = await db
    .select()
    .from(connections)
    .where(
      and(
        eq(connections.workspaceId, workspaceId),
        eq(connections.connectorType, connectorType),
        sql`${connections.fields}->>'account_did' = ${accountId}`,
      ),
    )
    .orderBy(sql`${connections.status} = 'disconnected'`, desc(connections.createdAt))
    .limit(1);
  return row;
}

/** A member's own pending (consent not completed) connection of a type, if any. */
export async function pendingOf(
  db: Queryable,
  workspaceId: string,
  connectorType: string,
  userId: string,
): Promise<ConnectionRow | undefined> {
  const [row] = await db
    .select()
    .from(connections)
    .where(
      and(
        eq(connections.workspaceId, workspaceId),
        eq(connections.connectorType, connectorType),
        eq(connections.status, 'pending'),
        eq(connections.createdBy, userId),
      ),
    )
    .limit(1);
  return row;
}

/** Change a connection, always addressed by its id and its workspace; the row as it is after, or undefined if gone. */
export async function updateConnection(
  db: Queryable,
  c: Pick<ConnectionRow, 'id' | 'workspaceId'>,
  values: PgUpdateSetSource<typeof connections>,
): Promise<ConnectionRow | undefined> {
  const [row] = await db
    .update(connections)
    .set(values)
    .where(and(eq(connections.id, c.id), eq(connections.workspaceId, c.workspaceId)))
    .returning();
  return row;
}
