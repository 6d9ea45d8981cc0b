import { ApiError } from '../../platform/errors.js';
import type { RunRow } from '../../queues/run-store.js';
import { WRITE_IN_OPTION } from '../agents/index.js';
import { RESEARCH_KIND } from '../agents/index.js';
import { startAgentRun } from '../agents/index.js';
import { defineOperation } from '../registry.js';
import { defineRunCancel, defineRunRead, defineRunResume } from '../runs/run-operations.js';
import { questionForYou, renderResearch, researchQuestion, researchStatus } from './render.js';
import { RespondBody, ResearchSchema, StartedResearchSchema, StartResearchBody } from './schemas.js';

/**
 * Research jobs (spec: Research job, Research endpoints): one investigation by the library agent
 * `researcher`, on the agent loop like any chat run (and listed as a chat), under its own run kind.
 * It may pause only to ask a clarifying question; a spent budget completes it with a partial answer.
 */

const common = { tags: ['Research'], stability: 'beta' as const, visibility: 'public' as const };
const runs = {
  tags: ['Research'],
  stability: 'beta' as const,
  idParam: 'id',
  kinds: [RESEARCH_KIND],
  malformedIdIsNotFound: true,
  minRole: 'viewer' as const,
};

export const startResearch = defineOperation({
  ...common,
  id: 'research.start',
  example: {
    question: 'Why do customers push back on pricing?',
    context: 'For the Q3 pricing review',
    allow_questions: false,
  },
  method: 'post',
  path: '/research',
  summary: 'Start a research job: a cited answer to a question about your customers',
  description:
    'Answers at once (202); read the job with `GET /research/{id}` (`wait_ms` long-polls). Counted toward the monthly research cap (100 per workspace) when accepted. ' +
    'With `allow_questions` (default) the job may pause with `status: needs_input` and a `question_for_you`; answer it with `POST /research/{id}/respond`. ' +
    'Send `Idempotency-Key` to make a retry safe.',
  scopes: ['conversations:write'],
  minRole: 'viewer',
  mcp: { tool: 'research', action: 'start' },
  body: StartResearchBody,
  output: StartedResearchSchema,
  successStatus: 202,
  quota: 'research',
  idempotent: true,
  agentTool: false,
  async handler(ctx, input) {
    const allow = input.allow_questions ?? true;
    const handles = await startAgentRun(ctx.services, ctx.caller, {
      kind: RESEARCH_KIND,
      input: researchQuestion(input.question, input.context),
      name: input.question,
      agent: 'researcher',
      onQuestion: allow ? 'pause' : 'auto',
      pauses: { question: allow, approval: false, budget: false },
      // Research goes deeper than chat: the deep tier's turn budget and the research plan (prompt.ts).
      depth: 'deep',
      trigger: ctx.origin === 'mcp' ? 'mcp' : 'api',
    });
    return { success: true as const, research_id: handles.run_id, chat_id: handles.chat_id, status: 'queued' as const };
  },
});

export const readResearch = defineRunRead({
  ...runs,
  id: 'research.status',
  path: '/research/{id}',
  summary: 'Read a research job: status, the question for you, the answer',
  description:
    "`wait_ms` (up to 30,000) holds the request until the job changes, ends or needs input. With `Accept: text/event-stream`, the job's events. " +
    "A malformed, unknown or other workspace's id, or the id of a chat run that is not research, is 404.",
  scopes: ['conversations:read'],
  mcp: { tool: 'research', action: 'status', resource: 'research://{id}' },
  output: ResearchSchema,
  render: async (_ctx, row) => renderResearch(row),
});

/**
 * The reply a research answer makes to the job's question: a choice by `option_id` (its text then
 * ignored unless it is `other`), a choice by its label, or a write-in; free-form questions take the text.
 */
function replyTo(row: RunRow, input: { answer: string; option_id?: string | undefined }): Record<string, unknown> {
  const question = questionForYou(row);
  if (!question || question.kind === 'free_form') return { response: input.answer };
  const choices = question.options.filter((o) => o.id !== WRITE_IN_OPTION.id);
  if (input.option_id === WRITE_IN_OPTION.id) return { option_id: WRITE_IN_OPTION.id, response: input.answer };
  if (input.option_id !== undefined) return { option_id: input.option_id };
  const byLabel = choices.find((o) => o.label.trim().toLowerCase() === input.answer.trim().toLowerCase());
  return byLabel ? { option_id: byLabel.id } : { option_id: WRITE_IN_OPTION.id, response: input.answer };
}

export const respondToResearch = defineRunResume({
  ...runs,
  id: 'research.respond',
  example: { answer: 'Enterprise accounts only' },
  path: '/research/{id}/respond',
  summary: 'Answer the question a research job is waiting on; the job resumes',
  description:
    'Not waiting for an answer: 409 conflict with `details.current_status`. An `option_id` that is not one of the choices: 400 invalid_argument naming it.',
  scopes: ['conversations:write'],
  mcp: { tool: 'research', action: 'respond' },
  body: RespondBody,
  reply: (input, row) => replyTo(row, input),
  mapError: (error, row) => {
    if (error.code === 'invalid_state') {
      return new ApiError('conflict', `The research job is ${researchStatus(row)}, not waiting for an answer.`, {
        current_status: researchStatus(row),
      });
    }
    if (error.code === 'invalid_input') {
      const allowed = questionForYou(row)?.options.map((o) => o.id) ?? [];
      return new ApiError('invalid_argument', `Invalid request: option_id must be one of: ${allowed.join(', ')}`, {
        fields: [{ field: 'option_id', problem: 'not one of the offered choices', code: 'invalid_value', allowed }],
      });
    }
    return error;
  },
  output: ResearchSchema,
  render: async (_ctx, row) => renderResearch(row),
});

export const cancelResearch = defineRunCancel({
  ...runs,
  id: 'research.cancel',
  example: { reason: 'Asked the wrong question' },
  path: '/research/{id}/cancel',
  summary: 'Cancel a research job that is running or needs input',
  description: 'An ended job (complete, failed, canceled) is 409 conflict with `details.current_status`.',
  scopes: ['conversations:write'],
  mcp: { tool: 'research', action: 'cancel' },
  whenEnded: (status) =>
    new ApiError('conflict', `The research job has already ended (${status}).`, { current_status: status }),
  output: ResearchSchema,
  render: async (_ctx, row) => renderResearch(row),
});

export const researchOperations = [startResearch, readResearch, respondToResearch, cancelResearch];
