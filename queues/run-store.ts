import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Queryable } from '../platform/db/port.js';
import { ApiError } from '../platform/errors.js';
import { runEvents, runs, TERMINAL_STATUSES, type RunStatus } from '../schema/runs.js';
import type { RunEventDraft, RunView } from './pipeline.js';

export type RunRow = typeof runs.$inferSelect;
export type RunEventRow = typeof runEvents.$inferSelect;

export const isTerminal = (status: RunStatus): boolean => TERMINAL_STATUSES.includes(status);

/** Event types that end a stream: the last event every run gets. */
export const TERMINAL_EVENT_TYPES = ['run.completed', 'run.failed', 'run.canceled'] as const;

export function toRunView(row: RunRow): RunView {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    kind: row.kind,
    status: row.status,
    stage: row.stage,
    version: row.version,
    attempt: row.attempt,
    input: row.input,
    state: row.state,
    outputs: row.outputs,
    createdBy: row.createdBy,
    caller: row.caller ?? null,
    parentRunId: row.parentRunId,
    error: row.error ?? null,
  };
}

export async function loadRun(db: Queryable, runId: string): Promise<RunRow | null> {
  const [row] = await db.select().from(runs).where(eq(runs.id, runId));
  return row ?? null;
}

/**
 * A run as its workspace may see it. Missing, another workspace's, or another kind's run is the
 * same `404 not_found` (spec, Authentication 11).
 */
export async function loadWorkspaceRun(
  db: Queryable,
  workspaceId: string,
  runId: string,
  kinds?: readonly string[],
): Promise<RunRow> {
  const row = await loadRun(db, runId);
  if (!row || row.workspaceId !== workspaceId || (kinds && !kinds.includes(row.kind))) {
    throw new ApiError('not_found', 'No such run in this workspace.', { run_id: runId });
  }
  return row;
}

/** Append events after `lastSeq`; the caller bumps runs.last_seq by the same count in its CAS update. */
export async function appendEvents(
  db: Queryable,
  run: { id: string; workspaceId: string },
  lastSeq: number,
  drafts: readonly RunEventDraft[],
  at: Date,
): Promise<void> {
  if (drafts.length === 0) return;
  await db.insert(runEvents).values(
    drafts.map((d, i) => ({
      runId: run.id,
      workspaceId: run.workspaceId,
      seq: lastSeq + i + 1,
      type: d.type,
      data: d.data ?? {},
      createdAt: at,
    })),
  );
}

export async function readEventsAfter(
  db: Queryable,
  runId: string,
  afterSeq: number,
  limit = 500,
): Promise<RunEventRow[]> {
  return db
    .select()
    .from(runEvents)
    .where(and(eq(runEvents.runId, runId), gt(runEvents.seq, afterSeq)))
    .orderBy(asc(runEvents.seq))
    .limit(limit);
}

export const jsonbMerge = (column: typeof runs.state | typeof runs.outputs, patch: Record<string, unknown>) =>
  sql`${column} || ${JSON.stringify(patch)}::jsonb`;

/**
 * The record of work done synchronously by an operation (the message optimizer): a run that is
 * already terminal when written, with its input, output and one terminal event, so it can be read,
 * exported and audited like any other run. One transaction.
 */
export async function recordFinishedRun(
  db: Queryable & { transaction: <T>(fn: (tx: Queryable) => Promise<T>) => Promise<T> },
  params: {
    id: string;
    workspaceId: string;
    kind: string;
    status: 'complete' | 'failed';
    input: Record<string, unknown>;
    output: Record<string, unknown>;
    error: { code: string; message: string } | null;
    caller: RunRow['caller'];
    createdBy: string | null;
    startedAt: Date;
    now: Date;
  },
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.insert(runs).values({
      id: params.id,
      workspaceId: params.workspaceId,
      kind: params.kind,
      status: params.status,
      input: params.input,
      outputs: { result: params.output },
      error: params.error ? { ...params.error, stage: null } : null,
      lastSeq: 1,
      caller: params.caller,
      createdBy: params.createdBy,
      createdAt: params.startedAt,
      startedAt: params.startedAt,
      updatedAt: params.now,
      completedAt: params.now,
    });
    await tx.insert(runEvents).values({
      runId: params.id,
      workspaceId: params.workspaceId,
      seq: 1,
      type: params.status === 'complete' ? 'run.completed' : 'run.failed',
      data: params.status === 'complete' ? { status: 'complete' } : { status: 'failed', error: params.error },
      createdAt: params.now,
    });
  });
}
