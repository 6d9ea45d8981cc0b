import type { CommitScope, RunView } from '../../queues/pipeline.js';
import type { RunStatus } from '../../schema/runs.js';
import { appendChatMessage } from './threads.js';
import { emitEvent } from '../webhooks/index.js';
import type { Answer } from './answer.js';
import { AgentRunInputSchema } from './run-state.js';

/**
 * When an agent run ends (complete, failed or canceled), inside the transaction that ended it:
 * a delegated run wakes its parent; a top-level run writes its reply into the chat's thread (the
 * answer, or what happened instead, so a canceled turn stays in the history) and emits
 * `session.completed` to the workspace's webhooks.
 */
export async function onAgentRunEnded(run: RunView & { status: RunStatus }, scope: CommitScope): Promise<void> {
  if (run.parentRunId) {
    await scope.wakeRun(run.parentRunId);
    return;
  }
  const input = AgentRunInputSchema.safeParse(run.input);
  if (!input.success) return;
  const state = run.state as { answer?: Answer | null; draft_text?: string | null };
  const answer = run.status === 'complete' ? (state.answer ?? null) : null;
  const content =
    answer?.text ??
    (run.status === 'canceled'
      ? `Canceled${state.draft_text ? ` after: ${state.draft_text}` : ' before an answer was written.'}`
      : `The run failed: ${run.error?.message ?? 'see the run for details.'}`);
  await appendChatMessage(scope.tx, {
    workspaceId: run.workspaceId,
    chatId: input.data.chat_id,
    runId: run.id,
    role: 'assistant',
    content,
    answer: answer as unknown as Record<string, unknown> | null,
    status: run.status,
    now: scope.now,
  });
  await emitEvent(scope, {
    workspaceId: run.workspaceId,
    type: 'session.completed',
    at: scope.now,
    data: {
      session_id: run.id,
      run_id: run.id,
      chat_id: input.data.chat_id,
      conversation_id: input.data.chat_id,
      status: run.status,
      agent: { id: input.data.agent.id, slug: input.data.agent.slug, name: input.data.agent.name },
      trigger: input.data.trigger,
      partial: answer?.partial ?? null,
      error: run.error ? { code: run.error.code, message: run.error.message } : null,
    },
  });
}
