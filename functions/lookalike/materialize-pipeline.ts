import { and, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { definePipeline, type CommitScope } from '../../queues/pipeline.js';
import { centroidMaterializations } from '../../schema/index.js';
import type { Services } from '../services.js';
import { computeCentroids, storeUtteranceCount, writeCentroids } from './centroids.js';

export const MATERIALIZE_KIND = 'lookalike.materialize';

/** A materialization older than this is redone even when the store's count did not move (accounts re-linked). */
const MAX_AGE_MS = 24 * 60 * 60 * 1000;

const MaterializeInputSchema = z.object({ embedder: z.string().min(1) }).strict();

/**
 * One stage: recompute the workspace's centroids for the embedder, then write them and record what
 * the store held in the stage's commit (a retried delivery recomputes the same rows; nothing is
 * half-written). The computing reads run before the commit, in chunks that let the event loop turn
 * (computeCentroids), so the transaction only writes. The store's count is read first: utterances
 * added while the centroids are computed make the record differ from the store, and the next tick
 * computes again.
 */
export const materializePipeline = definePipeline<
  Services,
  z.infer<typeof MaterializeInputSchema>,
  Record<string, never>
>({
  kind: MATERIALIZE_KIND,
  input: MaterializeInputSchema,
  state: z.object({}).strict(),
  stages: {
    async materialize(ctx) {
      const workspaceId = ctx.run.workspaceId;
      const { embedder } = ctx.input;
      const store = await storeUtteranceCount(ctx.services.db, workspaceId, embedder);
      const centroids = await computeCentroids(ctx.services.db, workspaceId, embedder);
      return {
        complete: true,
        effects: async ({ tx, now }) => {
          const counts = await writeCentroids(tx, workspaceId, embedder, centroids, now);
          const record = {
            storeUtterances: store,
            centroids: counts.companies + counts.deals,
            computedAt: now,
            runId: null,
          };
          await tx
            .insert(centroidMaterializations)
            .values({ workspaceId, embedder, ...record })
            .onConflictDoUpdate({
              target: [centroidMaterializations.workspaceId, centroidMaterializations.embedder],
              set: record,
            });
        },
      };
    },
  },
  deadlineMs: 120_000,
  retry: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 },
});

/**
 * The scheduled tick's step (and what a test may call): start a materialization for every
 * workspace whose utterance store for the configured embedder changed size since its last one, has
 * none yet, or whose last one is a day old — unless one is already queued or running. The claim
 * (run_id set where none is live) and the runs start in one transaction, so two ticks racing start
 * one run per workspace. A read first: with no workspace due (most ticks) no transaction is opened.
 */
export async function requestMaterializations(
  services: Services,
  at: Date,
  onlyWorkspaceId?: string,
): Promise<{ runIds: string[] }> {
  if (!(await anyMaterializationDue(services.db, services.embedder.id, at, onlyWorkspaceId))) return { runIds: [] };
  return services.engine.transaction((scope) =>
    claimMaterializations(scope, services.embedder.id, at, onlyWorkspaceId),
  );
}

/** Whether claimMaterializations would start a run: the same conditions, read without a lock or a write. */
async function anyMaterializationDue(
  db: Queryable,
  embedder: string,
  at: Date,
  onlyWorkspaceId?: string,
): Promise<boolean> {
  const dayAgo = new Date(at.getTime() - MAX_AGE_MS);
  const only = onlyWorkspaceId ? sql`and s.workspace_id = ${onlyWorkspaceId}` : sql``;
  const [row] = await queryRows<{ due: boolean }>(
    db,
    sql`select exists (
          select 1
          from utterance_store_counts s
          left join centroid_materializations m on m.workspace_id = s.workspace_id and m.embedder = s.embedder
          where s.embedder = ${embedder} ${only}
            and (m.workspace_id is null and s.utterances > 0
              or m.workspace_id is not null
                and (m.store_utterances <> s.utterances or m.computed_at < ${dayAgo.toISOString()}::timestamptz)
                and (m.run_id is null or not exists (
                  select 1 from runs r where r.id = m.run_id and r.status in ('queued', 'running'))))
        ) as due`,
  );
  return row?.due === true;
}

/**
 * The claim of requestMaterializations inside a transaction the caller commits: a connection's sync
 * calls it in its last stage's commit, so the centroids of the workspace it wrote conversations to
 * are rebuilt without waiting for the tick. Idempotent: a second claim while one run is live, or
 * with the store unchanged since the last materialization, starts nothing.
 */
export async function claimMaterializations(
  scope: Pick<CommitScope, 'tx' | 'startRuns'>,
  embedder: string,
  at: Date,
  onlyWorkspaceId?: string,
): Promise<{ runIds: string[] }> {
  const dayAgo = new Date(at.getTime() - MAX_AGE_MS);
  const only = onlyWorkspaceId ? sql`and s.workspace_id = ${onlyWorkspaceId}` : sql``;
  // A workspace seen for the first time gets a row that is due at once (count -1 never matches).
  await scope.tx.execute(
    sql`insert into centroid_materializations (workspace_id, embedder, store_utterances, centroids, computed_at, run_id)
        select s.workspace_id, s.embedder, -1, 0, to_timestamp(0), null
        from utterance_store_counts s
        where s.embedder = ${embedder} and s.utterances > 0 ${only}
        on conflict (workspace_id, embedder) do nothing`,
  );
  const due = await queryRows<{ workspace_id: string }>(
    scope.tx,
    sql`select m.workspace_id
        from centroid_materializations m
        join utterance_store_counts s on s.workspace_id = m.workspace_id and s.embedder = m.embedder
        where m.embedder = ${embedder} ${only}
          and (m.store_utterances <> s.utterances or m.computed_at < ${dayAgo.toISOString()}::timestamptz)
          and (m.run_id is null or not exists (
            select 1 from runs r where r.id = m.run_id and r.status in ('queued', 'running')))
        order by m.workspace_id
        for update of m skip locked`,
  );
  const runIds: string[] = [];
  for (const { workspace_id } of due) {
    const runId = newId();
    await scope.tx
      .update(centroidMaterializations)
      .set({ runId })
      .where(
        and(eq(centroidMaterializations.workspaceId, workspace_id), eq(centroidMaterializations.embedder, embedder)),
      );
    runIds.push(runId);
  }
  await scope.startRuns(
    due.map(({ workspace_id }, i) => ({
      workspaceId: workspace_id,
      kind: MATERIALIZE_KIND,
      input: { embedder },
      runId: runIds[i]!,
    })),
  );
  return { runIds };
}
