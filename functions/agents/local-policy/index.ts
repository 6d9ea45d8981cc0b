import type { StepRequest, StepResult, StepTask } from '../../../platform/model/port.js';
import { readContext } from './context.js';
import { readIntent } from './intent.js';
import { nextStep } from './plans.js';
import { researchStep } from './research-plan.js';

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
  // The deep tier (research jobs) plans more facets on top of the chat plan; a routine's run keeps the
  // chat plan, whose answer it commits as a document before it answers.
  return ctx.depth === 'deep' && !ctx.routine ? researchStep(ctx, intent) : nextStep(ctx, intent);
}

export const agentStepTask: StepTask = { name: 'agent.step', local: localAgentStep };
