import { z } from '@hono/zod-openapi';
import { ApiError } from '../../platform/errors.js';
import type { RunRow } from '../../queues/run-store.js';
import { roleAtLeast } from '../identity/scopes.js';
import { defineOperation, type OperationContext } from '../registry.js';
import { defineRunCancel, defineRunResume } from '../runs/run-operations.js';
import { isoTimestamp, listLimitQuery } from '../schemas.js';
import {
  deleteAgent,
  getAgentOrThrow,
  insertAgentDerivingSlug,
  insertAgentWithSlug,
  listAgents,
  updateAgent,
  workspaceView,
} from './repository.js';
import { AGENT_KINDS } from './run-state.js';
import {
  AgentRefParams,
  AgentSchema,
  AgentSummarySchema,
  CreateAgentBody,
  UpdateAgentBody,
  type AgentView,
} from './schemas.js';

const common = { tags: ['Agents'], stability: 'stable' as const, visibility: 'public' as const };
const read = { ...common, scopes: ['agents:read'] as const, minRole: 'viewer' as const };
const write = { ...common, scopes: ['agents:write'] as const, minRole: 'editor' as const };

const summary = ({ prompt: _prompt, ...rest }: AgentView) => rest;

export const listAgentsOperation = defineOperation({
  ...read,
  id: 'agents.list',
  method: 'get',
  path: '/agents',
  summary: "The agent roster: library agents first, then the workspace's own",
  description:
    'No paging (`limit` keeps the first ones; `total` counts the roster); prompts are left out of the list (read one agent for its prompt).',
  mcp: { tool: 'agents', action: 'list_agents', resource: 'agent://list' },
  query: z.object(listLimitQuery).strict(),
  output: z.object({ agents: z.array(AgentSummarySchema), total: z.number().int() }),
  async handler(ctx, input) {
    const roster = await listAgents(ctx.services.db, ctx.caller.workspaceId);
    return { agents: roster.slice(0, input.limit ?? roster.length).map(summary), total: roster.length };
  },
});

export const getAgentOperation = defineOperation({
  ...read,
  id: 'agents.get',
  method: 'get',
  path: '/agents/{id}',
  summary: 'Read one agent, by uuid or slug, with its prompt',
  mcp: { tool: 'agents', action: 'get_agent', resource: 'agent://{id}' },
  params: AgentRefParams,
  output: AgentSchema,
  async handler(ctx, input) {
    return (await getAgentOrThrow(ctx.services.db, ctx.caller.workspaceId, input.id)).view;
  },
});

/** Every blocklist entry must name a live operation; the first unknown one is named. */
function checkBlocklist(ctx: OperationContext, blocklist: readonly string[] | undefined): string[] | undefined {
  if (!blocklist) return undefined;
  const problems = blocklist
    .map((id, i) => ({ id, i }))
    .filter(({ id }) => !ctx.services.registry.get(id))
    .map(({ id, i }) => ({
      field: `tool_blocklist.${i}`,
      problem: `unknown operation id "${id}"`,
      code: 'unknown_operation',
    }));
  if (problems.length > 0) {
    throw new ApiError(
      'invalid_argument',
      `Invalid request: tool_blocklist: unknown operation id "${blocklist[Number(problems[0]!.field.split('.')[1])]}" (operation ids are the operationId values of openapi.json)`,
      {
        fields: problems,
      },
    );
  }
  return [...new Set(blocklist)];
}

const MutationSchema = z.object({ success: z.literal(true), agent: AgentSchema });

export const createAgentOperation = defineOperation({
  ...write,
  id: 'agents.create',
  example: {
    name: 'Renewal watcher',
    slug: 'renewal-watcher',
    prompt: 'Read the week’s calls with accounts renewing this quarter and flag risks with quotes.',
    description: 'Flags renewal risks',
  },
  method: 'post',
  path: '/agents',
  summary: 'Create a workspace agent',
  description:
    "Without `slug`, one is derived from the name and made unique with -2, -3, ...; a supplied slug that is taken, or that is a library agent's, is 409 slug_conflict. " +
    '`tool_blocklist` entries are operation ids checked against the live registry. Send `Idempotency-Key` to make a retry safe.',
  mcp: { tool: 'agents', action: 'create_agent' },
  body: CreateAgentBody,
  output: MutationSchema,
  successStatus: 201,
  idempotent: true,
  async handler(ctx, input) {
    const { db, clock } = ctx.services;
    const agent = {
      name: input.name,
      prompt: input.prompt,
      description: input.description ?? null,
      toolBlocklist: checkBlocklist(ctx, input.tool_blocklist) ?? [],
      createdBy: ctx.caller.userId,
    };
    const row = input.slug
      ? await insertAgentWithSlug(db, ctx.caller.workspaceId, input.slug, agent, clock.now())
      : await insertAgentDerivingSlug(db, ctx.caller.workspaceId, agent, clock.now());
    return { success: true as const, agent: workspaceView(row) };
  },
});

/** A library agent refuses edits and deletes (409 locked); a workspace agent is returned with its row. */
async function editable(ctx: OperationContext, ref: string) {
  const found = await getAgentOrThrow(ctx.services.db, ctx.caller.workspaceId, ref);
  if (!found.row)
    throw new ApiError(
      'locked',
      `${found.view.slug} is a library agent: it cannot be edited or deleted. Create your own agent instead.`,
      { agent: found.view.slug },
    );
  return found.row;
}

export const updateAgentOperation = defineOperation({
  ...write,
  id: 'agents.update',
  example: {
    prompt: 'Read the week’s calls and emails with accounts renewing this quarter and flag risks with quotes.',
  },
  method: 'patch',
  path: '/agents/{id}',
  summary: 'Revise a workspace agent (name, description, prompt, tool_blocklist); its slug never changes',
  description: 'A `slug` in the body is accepted and ignored. Library agents answer 409 locked.',
  mcp: { tool: 'agents', action: 'update_agent' },
  params: AgentRefParams,
  body: UpdateAgentBody,
  output: MutationSchema,
  async handler(ctx, input) {
    const row = await editable(ctx, input.id);
    const blocklist = checkBlocklist(ctx, input.tool_blocklist);
    const updated = await updateAgent(
      ctx.services.db,
      ctx.caller.workspaceId,
      row.id,
      {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(blocklist ? { toolBlocklist: blocklist } : {}),
      },
      ctx.services.clock.now(),
    );
    return { success: true as const, agent: workspaceView(updated) };
  },
});

export const deleteAgentOperation = defineOperation({
  ...write,
  id: 'agents.delete',
  method: 'delete',
  path: '/agents/{id}',
  summary: 'Delete a workspace agent (its past runs and chats stay readable)',
  mcp: { tool: 'agents', action: 'delete_agent' },
  params: AgentRefParams,
  output: z.object({ success: z.literal(true), deleted: z.literal(true), id: z.uuid(), slug: z.string() }),
  async handler(ctx, input) {
    const row = await editable(ctx, input.id);
    if (!(await deleteAgent(ctx.services.db, ctx.caller.workspaceId, row.id)))
      throw new ApiError('not_found', 'No such agent in this workspace.', { agent: input.id });
    return { success: true as const, deleted: true as const, id: row.id, slug: row.slug };
  },
});

// ---- run control -----------------------------------------------------------------------------

/**
 * Who may answer or cancel a run: editors and admins any run of the workspace; a viewer only the
 * runs they started (answering your own run's question is part of asking it).
 */
function mayControl(ctx: OperationContext, row: RunRow): void {
  if (roleAtLeast(ctx.caller.role, 'editor') || row.createdBy === ctx.caller.userId) return;
  throw new ApiError(
    'insufficient_role',
    'Only the member who started this run, or an editor or admin, may answer or cancel it.',
    { required_role: 'editor', role: ctx.caller.role },
  );
}

const control = {
  tags: ['Agents'],
  scopes: ['workflows:write'] as const,
  minRole: 'viewer' as const,
  stability: 'stable' as const,
  idParam: 'session_id',
  kinds: AGENT_KINDS,
  authorize: mayControl,
};

const ResumedSchema = z.object({
  session_id: z.uuid(),
  conversation_id: z.uuid().openapi({ description: 'The chat id.' }),
  status: z.literal('queued'),
  message: z.string(),
  job_id: z.uuid().openapi({ description: "The run id (the same as session_id): read it at the run's read_url." }),
});

export const resumeRun = defineRunResume({
  ...control,
  id: 'agents.resume',
  example: { input: { option_id: 'acme-logistics' } },
  path: '/agents/{session_id}/resume',
  summary: 'Answer a paused run (question, approval, or continue-or-finish); it is queued again',
  description:
    "Body `{input: <reply>}`, the reply matching the run's `pending_input_schema`: `question` → `{response}` or `{option_id}` (`other` with `response`); " +
    '`approval` → `{approved: true}` or `{approved: false, feedback}`; `continue_or_finish` → `{action: "continue", additional_turns}` or `{action: "finish"}`. ' +
    'A reply outside the schema is 400 invalid_input with `details.validation_error` (the run is unchanged); a run not paused is 409 invalid_state with `details.current_status`.',
  mcp: { tool: 'agents', action: 'respond' },
  body: z
    .object({
      input: z.record(z.string(), z.unknown()).openapi({ description: 'The reply (see pending_input_schema).' }),
    })
    .strict(),
  reply: (input) => input.input,
  output: ResumedSchema,
  render: async (_ctx, row) => ({
    session_id: row.id,
    conversation_id: String(row.input.chat_id),
    status: 'queued' as const,
    message: 'Resumed: the run is queued and continues from where it paused.',
    job_id: row.id,
  }),
});

export const cancelRun = defineRunCancel({
  ...control,
  id: 'agents.cancel',
  example: { reason: 'No longer needed' },
  path: '/agents/{session_id}/cancel',
  summary: 'Cancel a run (and the runs it delegated to); the turn stays in the chat',
  description:
    'Any non-terminal run becomes `canceled` at once; its worker stops at its next checkpoint. An ended run is 409 cannot_cancel with `details.current_status`. `reason` is kept in the run.canceled event only.',
  mcp: { tool: 'agents', action: 'cancel_chat' },
  whenEnded: (status) =>
    new ApiError('cannot_cancel', `The run has already ended (${status}).`, { current_status: status }),
  output: z.object({
    session_id: z.uuid(),
    conversation_id: z.uuid(),
    status: z.literal('canceled'),
    canceled_at: isoTimestamp(),
  }),
  render: async (_ctx, row) => ({
    session_id: row.id,
    conversation_id: String(row.input.chat_id),
    status: 'canceled' as const,
    canceled_at: (row.completedAt ?? row.updatedAt).toISOString(),
  }),
});

export const agentOperations = [
  listAgentsOperation,
  getAgentOperation,
  createAgentOperation,
  updateAgentOperation,
  deleteAgentOperation,
  resumeRun,
  cancelRun,
];
