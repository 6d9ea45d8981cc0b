import type { RunRow } from '../../queues/run-store.js';
import { AgentRunInputSchema, AgentRunStateSchema, WRITE_IN_OPTION, withCallerContext } from '../agents/index.js';
import type { ResearchView } from './schemas.js';

/** A research job's status as the spec names them: queued reads as running, awaiting input as needs_input. */
export function researchStatus(row: RunRow): ResearchView['status'] {
  switch (row.status) {
    case 'queued':
    case 'running':
      return 'running';
    case 'awaiting_input':
      return 'needs_input';
    default:
      return row.status;
  }
}

/** The question a research job is waiting on, from its pause (the choices end with the write-in `other`). */
export function questionForYou(row: RunRow): ResearchView['question_for_you'] {
  const pending = row.status === 'awaiting_input' ? row.pendingInput : null;
  if (pending?.type !== 'question') return null;
  const options = ((pending.context?.options as { id: string; label: string }[] | undefined) ?? []).map((o) => ({
    id: o.id,
    label: o.label,
  }));
  return {
    kind: options.length > 0 ? 'multiple_choice' : 'free_form',
    question: String(pending.context?.question ?? ''),
    options:
      options.length > 0 && !options.some((o) => o.id === WRITE_IN_OPTION.id)
        ? [...options, { ...WRITE_IN_OPTION }]
        : options,
  };
}

export function renderResearch(row: RunRow): ResearchView {
  const input = AgentRunInputSchema.parse(row.input);
  const state = AgentRunStateSchema.parse(row.state);
  return {
    research_id: row.id,
    chat_id: input.chat_id,
    status: researchStatus(row),
    question: input.message,
    question_for_you: questionForYou(row),
    answer: row.status === 'complete' ? state.answer : null,
    answered_questions: state.answered_questions,
    error: row.error ? row.error.message : null,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
  };
}

/** The question with the caller's context appended, as the job (and its read) sees it. */
export const researchQuestion = withCallerContext;
