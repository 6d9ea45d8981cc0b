import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import type { CommitScope } from '../../queues/pipeline.js';
import { enrichmentBriefs } from '../../schema/index.js';
import type { EnrichSubjectKind } from '../../schema/enrichment.js';
import type { RunCaller } from '../../schema/runs.js';
import { commitVersion } from '../artifacts/index.js';
import type { Services } from '../services.js';
import { briefDocument } from './brief.js';
import { BriefSchema, type Brief } from './schemas.js';
import type { Subject } from './subject.js';

export const ENRICH_REFRESH_KIND = 'enrich.refresh';

/** How long a brief is served from the cache (the cookbook's "about 7 days" and "14"). */
export const FRESH_DAYS: Record<EnrichSubjectKind, number> = { company: 7, person: 14, topic: 14 };

const DAY_MS = 86_400_000;
const subjectIs = (workspaceId: string, subject: Subject) =>
  and(
    eq(enrichmentBriefs.workspaceId, workspaceId),
    eq(enrichmentBriefs.subjectKind, subject.kind),
    eq(enrichmentBriefs.subjectKey, subject.key),
  );

export interface CachedBrief {
  brief: Brief;
  artifactId: string | null;
  capturedAt: Date;
}

/** The subject's brief when it is fresh; a stale or unreadable one is a miss. */
export async function readFreshBrief(
  db: Queryable,
  workspaceId: string,
  subject: Subject,
  now: Date,
): Promise<CachedBrief | null> {
  const [row] = await db.select().from(enrichmentBriefs).where(subjectIs(workspaceId, subject));
  if (!row?.brief || !row.capturedAt) return null;
  if (now.getTime() - row.capturedAt.getTime() > FRESH_DAYS[subject.kind] * DAY_MS) return null;
  const brief = BriefSchema.safeParse(row.brief);
  return brief.success ? { brief: brief.data, artifactId: row.artifactId, capturedAt: row.capturedAt } : null;
}

export interface RefreshInput {
  subject: Subject;
  limit: number;
}

/**
 * Enqueue the background rebuild of a subject's brief, once: the row's `refresh_run_id` is claimed
 * only when no rebuild is queued or running, and the run starts in the same transaction. A second
 * miss while one is in flight gets the same run id back (`refresh_enqueued` is true either way).
 */
export async function enqueueRefresh(
  services: Services,
  workspaceId: string,
  caller: RunCaller,
  input: RefreshInput,
): Promise<{ runId: string }> {
  const { subject } = input;
  return services.engine.transaction(async (scope) => {
    await scope.tx
      .insert(enrichmentBriefs)
      .values({ workspaceId, subjectKind: subject.kind, subjectKey: subject.key })
      .onConflictDoNothing();
    const runId = newId();
    const claimed = await queryRows<{ run_id: string }>(
      scope.tx,
      sql`update enrichment_briefs b set refresh_run_id = ${runId}::uuid, refresh_requested_at = ${scope.now.toISOString()}::timestamptz
          where b.workspace_id = ${workspaceId} and b.subject_kind = ${subject.kind} and b.subject_key = ${subject.key}
            and (b.refresh_run_id is null or not exists (
              select 1 from runs r where r.id = b.refresh_run_id and r.status in ('queued', 'running')))
          returning b.refresh_run_id as run_id`,
    );
    if (claimed.length === 0) {
      const [row] = await scope.tx
        .select({ runId: enrichmentBriefs.refreshRunId })
        .from(enrichmentBriefs)
        .where(subjectIs(workspaceId, subject));
      return { runId: row!.runId! };
    }
    await scope.startRun({
      workspaceId,
      kind: ENRICH_REFRESH_KIND,
      runId,
      input: input as unknown as Record<string, unknown>,
      caller,
      createdBy: caller.user_id,
    });
    return { runId };
  });
}

/**
 * Commit a brief: a new version of the subject's document (published when the verifier passed
 * everything, else proposed for a person to promote, as the document gate does) and the cache row,
 * in the caller's transaction. The rebuild that wrote it (if any) is released.
 */
export async function storeBrief(
  scope: CommitScope,
  workspaceId: string,
  subject: Subject,
  brief: Brief,
  createdBy: string,
  runId: string | null,
): Promise<{ artifactId: string; capturedAt: Date }> {
  const [existing] = await scope.tx
    .select({ artifactId: enrichmentBriefs.artifactId })
    .from(enrichmentBriefs)
    .where(subjectIs(workspaceId, subject))
    .for('update');
  const verified = brief.grounding.verified;
  const { artifact } = await commitVersion(scope, {
    workspaceId,
    artifactId: existing?.artifactId ?? null,
    title: `${subject.kind[0]!.toUpperCase()}${subject.kind.slice(1)} brief: ${subject.label}`,
    status: verified ? 'published' : 'proposed',
    reason: verified ? null : `grounding: ${brief.grounding.problems.join('; ') || 'unverified numbers'}`,
    document: briefDocument(brief),
    grounding: brief.grounding,
    runId,
    routineId: null,
    createdBy,
  });
  const capturedAt = scope.now;
  const values = { artifactId: artifact.id, brief: brief as unknown as Record<string, unknown>, capturedAt };
  await scope.tx
    .insert(enrichmentBriefs)
    .values({ workspaceId, subjectKind: subject.kind, subjectKey: subject.key, ...values, refreshRunId: null })
    .onConflictDoUpdate({
      target: [enrichmentBriefs.workspaceId, enrichmentBriefs.subjectKind, enrichmentBriefs.subjectKey],
      set: {
        ...values,
        // Only the rebuild that holds the claim releases it; an inline (mode: full) brief leaves a queued one be.
        refreshRunId: runId
          ? sql`case when ${enrichmentBriefs.refreshRunId} = ${runId}::uuid then null else ${enrichmentBriefs.refreshRunId} end`
          : sql`${enrichmentBriefs.refreshRunId}`,
      },
    });
  return { artifactId: artifact.id, capturedAt };
}
