import { z } from '@hono/zod-openapi';
import { rerunCitedQuery } from '../agents/index.js';
import { ApiError } from '../../platform/errors.js';
import { ARTIFACT_STATUSES } from '../../schema/artifacts.js';
import { BlockDraftSchema, GroundingReportSchema } from '../agents/index.js';
import { AgentRunInputSchema } from '../agents/index.js';
import { asInvocationResult } from '../invoke.js';
import { defineOperation, type OperationContext } from '../registry.js';
import { isoTimestamp, pagingQuery } from '../schemas.js';
import { passGate } from './gate.js';
import {
  commitVersion,
  decideVersion,
  getArtifactOrThrow,
  listArtifacts,
  logOutput,
  versionsOf,
  type ArtifactRow,
  type VersionRow,
} from './repository.js';

/**
 * Documents: what an agent (or a person) commits through the verified write gate, versioned, with
 * the artifact webhooks. `outputs.write_doc` is the one way in; reads list, get and version them;
 * an editor promotes or rejects a proposed version.
 */

const StatusSchema = z.enum(ARTIFACT_STATUSES);

const VersionSchema = z
  .object({
    version: z.number().int(),
    status: StatusSchema,
    markdown: z.string(),
    content_blocks: z.array(z.record(z.string(), z.unknown())),
    grounding: GroundingReportSchema,
    reason: z.string().nullable().openapi({
      description:
        'Why the version landed proposed (unverified digits, removed blocks, a workspace agent, written outside a run).',
    }),
    run_id: z.uuid().nullable(),
    decided_by: z.uuid().nullable(),
    decided_at: isoTimestamp().nullable(),
    decision_note: z.string().nullable(),
    created_at: isoTimestamp(),
  })
  .openapi('DocumentVersion');

const ArtifactSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    status: StatusSchema.openapi({ description: "published once any version is; else the latest version's status." }),
    current_version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The latest published version (what readers see); null until one is.' }),
    latest_version: z.number().int(),
    routine_id: z.uuid().nullable(),
    created_at: isoTimestamp(),
    updated_at: isoTimestamp(),
  })
  .openapi('Document');

const ArtifactWithContentSchema = ArtifactSchema.extend({
  current: VersionSchema.nullable(),
  latest: VersionSchema,
}).openapi('DocumentWithContent');

const renderArtifact = (a: ArtifactRow) => ({
  id: a.id,
  title: a.title,
  status: a.status,
  current_version: a.currentVersion,
  latest_version: a.latestVersion,
  routine_id: a.routineId,
  created_at: a.createdAt.toISOString(),
  updated_at: a.updatedAt.toISOString(),
});

const renderVersion = (v: VersionRow) => ({
  version: v.version,
  status: v.status,
  markdown: v.markdown,
  content_blocks: v.contentBlocks,
  grounding: v.grounding as z.infer<typeof GroundingReportSchema>,
  reason: v.reason,
  run_id: v.runId,
  decided_by: v.decidedBy,
  decided_at: v.decidedAt?.toISOString() ?? null,
  decision_note: v.decisionNote,
  created_at: v.createdAt.toISOString(),
});

const ArtifactIdParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }).strict();
const VersionParams = z
  .object({
    id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }),
    version: z.coerce
      .number()
      .int()
      .min(1)
      .openapi({ param: { name: 'version', in: 'path' } }),
  })
  .strict();

export const writeDoc = defineOperation({
  id: 'outputs.write_doc',
  example: { title: 'Pricing objections', markdown: '## What we hear\n\nCustomers compare us with cheaper tools.' },
  method: 'post',
  path: '/outputs/documents',
  summary: 'Commit a document (markdown with content blocks) through the verified write gate',
  description:
    'A new document, or with `artifact_id` a new version of one. The gate, in order: a routine run started with `write_outputs: false` is refused (`outputs_disabled`); ' +
    'a run in which a theme read failed is refused (`degraded_read`); the document is verified like an answer (quotes verbatim, tables and metrics re-run), and it is published ' +
    "only when every digit it states is backed by a cell of a query the same run made and the run's agent is a library agent — otherwise the version lands `proposed` for an editor. " +
    'Refusals are 409 with `details.reason`, and every outcome is recorded on the run.',
  tags: ['Documents'],
  scopes: ['outputs:write'],
  minRole: 'editor',
  stability: 'beta',
  visibility: 'public',
  mcp: { tool: 'artifacts', action: 'write_doc' },
  body: z
    .object({
      title: z.string().trim().min(1).max(300),
      markdown: z.string().min(1).max(100_000),
      content_blocks: z.array(BlockDraftSchema).max(60).optional(),
      artifact_id: z.uuid().optional().openapi({ description: 'Write a new version of this document.' }),
    })
    .strict(),
  output: z.object({ artifact: ArtifactSchema, version: VersionSchema }),
  successStatus: 201,
  async handler(ctx, input) {
    const { services, caller } = ctx;
    const document = { text: input.markdown, content_blocks: input.content_blocks ?? [], follow_ups: [] };
    const gate = await passGate({
      db: services.db,
      workspaceId: caller.workspaceId,
      run: ctx.run,
      document,
      rerun: (query) => rerunCitedQuery((id, input) => asInvocationResult(ctx.invoke(id, input)), query),
      askedAt: services.clock.now().toISOString(),
    });
    if (gate.kind === 'refused') {
      if (ctx.run)
        await logOutput(services.db, {
          workspaceId: caller.workspaceId,
          runId: ctx.run.id,
          kind: 'document',
          target: input.artifact_id ?? null,
          outcome: 'refused',
          reason: gate.reason,
        });
      throw new ApiError('conflict', gate.message, { reason: gate.reason });
    }
    const run = ctx.run ? AgentRunInputSchema.safeParse(ctx.run.input) : null;
    const committed = await services.engine.transaction((scope) =>
      commitVersion(scope, {
        workspaceId: caller.workspaceId,
        artifactId: input.artifact_id ?? null,
        title: input.title,
        status: gate.status,
        reason: gate.reason,
        document: gate.document,
        grounding: gate.grounding,
        runId: ctx.run?.id ?? null,
        routineId: run?.success ? (run.data.routine?.id ?? null) : null,
        createdBy: caller.userId,
      }),
    );
    return { artifact: renderArtifact(committed.artifact), version: renderVersion(committed.version) };
  },
});

const readCommon = {
  tags: ['Documents'],
  scopes: ['artifacts:read'] as const,
  minRole: 'viewer' as const,
  stability: 'beta' as const,
  visibility: 'public' as const,
};

export const listDocuments = defineOperation({
  ...readCommon,
  id: 'artifacts.list',
  method: 'get',
  path: '/artifacts',
  summary: 'List documents, most recently changed first',
  mcp: { tool: 'artifacts', action: 'list', resource: 'artifact://list' },
  query: z.object({ ...pagingQuery }).strict(),
  output: z.object({
    artifacts: z.array(ArtifactSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const { total, rows } = await listArtifacts(ctx.services.db, ctx.caller.workspaceId, input);
    return { artifacts: rows.map(renderArtifact), total, limit: input.limit, offset: input.offset };
  },
});

export const getDocument = defineOperation({
  ...readCommon,
  id: 'artifacts.get',
  method: 'get',
  path: '/artifacts/{id}',
  summary: 'Read a document: its current (published) version and its latest',
  mcp: { tool: 'artifacts', action: 'get', resource: 'artifact://{id}' },
  params: ArtifactIdParams,
  output: ArtifactWithContentSchema,
  async handler(ctx, input) {
    const artifact = await getArtifactOrThrow(ctx.services.db, ctx.caller.workspaceId, input.id);
    const versions = await versionsOf(ctx.services.db, artifact.id);
    const current = versions.find((v) => v.version === artifact.currentVersion);
    return {
      ...renderArtifact(artifact),
      current: current ? renderVersion(current) : null,
      latest: renderVersion(versions.at(-1)!),
    };
  },
});

export const documentVersions = defineOperation({
  ...readCommon,
  id: 'artifacts.versions',
  method: 'get',
  path: '/artifacts/{id}/versions',
  summary: 'Every version of a document, oldest first',
  mcp: { tool: 'artifacts', action: 'versions' },
  params: ArtifactIdParams,
  output: z.object({ artifact: ArtifactSchema, versions: z.array(VersionSchema) }),
  async handler(ctx, input) {
    const artifact = await getArtifactOrThrow(ctx.services.db, ctx.caller.workspaceId, input.id);
    return {
      artifact: renderArtifact(artifact),
      versions: (await versionsOf(ctx.services.db, artifact.id)).map(renderVersion),
    };
  },
});

const decide =
  (decision: 'published' | 'rejected') =>
  async (ctx: OperationContext, input: { id: string; version: number; note?: string | undefined }) => {
    const done = await ctx.services.engine.transaction((scope) =>
      decideVersion(scope, {
        workspaceId: ctx.caller.workspaceId,
        artifactId: input.id,
        version: input.version,
        decision,
        by: ctx.caller.userId,
        note: input.note ?? null,
      }),
    );
    return { artifact: renderArtifact(done.artifact), version: renderVersion(done.version) };
  };

const decideCommon = {
  tags: ['Documents'],
  scopes: ['artifacts:write'] as const,
  minRole: 'editor' as const,
  stability: 'beta' as const,
  visibility: 'public' as const,
  params: VersionParams,
  body: z
    .object({ note: z.string().max(2_000).optional().openapi({ description: 'Why (kept on the version).' }) })
    .strict(),
  bodyRequired: false,
  output: z.object({ artifact: ArtifactSchema, version: VersionSchema }),
};

export const promoteVersion = defineOperation({
  ...decideCommon,
  id: 'artifacts.promote',
  example: { note: 'Checked against the call notes' },
  method: 'post',
  path: '/artifacts/{id}/versions/{version}/promote',
  summary: "Publish a proposed version (an editor's decision)",
  description: 'Only a proposed version: anything else is 409 invalid_state with `details.current_status`.',
  mcp: { tool: 'artifacts', action: 'promote' },
  handler: decide('published'),
});

export const rejectVersion = defineOperation({
  ...decideCommon,
  id: 'artifacts.reject',
  example: { note: 'The quotes are from last year' },
  method: 'post',
  path: '/artifacts/{id}/versions/{version}/reject',
  summary: 'Reject a proposed version',
  description: 'Only a proposed version: anything else is 409 invalid_state with `details.current_status`.',
  mcp: { tool: 'artifacts', action: 'reject' },
  handler: decide('rejected'),
});

export const artifactOperations = [
  writeDoc,
  listDocuments,
  getDocument,
  documentVersions,
  promoteVersion,
  rejectVersion,
];
