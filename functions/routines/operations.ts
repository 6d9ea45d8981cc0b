import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { routines } from '../../schema/routines.js';
import { RunHandlesSchema } from '../chat/index.js';
import { runCallerOf } from '../identity/run-caller.js';
import { defineOperation } from '../registry.js';
import { nextOccurrence } from './cron.js';
import { fireNow } from './fire.js';
import { getRoutineOrThrow, listRoutines, renderRoutine } from './repository.js';
import { CreateRoutineBody, ListRoutinesQuery, RoutineIdParams, RoutineSchema, UpdateRoutineBody } from './schemas.js';
import { checkRoutine } from './validate.js';

const common = { tags: ['Routines'], stability: 'stable' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['routines:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['routines:write'] as const, minRole: 'editor' as const };

const nextRun = (enabled: boolean, cron: string, timezone: string, now: Date): Date | null =>
  enabled ? nextOccurrence(cron, timezone, now) : null;

export const createRoutine = defineOperation({
  ...write,
  id: 'routines.create',
  example: {
    name: 'Weekly digest',
    prompt: 'Summarize what customers said this week.',
    cron: '0 9 * * 1',
    timezone: 'Europe/Berlin',
    config: { depth: 'standard', write_outputs: true },
    enabled: true,
  },
  method: 'post',
  path: '/routines',
  summary: 'Create a routine: a prompt an agent runs on a cron',
  description:
    'Every field is checked before anything is stored (one 400 invalid_argument naming each problem): a five-field cron (no seconds), an IANA time zone, ' +
    'config keys (unknown and legacy `output_slug`/`full_regen` refused), `agent` not together with `config.agents`, agent refs of the roster, actions of the catalog. ' +
    "Fires run as the member who created the routine, with that credential's scopes (re-checked at every turn).",
  mcp: { tool: 'agents', action: 'create_routine' },
  body: CreateRoutineBody,
  output: RoutineSchema,
  successStatus: 201,
  idempotent: true,
  async handler(ctx, input) {
    const { db, clock } = ctx.services;
    const checked = await checkRoutine(db, ctx.caller.workspaceId, {
      name: input.name,
      prompt: input.prompt,
      cron: input.cron,
      timezone: input.timezone ?? 'UTC',
      agent: input.agent ?? null,
      config: input.config ?? {},
      enabled: input.enabled ?? true,
    });
    const now = clock.now();
    const [row] = await db
      .insert(routines)
      .values({
        id: newId(),
        workspaceId: ctx.caller.workspaceId,
        ...checked,
        createdBy: ctx.caller.userId,
        caller: runCallerOf(ctx.caller) as unknown as Record<string, unknown>,
        nextRunAt: nextRun(checked.enabled, checked.cron, checked.timezone, now),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return renderRoutine(row!);
  },
});

export const listRoutinesOperation = defineOperation({
  ...read,
  id: 'routines.list',
  method: 'get',
  path: '/routines',
  summary: 'List routines, newest first',
  mcp: { tool: 'agents', action: 'list_routines', resource: 'routine://list' },
  query: ListRoutinesQuery,
  output: z.object({
    routines: z.array(RoutineSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  }),
  async handler(ctx, input) {
    const { total, rows } = await listRoutines(ctx.services.db, ctx.caller.workspaceId, input.enabled, {
      limit: input.limit,
      offset: input.offset,
    });
    return { routines: rows.map(renderRoutine), total, limit: input.limit, offset: input.offset };
  },
});

export const getRoutine = defineOperation({
  ...read,
  id: 'routines.get',
  method: 'get',
  path: '/routines/{id}',
  summary: "Read a routine with its next run and its last fire's chat and run",
  mcp: { tool: 'agents', action: 'get_routine', resource: 'routine://{id}' },
  params: RoutineIdParams,
  output: RoutineSchema,
  async handler(ctx, input) {
    return renderRoutine(await getRoutineOrThrow(ctx.services.db, ctx.caller.workspaceId, input.id));
  },
});

export const updateRoutine = defineOperation({
  ...write,
  id: 'routines.update',
  example: { cron: '0 8 * * 1', enabled: false },
  method: 'patch',
  path: '/routines/{id}',
  summary: 'Change a routine (name, prompt, cron, timezone, agent, config, enabled)',
  description:
    '`agent: null` clears the pin; `config` replaces the whole config. The result is checked as a whole, as on create.',
  mcp: { tool: 'agents', action: 'update_routine' },
  params: RoutineIdParams,
  body: UpdateRoutineBody,
  output: RoutineSchema,
  async handler(ctx, input) {
    const { db, clock } = ctx.services;
    const current = await getRoutineOrThrow(db, ctx.caller.workspaceId, input.id);
    const checked = await checkRoutine(db, ctx.caller.workspaceId, {
      name: input.name ?? current.name,
      prompt: input.prompt ?? current.prompt,
      cron: input.cron ?? current.cron,
      timezone: input.timezone ?? current.timezone,
      agent: input.agent === undefined ? current.agent : input.agent,
      config: input.config ?? current.config,
      enabled: input.enabled ?? current.enabled,
    });
    const now = clock.now();
    const scheduleChanged =
      checked.cron !== current.cron || checked.timezone !== current.timezone || checked.enabled !== current.enabled;
    const [row] = await db
      .update(routines)
      .set({
        ...checked,
        // An unchanged schedule keeps its pending time (a scheduled time is never skipped by an edit).
        nextRunAt: scheduleChanged ? nextRun(checked.enabled, checked.cron, checked.timezone, now) : current.nextRunAt,
        updatedAt: now,
      })
      .where(and(eq(routines.workspaceId, ctx.caller.workspaceId), eq(routines.id, input.id)))
      .returning();
    if (!row) throw new ApiError('not_found', 'No such routine in this workspace.', { routine_id: input.id });
    return renderRoutine(row);
  },
});

export const deleteRoutine = defineOperation({
  ...write,
  id: 'routines.delete',
  method: 'delete',
  path: '/routines/{id}',
  summary: 'Delete a routine (its earlier chats and documents stay)',
  mcp: { tool: 'agents', action: 'delete_routine' },
  params: RoutineIdParams,
  output: z.object({ deleted: z.literal(true), id: z.uuid() }),
  async handler(ctx, input) {
    const deleted = await ctx.services.db
      .delete(routines)
      .where(and(eq(routines.workspaceId, ctx.caller.workspaceId), eq(routines.id, input.id)))
      .returning({ id: routines.id });
    if (deleted.length === 0)
      throw new ApiError('not_found', 'No such routine in this workspace.', { routine_id: input.id });
    return { deleted: true as const, id: input.id };
  },
});

export const runRoutineNow = defineOperation({
  ...write,
  id: 'routines.run_now',
  method: 'post',
  path: '/routines/{id}/run-now',
  summary: 'Fire a routine at once (also while it is disabled), as the member asking',
  description: "Answers the fire's handles at once (202): `chat_id`, `run_id`, `read_url`, `stream_url`, `resume_url`.",
  mcp: { tool: 'agents', action: 'run_routine_now' },
  params: RoutineIdParams,
  output: RunHandlesSchema,
  successStatus: 202,
  agentTool: false,
  async handler(ctx, input) {
    return fireNow(ctx.services, ctx.caller, input.id);
  },
});

export const routineOperations = [
  listRoutinesOperation,
  getRoutine,
  createRoutine,
  updateRoutine,
  deleteRoutine,
  runRoutineNow,
];
