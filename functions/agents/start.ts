import { and, count, eq, inArray, isNull } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { chats } from '../../schema/agents.js';
import { runs } from '../../schema/runs.js';
import { initialAgentState, type ThreadTurn } from './prompt.js';
import { agentKnowledgeContext } from '../knowledge/index.js';
import { recalledMemoryContext } from './memory-context.js';
import { DEFAULT_AGENT_SLUG } from './library.js';
import { findAgent, toResolvedAgent } from './repository.js';
import type { Queryable } from '../../platform/db/port.js';
import {
  AGENT_KINDS,
  AGENT_RUN_KIND,
  type AgentRunInput,
  type Depth,
  type OnQuestion,
  type Trigger,
} from './run-state.js';
import type { Caller } from '../identity/caller.js';
import { runCallerOf } from '../identity/run-caller.js';
import { API_PREFIX } from '../api-prefix.js';
import type { Services } from '../services.js';
import type { CommitScope } from '../../queues/pipeline.js';
import { appendChatMessage, chatMessagesOf, getChatOrThrow, insertChat } from './threads.js';

/**
 * Agent runs a workspace may have working at once (queued or running; paused runs hold nothing).
 * With the turn budget, this is what protects the service from a burst of agent work, since a
 * run's own tool calls are not throttled by the interactive per-user limits (docs/guides/api-basics.md, "Limits").
 */
export const MAX_ACTIVE_AGENT_RUNS = 10;
/** Earlier turns of a thread an agent sees (the newest ones). */
const HISTORY_TURNS = 20;
const NAME_CHARS = 80;

export interface StartAgentRun {
  input: string;
  chatId?: string | undefined;
  name?: string | undefined;
  agent?: string | undefined;
  onQuestion: OnQuestion;
  depth: Depth;
  trigger: Trigger;
  routineId?: string | null;
  /** The subscription whose fire starts this chat (GET /chats?subscription_id= lists it). */
  subscriptionId?: string | null;
  /** Agents the run may delegate to (null: any); a routine's `config.agents` narrows it. */
  delegateRoster?: string[] | null;
  /** The run kind: a chat run (default) or a research job; both run the same loop. */
  kind?: (typeof AGENT_KINDS)[number];
  /** What the run may pause for; by default all three with on_question "pause", none with "auto". */
  pauses?: AgentRunInput['pauses'];
  /** Whether the run may delegate (default: unless its depth is quick). */
  mayDelegate?: boolean;
  /** A routine fire: which routine, and what its config lets the run write. */
  routine?: AgentRunInput['routine'];
  /** A subscription fire: which subscription, and what its run_config lets the run write. */
  subscription?: AgentRunInput['subscription'];
  /**
   * Runs inside the start's transaction once the chat and run ids are known, before anything is
   * written for the run; throwing aborts the start (a fire someone else already started).
   */
  prepare?: (scope: CommitScope, ids: { runId: string; chatId: string }) => Promise<void>;
}

export interface AgentRunHandles {
  chat_id: string;
  run_id: string;
  status: 'queued';
  read_url: string;
  stream_url: string;
  resume_url: string;
}

/**
 * Start an agent run on a new or existing chat, atomically: the chat, the user's turn and the run
 * (with the thread so far in its transcript) are written in one transaction, and the first stage is
 * published after it commits. A chat runs one run at a time: a new turn while one is in progress is
 * `409 conflict`.
 */
export async function startAgentRun(
  services: Services,
  caller: Caller,
  request: StartAgentRun,
): Promise<AgentRunHandles> {
  const runId = newId();
  const now = services.clock.now();
  // The memory relevant to the question, recalled before the transaction (it embeds the question).
  const memory = await recalledMemoryContext(services, caller.workspaceId, request.input);
  const chatId = await services.engine.transaction(async (scope) => {
    const { tx } = scope;
    const [active] = await tx
      .select({ n: count() })
      .from(runs)
      .where(
        and(
          eq(runs.workspaceId, caller.workspaceId),
          inArray(runs.kind, [...AGENT_KINDS]),
          inArray(runs.status, ['queued', 'running']),
          isNull(runs.parentRunId),
        ),
      );
    const working = Number(active?.n ?? 0);
    if (working >= MAX_ACTIVE_AGENT_RUNS) {
      throw new ApiError(
        'rate_limited',
        `This workspace already has ${working} agent runs working (at most ${MAX_ACTIVE_AGENT_RUNS} at once); retry when one ends.`,
        {
          limit: MAX_ACTIVE_AGENT_RUNS,
          active: working,
          retry_after_seconds: 5,
        },
        { headers: { 'Retry-After': '5' } },
      );
    }

    const existing = request.chatId ? await getChatOrThrow(tx, caller.workspaceId, request.chatId) : null;
    if (existing?.lastRunId) {
      const [last] = await tx.select({ status: runs.status }).from(runs).where(eq(runs.id, existing.lastRunId));
      if (last && (last.status === 'queued' || last.status === 'running' || last.status === 'awaiting_input')) {
        throw new ApiError(
          'conflict',
          `This chat's last run is ${last.status}: wait for it, answer it, or cancel it before sending the next turn.`,
          {
            chat_id: existing.id,
            run_id: existing.lastRunId,
            current_status: last.status,
          },
        );
      }
    }
    const agent = await resolveAgentField(
      tx,
      caller.workspaceId,
      request.agent ?? existing?.agentSlug ?? DEFAULT_AGENT_SLUG,
    );
    const chat =
      existing ??
      (await insertChat(tx, {
        workspaceId: caller.workspaceId,
        name: request.name ?? nameFrom(request.input),
        agentSlug: agent.slug,
        agentId: agent.authored_by === 'tenant' ? agent.id : null,
        createdBy: caller.userId,
        routineId: request.routineId ?? null,
        subscriptionId: request.subscriptionId ?? null,
        now,
      }));
    const history: ThreadTurn[] = existing
      ? (await chatMessagesOf(tx, existing.id)).slice(-HISTORY_TURNS).map((m) => ({ role: m.role, content: m.content }))
      : [];
    const input: AgentRunInput = {
      chat_id: chat.id,
      message: request.input,
      agent,
      on_question: request.onQuestion,
      pauses: request.pauses ?? {
        question: request.onQuestion === 'pause',
        approval: request.onQuestion === 'pause',
        budget: request.onQuestion === 'pause',
      },
      depth: request.depth,
      trigger: request.trigger,
      may_delegate: request.mayDelegate ?? request.depth !== 'quick',
      delegate_roster: request.delegateRoster ?? null,
      routine: request.routine ?? null,
      subscription: request.subscription ?? null,
    };
    await request.prepare?.(scope, { runId, chatId: chat.id });
    // Read before the first turn: the member's pins first, then background (context, not evidence).
    const knowledge = await agentKnowledgeContext(tx, { workspaceId: caller.workspaceId, userId: caller.userId });
    await scope.startRun({
      workspaceId: caller.workspaceId,
      kind: request.kind ?? AGENT_RUN_KIND,
      runId,
      caller: runCallerOf(caller),
      input,
      state: initialAgentState(
        input,
        history,
        now,
        [knowledge.text, memory.text].filter((part): part is string => part !== null).join('\n') || null,
      ),
    });
    await appendChatMessage(tx, {
      workspaceId: caller.workspaceId,
      chatId: chat.id,
      runId,
      role: 'user',
      content: request.input,
      now,
    });
    await tx
      .update(chats)
      .set({
        lastRunId: runId,
        agentSlug: agent.slug,
        agentId: agent.authored_by === 'tenant' ? agent.id : null,
        ...(existing && request.name ? { name: request.name } : {}),
      })
      .where(eq(chats.id, chat.id));
    return chat.id;
  });
  return { chat_id: chatId, run_id: runId, status: 'queued', ...runUrls(services.config.publicUrl, runId) };
}

/** The agent a run is asked to run as; a ref that names no agent is the request's mistake (400 naming `agent`). */
async function resolveAgentField(db: Queryable, workspaceId: string, ref: string) {
  const found = await findAgent(db, workspaceId, ref);
  if (!found) {
    throw new ApiError(
      'invalid_argument',
      `Invalid request: agent: no agent "${ref}" in this workspace's roster (GET /agents lists it).`,
      {
        fields: [{ field: 'agent', problem: `no agent "${ref}"`, code: 'unknown_agent' }],
      },
    );
  }
  return toResolvedAgent(found.view);
}

/** Where a client follows a run: read (long-poll; SSE with Accept), stream, and resume. */
export function runUrls(
  publicUrl: string,
  runId: string,
): { read_url: string; stream_url: string; resume_url: string } {
  const base = `${publicUrl}${API_PREFIX}`;
  return {
    read_url: `${base}/chat/runs/${runId}`,
    stream_url: `${base}/chat/runs/${runId}/stream`,
    resume_url: `${base}/agents/${runId}/resume`,
  };
}

function nameFrom(input: string): string {
  const line = input.trim().split('\n')[0]?.trim() ?? '';
  return line.length > NAME_CHARS ? `${line.slice(0, NAME_CHARS - 1)}…` : line || 'Untitled chat';
}
