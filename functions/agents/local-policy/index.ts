import type { StepRequest, StepResult, StepTask } from '../../../platform/model/port.js';
import { readContext } from './context.js';
import { readIntent } from './intent.js';
import { focusedStep } from './agent-focus.js';

/**
 * The embedded default's agent model (agents.md, "The model step", local provider): a deterministic
 * policy that does honest retrieval with the same tools a hosted model gets — read the ask, run the
 * searches that fit it, compose the answer only from what they returned — and asks a clarifying
 * question only when the data itself is ambiguous (a company name matching several accounts).
 * Stateless: the next step is a pure function of the transcript.
 */
export function localAgentStep(request: StepRequest): StepResult {
  const ctx = readContext(request);
  // When the budget is spent only final_answer is offered: that is not a missing search tool.
  const intent = readIntent(ctx.ask, ctx.earlierAsks, ctx.today, ctx.tools.has('search_query') || ctx.mustFinish);
  // The agent's focus and the depth tier decide how far the plan goes (agent-focus.ts).
  return focusedStep(ctx, intent);
}

export const agentStepTask: StepTask = { name: 'agent.step', local: localAgentStep };
