import { z } from '@hono/zod-openapi';
import type { Role } from '../../schema/tenancy.js';
import { ApiError, isApiError } from '../../platform/errors.js';
import { MAX_WAIT_MS, waitForRunChange } from '../../queues/run-reads.js';
import { isTerminal, loadWorkspaceRun, type RunRow } from '../../queues/run-store.js';
import type { RunStatus } from '../../schema/runs.js';
import type { Scope } from '../identity/scopes.js';
import {
  defineOperation,
  type McpBinding,
  type ObjectSchema,
  type Operation,
  type OperationContext,
  type RunStreamTarget,
  type Stability,
} from '../registry.js';
import { optionalQueryInt } from '../schemas.js';

/**
 * The run operations every asynchronous surface offers — read (with `wait_ms` and the event
 * stream), cancel, resume — declared once here; chat, research and evals each declare theirs with
 * these, and none writes its own long-poll, stream resolution or state checks.
 */

interface RunOperationBase {
  id: string;
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  scopes: readonly Scope[];
  minRole: Role;
  stability: Stability;
  mcp?: McpBinding;
  /** The path parameter that holds the run id (e.g. "run_id", "session_id", "id"). */
  idParam: string;
  /** The run kinds this surface owns; any other run's id is 404, like a missing one. */
  kinds: readonly string[];
  /** Beyond scopes and role: may this caller act on this run (e.g. a viewer only on runs they started)? Throws if not. */
  authorize?(ctx: OperationContext, row: RunRow): void;
  /** A path id that is not a uuid is 404 not_found, like a missing one (research), instead of 400. */
  malformedIdIsNotFound?: boolean;
}

const runIdParams = (spec: RunOperationBase): ObjectSchema =>
  z
    .object({
      [spec.idParam]: (spec.malformedIdIsNotFound ? z.string().min(1).max(200) : z.uuid()).openapi({
        param: { name: spec.idParam, in: 'path' },
        example: '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f',
      }),
    })
    .strict() as unknown as ObjectSchema;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function runIdOf(spec: RunOperationBase, input: Record<string, unknown>): string {
  const id = input[spec.idParam] as string;
  if (spec.malformedIdIsNotFound && !UUID.test(id))
    throw new ApiError('not_found', 'No such run in this workspace.', { [spec.idParam]: id });
  return id;
}

/** After which event a stream starts (`?after=` or `Last-Event-ID`). */
export const afterQuery = optionalQueryInt({ min: 0, max: 2_147_483_647 }).openapi({
  description:
    'Stream: replay events after this seq (an SSE client reconnecting sends Last-Event-ID instead). Read: return as soon as the run has moved past it.',
});

export interface RunReadSpec<O extends z.ZodType> extends RunOperationBase {
  output: O;
  /** The read body of one run of this surface. */
  render(ctx: OperationContext, row: RunRow): Promise<z.input<O>>;
}

/**
 * `GET <path>`: the run's read body; `?wait_ms=` (≤ 30,000) holds until the run changes, ends or
 * asks for input; with `Accept: text/event-stream`, the run's events (replay from `after`).
 */
export function defineRunRead<O extends z.ZodType>(spec: RunReadSpec<O>): Operation {
  return defineOperation({
    ...readDeclaration(spec),
    query: z
      .object({
        wait_ms: optionalQueryInt({ min: 0, max: MAX_WAIT_MS }).openapi({
          description: `Hold up to this many ms (max ${MAX_WAIT_MS}) until the run changes, ends or waits for input.`,
        }),
        after: afterQuery,
      })
      .strict(),
    output: spec.output,
    async handler(ctx, input) {
      const runId = runIdOf(spec, input);
      const row = input.wait_ms
        ? await waitForRunChange(ctx.services, ctx.caller.workspaceId, runId, {
            waitMs: input.wait_ms,
            afterSeq: input.after,
            kinds: spec.kinds,
            signal: ctx.signal,
          })
        : await loadWorkspaceRun(ctx.services.db, ctx.caller.workspaceId, runId, spec.kinds);
      return spec.render(ctx, row);
    },
    async stream(ctx, input) {
      return runStreamTarget(ctx, runIdOf(spec, input), spec.kinds, input.after);
    },
  });
}

/**
 * Which run a stream serves, tenant-checked (another workspace's run, or one of another kind, is
 * 404), and from which event: every run read that streams resolves its stream here.
 */
export async function runStreamTarget(
  ctx: OperationContext,
  runId: string,
  kinds: readonly string[] | undefined,
  after: number | undefined,
): Promise<RunStreamTarget> {
  await loadWorkspaceRun(ctx.services.db, ctx.caller.workspaceId, runId, kinds);
  return { runId, after: after ?? 0 };
}

/** `GET <path>`: the run's events as server-sent events, whatever the Accept header says. */
export function defineRunStream(spec: RunOperationBase): Operation {
  return defineOperation({
    ...readDeclaration(spec),
    description:
      spec.description ??
      'Server-sent events of the run: `id:` is the seq, `event:` the type, `data:` `{seq, type, at, data}`. Replays from `?after=` or `Last-Event-ID`; ends after the terminal event.',
    query: z.object({ after: afterQuery }).strict(),
    streamOnly: true,
    output: z.string().openapi({ description: 'text/event-stream frames' }),
    async handler() {
      // The transport streams (streamOnly); reaching here would be a wiring bug.
      throw new ApiError('internal', 'This operation only streams.');
    },
    async stream(ctx, input) {
      return runStreamTarget(ctx, runIdOf(spec, input), spec.kinds, input.after);
    },
  });
}

const readDeclaration = (spec: RunOperationBase) => ({
  id: spec.id,
  method: 'get' as const,
  path: spec.path,
  summary: spec.summary,
  ...(spec.description ? { description: spec.description } : {}),
  tags: spec.tags,
  scopes: spec.scopes,
  minRole: spec.minRole,
  stability: spec.stability,
  visibility: 'public' as const,
  ...(spec.mcp ? { mcp: spec.mcp } : {}),
  params: runIdParams(spec),
  // Run control is not an agent's tool: a run never reads, resumes or cancels runs through the registry.
  agentTool: false as const,
});

export interface RunCancelSpec<O extends z.ZodType> extends RunOperationBase {
  output: O;
  /** The request example of the OpenAPI document (see OperationSpec.example). */
  example?: { reason?: string };
  /** The error for a run that has already ended (chat: cannot_cancel; research: conflict). */
  whenEnded(status: RunStatus): ApiError;
  render(ctx: OperationContext, row: RunRow): Promise<z.input<O>>;
}

/**
 * `POST <path>`: cancel a non-terminal run (and the runs it started) at once; its worker stops at
 * the next checkpoint. An optional `reason` is kept in the run's `run.canceled` event.
 */
export function defineRunCancel<O extends z.ZodType>(spec: RunCancelSpec<O>): Operation {
  return defineOperation({
    ...writeDeclaration(spec),
    body: z
      .object({
        reason: z
          .string()
          .max(1000)
          .optional()
          .openapi({ description: 'Why, kept in the run.canceled event (logged only).' }),
      })
      .strict(),
    bodyRequired: false,
    ...(spec.example ? { example: spec.example } : {}),
    output: spec.output,
    async handler(ctx, input) {
      const runId = runIdOf(spec, input);
      spec.authorize?.(ctx, await loadWorkspaceRun(ctx.services.db, ctx.caller.workspaceId, runId, spec.kinds));
      const outcome = await ctx.services.engine.cancel(ctx.caller.workspaceId, runId, spec.kinds, input.reason);
      if (!outcome.canceled) throw spec.whenEnded(outcome.status);
      return spec.render(ctx, await loadWorkspaceRun(ctx.services.db, ctx.caller.workspaceId, runId, spec.kinds));
    },
  });
}

export interface RunResumeSpec<B extends ObjectSchema, O extends z.ZodType> extends RunOperationBase {
  body: B;
  /** The request example of the OpenAPI document (see OperationSpec.example). */
  example?: z.input<B>;
  output: O;
  /** The reply to hand the run's pipeline (validated there against the pause's own schema). */
  reply(input: z.output<B>, row: RunRow): unknown;
  /** Translate the engine's invalid_state / invalid_input into the surface's codes, if they differ. */
  mapError?(error: ApiError, row: RunRow): ApiError;
  render(ctx: OperationContext, row: RunRow): Promise<z.input<O>>;
}

/** `POST <path>`: answer a paused run; it is queued again at once. */
export function defineRunResume<B extends ObjectSchema, O extends z.ZodType>(spec: RunResumeSpec<B, O>): Operation {
  return defineOperation({
    ...writeDeclaration(spec),
    body: spec.body,
    // Typed against B in RunResumeSpec; the conditional type of OperationSpec cannot see it for a generic B.
    ...(spec.example ? { example: spec.example as never } : {}),
    output: spec.output,
    async handler(ctx, input) {
      const runId = runIdOf(spec, input);
      const row = await loadWorkspaceRun(ctx.services.db, ctx.caller.workspaceId, runId, spec.kinds);
      spec.authorize?.(ctx, row);
      try {
        await ctx.services.engine.resume(
          ctx.caller.workspaceId,
          runId,
          spec.reply(input as z.output<B>, row),
          spec.kinds,
        );
      } catch (error) {
        if (isApiError(error) && spec.mapError && error.code !== 'not_found') throw spec.mapError(error, row);
        throw error;
      }
      return spec.render(ctx, await loadWorkspaceRun(ctx.services.db, ctx.caller.workspaceId, runId, spec.kinds));
    },
  });
}

const writeDeclaration = (spec: RunOperationBase) => ({ ...readDeclaration(spec), method: 'post' as const });

/** Whether a run is still working (queued or running), as opposed to paused or ended. */
export const isInFlight = (status: RunStatus): boolean => !isTerminal(status) && status !== 'awaiting_input';
