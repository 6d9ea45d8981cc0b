import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { pendingInputFor } from '../../functions/agents/pauses.js';
import { newId } from '../../platform/ids.js';
import { agents, runs } from '../../schema/index.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';
import { finishedChat } from './chat.js';

/** Security fixtures of the agent library and run control. */

async function insertAgent(h: Harness, ws: SeededWorkspace): Promise<string> {
  const id = newId();
  await h.database.db.insert(agents).values({
    id,
    workspaceId: ws.id,
    slug: `suite-${id.slice(-12)}`,
    name: 'Suite agent',
    prompt: 'Answer from the data.',
    toolBlocklist: [],
  });
  return id;
}

/**
 * A run paused on a question, started by the workspace's viewer (the least-privileged member that
 * run control admits, for runs they started). Its pause is set directly: the local model never
 * needs to ask on an empty workspace.
 */
async function pausedRun(h: Harness, ws: SeededWorkspace): Promise<string> {
  const { run_id } = await finishedChat(h, ws, ws.viewer);
  const pending = { kind: 'question' as const, call_id: 'suite-question', question: 'Which region?', options: [] };
  await h.database.db
    .update(runs)
    .set({
      status: 'awaiting_input',
      stage: 'turn',
      completedAt: null,
      pendingInput: pendingInputFor(pending, { turns_used: 1, turn_budget: 10 }),
      state: { pending },
    })
    .where(eq(runs.id, run_id));
  return run_id;
}

const anAgent = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await insertAgent(h, ws) },
});
const aPausedRun = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { session_id: await pausedRun(h, ws) },
});
const anAnswer = async (ctx: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  ...(await aPausedRun(ctx)),
  body: { input: { response: 'EMEA' } },
});

export const agentFixtures: Record<string, SecurityFixture> = {
  'agents.list': {
    request: async ({ h, ws }) => {
      await insertAgent(h, ws);
      return {};
    },
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data.agents.map((a: { slug: string }) => a.slug)).toContain('researcher'),
    },
  },
  'agents.get': { request: anAgent, tenancy: { kind: 'by_id', foreign: anAgent } },
  'agents.create': {
    request: () => ({ body: { name: 'Suite made', prompt: 'Answer from the data.' } }),
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data.agent).toMatchObject({ authored_by: 'tenant', locked: false }),
    },
  },
  'agents.update': {
    request: async (ctx) => ({ ...(await anAgent(ctx)), body: { description: 'edited by the suite' } }),
    tenancy: {
      kind: 'by_id',
      foreign: async (ctx) => ({ ...(await anAgent(ctx)), body: { description: 'edited by the suite' } }),
    },
  },
  'agents.delete': { request: anAgent, tenancy: { kind: 'by_id', foreign: anAgent } },
  'agents.resume': { request: anAnswer, tenancy: { kind: 'by_id', foreign: anAnswer } },
  'agents.cancel': { request: aPausedRun, tenancy: { kind: 'by_id', foreign: aPausedRun } },
};
