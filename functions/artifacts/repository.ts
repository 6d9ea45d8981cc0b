import { and, asc, count, desc, eq } from 'drizzle-orm';
import { type Page, pageWithTotal } from '../../platform/db/paging.js';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { CommitScope } from '../../queues/pipeline.js';
import { artifacts, artifactVersions, runOutputs, type ArtifactStatus } from '../../schema/artifacts.js';
import type { AnswerDraft, GroundingReport } from '../agents/answer.js';
import { emitEvent } from '../webhooks/index.js';

export type ArtifactRow = typeof artifacts.$inferSelect;
export type VersionRow = typeof artifactVersions.$inferSelect;

export async function getArtifactOrThrow(db: Queryable, workspaceId: string, id: string): Promise<ArtifactRow> {
  const [row] = await db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.workspaceId, workspaceId), eq(artifacts.id, id)));
  if (!row) throw new ApiError('not_found', 'No such document in this workspace.', { artifact_id: id });
  return row;
}

export async function versionsOf(db: Queryable, artifactId: string): Promise<VersionRow[]> {
  return db
    .select()
    .from(artifactVersions)
    .where(eq(artifactVersions.artifactId, artifactId))
    .orderBy(asc(artifactVersions.version));
}

export async function listArtifacts(db: Queryable, workspaceId: string, page: Page) {
  const where = eq(artifacts.workspaceId, workspaceId);
  return pageWithTotal(
    db.select().from(artifacts).where(where).orderBy(desc(artifacts.updatedAt), desc(artifacts.id)),
    db.select({ n: count() }).from(artifacts).where(where),
    page,
  );
}

/** The document's status as a whole: published once any version is, else its latest version's. */
const statusOf = (currentVersion: number | null, latest: ArtifactStatus): ArtifactStatus =>
  currentVersion !== null ? 'published' : latest;

export interface NewVersion {
  workspaceId: string;
  artifactId: string | null;
  title: string;
  status: 'published' | 'proposed';
  reason: string | null;
  document: AnswerDraft;
  grounding: GroundingReport;
  runId: string | null;
  routineId: string | null;
  createdBy: string;
}

/**
 * Commit a document version and emit its webhooks in the same transaction: `artifact.created` for a
 * new document, `artifact.updated` for a new version of one, and `artifact.status_changed` when the
 * document's status moves (e.g. its first published version). A run's commit is logged on the run.
 */
export async function commitVersion(
  scope: CommitScope,
  v: NewVersion,
): Promise<{ artifact: ArtifactRow; version: VersionRow }> {
  const { tx, now } = scope;
  let before: ArtifactRow | null = null;
  if (v.artifactId) {
    before =
      (
        await tx
          .select()
          .from(artifacts)
          .where(and(eq(artifacts.workspaceId, v.workspaceId), eq(artifacts.id, v.artifactId)))
          .for('update')
      )[0] ?? null;
    if (!before) throw new ApiError('not_found', 'No such document in this workspace.', { artifact_id: v.artifactId });
  }
  const id = before?.id ?? newId();
  const number = (before?.latestVersion ?? 0) + 1;
  const currentVersion = v.status === 'published' ? number : (before?.currentVersion ?? null);
  const status = statusOf(currentVersion, v.status);
  const [artifact] = before
    ? await tx
        .update(artifacts)
        .set({ title: v.title, status, currentVersion, latestVersion: number, updatedAt: now })
        .where(eq(artifacts.id, id))
        .returning()
    : await tx
        .insert(artifacts)
        .values({
          id,
          workspaceId: v.workspaceId,
          title: v.title,
          status,
          currentVersion,
          latestVersion: number,
          routineId: v.routineId,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
  const [version] = await tx
    .insert(artifactVersions)
    .values({
      artifactId: id,
      version: number,
      workspaceId: v.workspaceId,
      status: v.status,
      markdown: v.document.text,
      contentBlocks: v.document.content_blocks as unknown as Record<string, unknown>[],
      grounding: v.grounding as unknown as Record<string, unknown>,
      reason: v.reason,
      runId: v.runId,
      createdBy: v.createdBy,
      createdAt: now,
    })
    .returning();
  if (v.runId)
    await logOutput(tx, {
      workspaceId: v.workspaceId,
      runId: v.runId,
      kind: 'document',
      target: id,
      version: number,
      outcome: v.status,
      reason: v.reason,
    });
  const data = {
    artifact_id: id,
    title: v.title,
    version: number,
    version_status: v.status,
    status,
    run_id: v.runId,
    routine_id: artifact!.routineId,
  };
  await emitEvent(scope, {
    workspaceId: v.workspaceId,
    type: before ? 'artifact.updated' : 'artifact.created',
    data,
    at: now,
  });
  if (before && before.status !== status)
    await emitEvent(scope, {
      workspaceId: v.workspaceId,
      type: 'artifact.status_changed',
      data: { ...data, from: before.status, to: status },
      at: now,
    });
  return { artifact: artifact!, version: version! };
}

/** Promote or reject a proposed version (an editor's decision), with `artifact.status_changed` when the document's status moves. */
export async function decideVersion(
  scope: CommitScope,
  d: {
    workspaceId: string;
    artifactId: string;
    version: number;
    decision: 'published' | 'rejected';
    by: string;
    note: string | null;
  },
): Promise<{ artifact: ArtifactRow; version: VersionRow }> {
  const { tx, now } = scope;
  const [before] = await tx
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.workspaceId, d.workspaceId), eq(artifacts.id, d.artifactId)))
    .for('update');
  if (!before) throw new ApiError('not_found', 'No such document in this workspace.', { artifact_id: d.artifactId });
  const [current] = await tx
    .select()
    .from(artifactVersions)
    .where(and(eq(artifactVersions.artifactId, d.artifactId), eq(artifactVersions.version, d.version)));
  if (!current)
    throw new ApiError('not_found', `The document has no version ${d.version}.`, {
      artifact_id: d.artifactId,
      version: d.version,
    });
  if (current.status !== 'proposed') {
    throw new ApiError(
      'invalid_state',
      `Version ${d.version} is ${current.status}; only a proposed version can be promoted or rejected.`,
      { current_status: current.status },
    );
  }
  const [version] = await tx
    .update(artifactVersions)
    .set({ status: d.decision, decidedBy: d.by, decidedAt: now, decisionNote: d.note })
    .where(and(eq(artifactVersions.artifactId, d.artifactId), eq(artifactVersions.version, d.version)))
    .returning();
  const currentVersion =
    d.decision === 'published' ? Math.max(d.version, before.currentVersion ?? 0) : before.currentVersion;
  const latestStatus = d.version === before.latestVersion ? d.decision : before.status;
  const status = statusOf(currentVersion, latestStatus);
  const [artifact] = await tx
    .update(artifacts)
    .set({ currentVersion, status, updatedAt: now })
    .where(eq(artifacts.id, d.artifactId))
    .returning();
  if (before.status !== status) {
    await emitEvent(scope, {
      workspaceId: d.workspaceId,
      type: 'artifact.status_changed',
      data: {
        artifact_id: d.artifactId,
        title: before.title,
        version: d.version,
        version_status: d.decision,
        status,
        from: before.status,
        to: status,
        decided_by: d.by,
      },
      at: now,
    });
  }
  return { artifact: artifact!, version: version! };
}

export async function logOutput(
  db: Queryable,
  o: {
    workspaceId: string;
    runId: string;
    kind: 'document' | 'action';
    target: string | null;
    version?: number | null;
    outcome: 'published' | 'proposed' | 'refused' | 'sent';
    reason: string | null;
  },
): Promise<void> {
  await db.insert(runOutputs).values({
    id: newId(),
    workspaceId: o.workspaceId,
    runId: o.runId,
    kind: o.kind,
    target: o.target,
    version: o.version ?? null,
    outcome: o.outcome,
    reason: o.reason,
  });
}

export async function outputsOf(db: Queryable, runId: string) {
  return db
    .select()
    .from(runOutputs)
    .where(eq(runOutputs.runId, runId))
    .orderBy(asc(runOutputs.createdAt), asc(runOutputs.id));
}
