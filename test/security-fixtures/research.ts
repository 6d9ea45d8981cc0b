import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { pendingInputFor } from '../../functions/agents/pauses.js';
import { RESEARCH_KIND } from '../../functions/agents/run-state.js';
import { startAgentRun } from '../../functions/agents/start.js';
import { authenticateApiKey } from '../../functions/identity/api-keys.js';
import { runs } from '../../schema/index.js';
import type { Harness, SeededWorkspace } from '../support/harness.js';
import type { OperationRequest, SecurityFixture } from '../support/security-suite.js';
import { settle } from './chat.js';
import { readOnce } from './read-once.js';

/**
 * Security fixtures of research jobs: the reads of a workspace share one finished job (read-once.ts);
 * each probe that answers or cancels gets a job of its own, paused on a question.
 */

async function researchJob(h: Harness, ws: SeededWorkspace, paused: boolean): Promise<string> {
  const caller = await authenticateApiKey(h.database.db, ws.editor.key, h.services.clock.now());
  const { run_id } = await startAgentRun(h.services, caller, {
    kind: RESEARCH_KIND,
    input: 'Why do customers push back on pricing?',
    agent: 'researcher',
    onQuestion: 'pause',
    pauses: { question: true, approval: false, budget: false },
    depth: 'quick',
    trigger: 'api',
  });
  await settle(h);
  if (paused) {
    const pending = {
      kind: 'question' as const,
      call_id: 'suite-question',
      question: 'Which region?',
      options: [{ id: 'emea', label: 'EMEA' }],
    };
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
  }
  return run_id;
}

const finished = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await readOnce(ws, 'finished research job', () => researchJob(h, ws, false)) },
});
const paused = async ({ h, ws }: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  params: { id: await researchJob(h, ws, true) },
});
const answered = async (ctx: { h: Harness; ws: SeededWorkspace }): Promise<OperationRequest> => ({
  ...(await paused(ctx)),
  body: { answer: 'EMEA' },
});

export const researchFixtures: Record<string, SecurityFixture> = {
  'research.start': {
    request: async ({ h }) => {
      await settle(h);
      return { body: { question: 'Why do customers push back on pricing?' } };
    },
    tenancy: {
      kind: 'workspace',
      assertOwn: (data) => expect(data).toMatchObject({ success: true, status: 'queued' }),
    },
  },
  'research.status': { request: finished, tenancy: { kind: 'by_id', foreign: finished } },
  'research.respond': { request: answered, tenancy: { kind: 'by_id', foreign: answered } },
  'research.cancel': { request: paused, tenancy: { kind: 'by_id', foreign: paused } },
};
