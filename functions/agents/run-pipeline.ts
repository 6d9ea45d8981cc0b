import { agentTurn } from './loop.js';
import { replySchemaForPendingInput } from './pauses.js';
import { onAgentRunEnded } from './run-end.js';
import {
  AGENT_RUN_KIND,
  AgentRunInputSchema,
  RESEARCH_KIND,
  AgentRunStateSchema,
  type AgentRunInput,
  type AgentRunState,
} from './run-state.js';
import type { Services } from '../services.js';
import { definePipeline } from '../../queues/pipeline.js';

/**
 * An agent run: chat turns, research jobs, routine fires and delegated sub-tasks (agents.md). One
 * stage, `turn`, runs once per model turn and schedules itself until the run answers, pauses or
 * fails; a pause's reply is validated against the schema the pause published and handed to the
 * next turn as `state.reply`.
 */
const agentPipeline = (kind: string) =>
  definePipeline<Services, AgentRunInput, AgentRunState>({
    kind,
    input: AgentRunInputSchema,
    state: AgentRunStateSchema,
    stages: { turn: agentTurn },
    // A hosted model's step plus the tools it calls; the local model takes a fraction of this.
    deadlineMs: 120_000,
    retry: { maxAttempts: 4, baseDelayMs: 2_000, maxDelayMs: 30_000 },
    resume: { schema: replySchemaForPendingInput, apply: (reply) => ({ reply: reply as Record<string, unknown> }) },
    onTerminal: onAgentRunEnded,
  });

export const agentRunPipeline = agentPipeline(AGENT_RUN_KIND);
/** Research jobs: the same loop under their own kind, so a research read never shows a plain chat run. */
export const researchPipeline = agentPipeline(RESEARCH_KIND);
