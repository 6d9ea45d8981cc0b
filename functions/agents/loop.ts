import { askedQuestion } from './asked-question.js';
import { rerunCitedQuery } from './cited-query.js';
import { newId } from '../../platform/ids.js';
import type { AgentMessage, StepResult, ToolCall } from '../../platform/model/port.js';
import { loadRun } from '../../queues/run-store.js';
import type { RunEventDraft, StageResult, TypedStageContext } from '../../queues/pipeline.js';
import { memoOf, type InvocationResult } from '../invoke.js';
import type { Operation } from '../registry.js';
import { invocationForRun, type RunInvocation } from '../runs/invocation.js';
import type { Services } from '../services.js';
import { AnswerDraftSchema, type Answer, type AnswerDraft } from './answer.js';
import { AnswerDeltas } from './answer-deltas.js';
import { verifyAnswer } from './grounding.js';
import { agentStepTask } from './local-policy/index.js';
import { pendingInputFor } from './pauses.js';
import { getAgentOrThrow, toResolvedAgent } from './repository.js';
import { initialAgentState } from './prompt.js';
import {
  AGENT_RUN_KIND,
  headlessFireOf,
  TOKEN_BUDGET,
  type AgentRunInput,
  type AgentRunState,
  type Pending,
} from './run-state.js';
import { ASK_USER, AskUserArgsSchema, DELEGATE, DelegateArgsSchema, FINAL_ANSWER } from './tool-names.js';
import { journaled } from './tool-journal.js';
import { toolLabel, toolSummary } from './tool-labels.js';
import { buildToolbox, offeredTools, type Toolbox } from './tools.js';
import { searchesIn, toolResultContent } from './transcript.js';

/**
 * One turn of an agent run (agents.md, "A run, turn by turn"): one stage delivery = re-check the
 * caller → take in what the last pause or child brought back → check the budget → ask the model for
 * its next step → execute the tool calls it chose → commit the transcript, the events and the next
 * stage together. Chat, research, routines and evals all run this loop; they differ only in input.
 */

type TurnContext = TypedStageContext<Services, AgentRunInput, AgentRunState>;
type TurnResult = StageResult<AgentRunState>;
/** A tool's result in the transcript: an operation's (InvocationResult) or one the loop gives (skipped, proposal...). */
type ToolResult = InvocationResult | { ok: false; error: { code: string; message: string } };

/** How long a parent waits before looking at its child again if the child's end does not wake it. */
const CHILD_POLL_SECONDS = 120;

export async function agentTurn(ctx: TurnContext): Promise<TurnResult> {
  const invocation = await invocationForRun(ctx.services, ctx.run, ctx.signal);
  const turn = new TurnBuilder(ctx, invocation);

  // 1. What came back while the run waited: the user's reply, or a child's answer.
  if (ctx.state.pending?.kind === 'child') {
    const settled = await turn.collectChild(ctx.state.pending);
    if (!settled) return turn.waitForChild();
  } else if (ctx.state.reply && ctx.state.pending) {
    const outcome = await turn.applyReply(ctx.state.pending, ctx.state.reply);
    if (outcome) return outcome;
  }

  // 2. The budget: spent turns pause (on_question: pause) or finish with the best answer so far.
  if (!turn.state.finishing) {
    const tokens = (turn.state.usage.input_tokens ?? 0) + (turn.state.usage.output_tokens ?? 0);
    if (tokens >= TOKEN_BUDGET[ctx.input.depth]) turn.state.finishing = 'usage_limit';
    else if (turn.state.turns_used >= turn.state.turn_budget) {
      if (ctx.input.pauses.budget) return turn.pause({ kind: 'continue_or_finish' });
      turn.state.finishing = 'turn_limit';
    }
  }

  // 3. The model's step, saved before anything acts on it.
  const toolbox = buildToolbox(ctx.services.registry, invocation.caller, {
    blocklist: ctx.input.agent.tool_blocklist,
    offered: offeredTools(ctx.input.agent),
    mayAsk: ctx.input.pauses.question,
    mayDelegate: ctx.input.may_delegate,
  });
  const number = turn.state.turns_used + 1;
  turn.events.push({ type: 'turn.started', data: { turn: number } });
  const finishing = turn.state.finishing !== null;
  const tools = finishing ? toolbox.specs.filter((t) => t.name === FINAL_ANSWER) : toolbox.specs;
  const deltas = new AnswerDeltas(ctx.emit);
  const { result: step } = await journaled(
    ctx.services.db,
    turn.journalEntry(`t${number}:step`, 'model.step', {}),
    async () =>
      stepRecord(
        await ctx.services.model.step(
          agentStepTask,
          { messages: turn.state.messages, tools, toolChoice: finishing ? 'required' : 'auto' },
          { signal: ctx.signal, onDelta: deltas.push },
        ),
      ),
  );
  await deltas.flush();
  turn.recordStep(step, number);

  // 4. The calls, in order; the first that ends the turn (answer, question, approval, child) stops the rest.
  const calls = step.tool_calls;
  if (calls.length === 0) return turn.finish({ text: step.content ?? '', content_blocks: [], follow_ups: [] }, null);
  for (const [index, call] of calls.entries()) {
    await ctx.checkpoint();
    const stop = await turn.call(call, toolbox, number);
    if (stop) {
      turn.skipRest(calls.slice(index + 1), 'not run: an earlier call in the same step ended the turn');
      return stop;
    }
  }
  if (finishing) return turn.finish(null, null);
  return turn.next();
}

/**
 * A routine's or a subscription's run has no one to ask, but its config says what it may write:
 * documents (the operation applies the commit gate, write_outputs included), cataloged actions
 * (the operation applies actions_allowed) and memory when its config says write_memory. Every
 * other write of such a run becomes a proposal.
 */
function routineMayWrite(input: AgentRunInput, op: Operation): boolean {
  const fire = headlessFireOf(input);
  if (fire === null) return false;
  if (op.id === 'memory.remember') return fire.write_memory;
  return op.id === 'outputs.write_doc' || op.id.startsWith('actions.');
}

/** A StepResult as the journal stores it (plain JSON). */
const stepRecord = (step: StepResult): Record<string, unknown> & StepResult => ({
  content: step.content,
  tool_calls: step.tool_calls,
  usage: step.usage,
});

/** The state of one turn as it is built up, and the stage result it ends in. */
class TurnBuilder {
  readonly state: AgentRunState;
  readonly events: RunEventDraft[] = [];
  readonly #effects: ((scope: Parameters<NonNullable<TurnResult['effects']>>[0]) => Promise<void>)[] = [];

  constructor(
    private readonly ctx: TurnContext,
    private readonly invocation: RunInvocation,
  ) {
    this.state = structuredClone(ctx.state);
  }

  journalEntry(key: string, tool: string, args: Record<string, unknown>) {
    return { runId: this.ctx.run.id, workspaceId: this.ctx.run.workspaceId, key, tool, arguments: args };
  }

  recordStep(step: StepResult, number: number): void {
    this.state.turns_used = number;
    this.state.messages.push({
      role: 'assistant',
      content: step.content,
      ...(step.tool_calls.length > 0 ? { tool_calls: step.tool_calls } : {}),
    });
    if (step.content) this.state.draft_text = step.content;
    if (step.usage) {
      this.state.usage = {
        input_tokens: (this.state.usage.input_tokens ?? 0) + (step.usage.input_tokens ?? 0),
        output_tokens: (this.state.usage.output_tokens ?? 0) + (step.usage.output_tokens ?? 0),
      };
    }
  }

  #toolMessage(call: ToolCall, result: ToolResult): void {
    this.state.messages.push({
      role: 'tool',
      tool_call_id: call.id,
      name: call.name,
      content: toolResultContent(result),
    });
  }

  skipRest(calls: readonly ToolCall[], why: string): void {
    for (const call of calls) this.#toolMessage(call, { ok: false, error: { code: 'skipped', message: why } });
  }

  /** Execute one tool call; a result that ends the turn (pause, answer, child) is returned. */
  async call(call: ToolCall, toolbox: Toolbox, number: number): Promise<TurnResult | null> {
    if (call.name === FINAL_ANSWER) {
      const parsed = AnswerDraftSchema.safeParse(call.arguments);
      if (!parsed.success) {
        this.#toolMessage(call, {
          ok: false,
          error: {
            code: 'invalid_argument',
            message: `final_answer arguments do not match its schema: ${parsed.error.issues
              .slice(0, 3)
              .map((i) => `${i.path.join('.')}: ${i.message}`)
              .join('; ')}`,
          },
        });
        return null;
      }
      return this.finish(parsed.data, call);
    }
    if (call.name === ASK_USER) return this.#askUser(call, toolbox);
    if (call.name === DELEGATE) return this.#delegate(call, toolbox);
    const op = toolbox.operations.get(call.name);
    const label = toolLabel(op ?? null, call.name, call.arguments);
    if (!op) {
      this.#toolMessage(call, {
        ok: false,
        error: { code: 'invalid_argument', message: `No tool named ${call.name} is offered to this run.` },
      });
      return null;
    }
    if (op.method !== 'get' && !op.readOnly && !routineMayWrite(this.ctx.input, op)) {
      // A write: with a person to ask, ask; without one (on_question auto, research, routine fires) it becomes a proposal.
      if (this.ctx.input.pauses.approval) {
        return this.pause({
          kind: 'approval',
          call_id: call.id,
          tool: call.name,
          operation: op.id,
          arguments: call.arguments,
          label,
        });
      }
      this.state.proposals.push({ tool: call.name, operation: op.id, arguments: call.arguments });
      this.#toolMessage(call, {
        ok: false,
        error: {
          code: 'proposal',
          message: `Not done: ${op.id} changes the workspace and this run cannot ask for approval, so it is recorded as a proposal for a person to make.`,
        },
      });
      return null;
    }
    await this.#execute(call, op, label, `t${number}:${call.id}`);
    return null;
  }

  async #execute(call: ToolCall, op: Operation, label: string, key: string): Promise<void> {
    this.events.push({ type: 'tool.started', data: { tool: call.name, label } });
    const startedAt = performance.now();
    const { result, replayed } = await journaled(
      this.ctx.services.db,
      this.journalEntry(key, call.name, call.arguments),
      async () => (await this.invocation.invoke(op.id, call.arguments)) as InvocationResult & Record<string, unknown>,
    );
    // ms: how long the call took this time (a replay from the journal takes next to nothing).
    const ms = Math.round(performance.now() - startedAt);
    this.events.push({
      type: 'tool.completed',
      data: {
        tool: call.name,
        label,
        ok: result.ok,
        summary: toolSummary(result),
        ms,
        ...(replayed ? { replayed: true } : {}),
      },
    });
    this.#toolMessage(call, result);
  }

  #askUser(call: ToolCall, toolbox: Toolbox): TurnResult | null {
    const parsed = AskUserArgsSchema.safeParse(call.arguments);
    if (!toolbox.specs.some((t) => t.name === ASK_USER)) {
      this.#toolMessage(call, {
        ok: false,
        error: {
          code: 'not_available',
          message: 'This run cannot pause to ask: pick the most likely reading and say which one you chose.',
        },
      });
      return null;
    }
    if (!parsed.success) {
      this.#toolMessage(call, {
        ok: false,
        error: { code: 'invalid_argument', message: 'ask_user needs {question, options?[{id, label}]}.' },
      });
      return null;
    }
    this.events.push({
      type: 'tool.started',
      data: { tool: ASK_USER, label: toolLabel(null, ASK_USER, call.arguments) },
    });
    return this.pause({
      kind: 'question',
      call_id: call.id,
      question: parsed.data.question,
      options: parsed.data.options ?? [],
    });
  }

  async #delegate(call: ToolCall, toolbox: Toolbox): Promise<TurnResult | null> {
    const parsed = DelegateArgsSchema.safeParse(call.arguments);
    const refuse = (code: string, message: string) => {
      this.#toolMessage(call, { ok: false, error: { code, message } });
      return null;
    };
    if (!toolbox.specs.some((t) => t.name === DELEGATE)) return refuse('not_available', 'This run cannot delegate.');
    if (!parsed.success) return refuse('invalid_argument', 'delegate needs {agent, task}.');
    const roster = this.ctx.input.delegate_roster;
    let target;
    try {
      target = toResolvedAgent(
        (await getAgentOrThrow(this.ctx.services.db, this.ctx.run.workspaceId, parsed.data.agent)).view,
      );
    } catch {
      return refuse('not_found', `No agent "${parsed.data.agent}" in this workspace's roster.`);
    }
    if (roster && !roster.includes(target.slug) && !roster.includes(target.id)) {
      return refuse('forbidden', `This run may delegate only to: ${roster.join(', ')}.`);
    }
    const childId = newId();
    const input: AgentRunInput = {
      chat_id: this.ctx.input.chat_id,
      message: parsed.data.task,
      agent: target,
      on_question: 'auto',
      pauses: { question: false, approval: false, budget: false },
      depth: 'quick',
      trigger: 'delegate',
      may_delegate: false,
      delegate_roster: null,
      // A delegated run only reads and reports back; the parent decides what to write.
      routine: null,
      subscription: null,
    };
    const { run } = this.ctx;
    this.#effects.push(async (scope) => {
      await scope.startRun({
        workspaceId: run.workspaceId,
        kind: AGENT_RUN_KIND,
        runId: childId,
        parentRunId: run.id,
        caller: run.caller,
        input,
        state: initialAgentState(input, [], scope.now),
      });
    });
    this.events.push({
      type: 'tool.started',
      data: { tool: DELEGATE, label: toolLabel(null, DELEGATE, call.arguments), child_run_id: childId },
    });
    this.state.pending = { kind: 'child', call_id: call.id, child_run_id: childId, agent: target.slug };
    return this.waitForChild();
  }

  /** The child's outcome as the delegate call's result; false while it is still working. */
  async collectChild(pending: Extract<Pending, { kind: 'child' }>): Promise<boolean> {
    const child = await loadRun(this.ctx.services.db, pending.child_run_id);
    if (child && (child.status === 'queued' || child.status === 'running' || child.status === 'awaiting_input'))
      return false;
    const answer = (child?.state as { answer?: Answer | null } | undefined)?.answer ?? null;
    const call: ToolCall = { id: pending.call_id, name: DELEGATE, arguments: {} };
    const result: ToolResult =
      child?.status === 'complete' && answer
        ? {
            ok: true,
            output: {
              agent: pending.agent,
              status: 'complete',
              child_run_id: pending.child_run_id,
              answer: {
                text: answer.text,
                content_blocks: answer.content_blocks,
                follow_ups: answer.follow_ups,
                partial: answer.partial,
              },
            },
          }
        : {
            ok: false,
            error: {
              code: 'delegate_failed',
              message: `${pending.agent} ended ${child?.status ?? 'missing'}${child?.error ? `: ${child.error.message}` : ''}.`,
            },
          };
    this.events.push({
      type: 'tool.completed',
      data: {
        tool: DELEGATE,
        label: `Handing a task to ${pending.agent}`,
        ok: result.ok,
        summary: result.ok ? 'answered' : toolSummary(result),
      },
    });
    this.#toolMessage(call, result);
    this.state.pending = null;
    return true;
  }

  waitForChild(): TurnResult {
    return { ...this.#base(), next: 'turn', delaySeconds: CHILD_POLL_SECONDS };
  }

  /** Fold a validated reply into the transcript; a result when the reply itself ends the turn. */
  async applyReply(pending: Pending, reply: Record<string, unknown>): Promise<TurnResult | null> {
    this.state.pending = null;
    this.state.reply = null;
    switch (pending.kind) {
      case 'question': {
        const optionId = typeof reply.option_id === 'string' ? reply.option_id : null;
        const chosen = pending.options.find((o) => o.id === optionId);
        const answer = typeof reply.response === 'string' ? reply.response : (chosen?.label ?? '');
        this.#toolMessage(
          { id: pending.call_id, name: ASK_USER, arguments: {} },
          { ok: true, output: { answer, option_id: optionId } },
        );
        this.state.answered_questions.push({
          question: pending.question,
          options: pending.options,
          answer,
          option_id: optionId,
          answered_at: this.ctx.services.clock.now().toISOString(),
        });
        this.events.push({
          type: 'tool.completed',
          data: { tool: ASK_USER, label: 'Asking you a question', ok: true, summary: 'answered' },
        });
        return null;
      }
      case 'approval': {
        const call: ToolCall = { id: pending.call_id, name: pending.tool, arguments: pending.arguments };
        if (reply.approved === true) {
          const op = this.ctx.services.registry.get(pending.operation);
          if (op) await this.#execute(call, op, pending.label, `approved:${pending.call_id}`);
          else
            this.#toolMessage(call, {
              ok: false,
              error: { code: 'not_found', message: `${pending.operation} no longer exists.` },
            });
        } else {
          this.#toolMessage(call, {
            ok: false,
            error: { code: 'not_approved', message: `The user declined: ${String(reply.feedback ?? '')}` },
          });
        }
        return null;
      }
      case 'continue_or_finish':
        if (reply.action === 'continue') this.state.turn_budget += Number(reply.additional_turns);
        else this.state.finishing = 'user';
        return null;
      case 'child':
        return null;
    }
  }

  pause(pending: Exclude<Pending, { kind: 'child' }>): TurnResult {
    this.state.pending = pending;
    return { ...this.#base(), pause: pendingInputFor(pending, this.state), next: 'turn' };
  }

  /** The day the run's model was told it is (its system message), so the verifier reads periods as the model did. */
  #askedAt(): string {
    const system = this.state.messages.find((m) => m.role === 'system')?.content ?? '';
    const day = /Today is (\d{4}-\d{2}-\d{2})/.exec(system)?.[1];
    return day ? `${day}T12:00:00.000Z` : this.ctx.services.clock.now().toISOString();
  }

  next(): TurnResult {
    return { ...this.#base(), next: 'turn' };
  }

  /**
   * End the run with an answer: verified before it is committed (grounding.ts); blocks get ids and
   * land on the stream one by one. No usable answer while finishing fails the run honestly.
   */
  async finish(draft: AnswerDraft | null, call: ToolCall | null): Promise<TurnResult> {
    const fallbackText = draft?.text || this.state.draft_text;
    if (!draft && !fallbackText) {
      return {
        ...this.#base(),
        fail: { code: 'no_answer', message: 'The run used its budget without writing an answer.' },
      };
    }
    const chosen: AnswerDraft = draft ?? { text: fallbackText ?? '', content_blocks: [], follow_ups: [] };
    if (!chosen.text.trim()) {
      return { ...this.#base(), fail: { code: 'no_answer', message: 'The model ended without an answer.' } };
    }
    const verified = await verifyAnswer(chosen, {
      db: this.ctx.services.db,
      workspaceId: this.ctx.run.workspaceId,
      rerun: (query) => rerunCitedQuery((id, input) => this.invocation.invoke(id, input), query),
      // The stage's reads: a fact both a re-run analysis and the quotes' judgement read is read once.
      memo: memoOf(this.invocation.scope),
      // The user's ask for this run: its quotes must be about what was asked (relevance.ts) and inside
      // a period it names (grounding-period.ts).
      // The model's own reading of the period, when its answer reports one, is the period it answered.
      question: {
        text: askedQuestion(this.ctx.input.message),
        asked_at: this.#askedAt(),
        ...(chosen.interpretation
          ? {
              period: chosen.interpretation.period,
              reading: { analysis: chosen.interpretation.analysis, topic: chosen.interpretation.topic },
            }
          : {}),
      },
      // What it searched and how much each search found: an absence the answer claims may rest on one (grounding-absence.ts).
      searches: searchesIn(this.state.messages),
    });
    const blocks = [...verified.content_blocks];
    if (this.state.proposals.length > 0) {
      blocks.push({
        kind: 'callout',
        tone: 'info',
        markdown: `Proposed, not done (this run could not ask for approval):\n${this.state.proposals.map((p) => `- \`${p.operation}\` with ${JSON.stringify(p.arguments)}`).join('\n')}`,
      });
    }
    // A person choosing "finish" at a continue_or_finish pause ends a run whose turn budget was spent.
    const partialReason =
      this.state.finishing === 'usage_limit' ? 'usage_limit' : this.state.finishing ? 'turn_limit' : null;
    const answer: Answer = {
      text: verified.text,
      content_blocks: blocks.map((block, i) => ({ ...block, id: `b${i + 1}` }) as Answer['content_blocks'][number]),
      follow_ups: verified.follow_ups.slice(0, 4),
      partial: partialReason !== null,
      partial_reason: partialReason,
      grounding: verified.grounding,
      interpretation: chosen.interpretation ?? null,
    };
    if (call) this.#toolMessage(call, { ok: true, output: { accepted: true, grounding: verified.grounding } });
    for (const block of answer.content_blocks) this.events.push({ type: 'answer.block', data: { block } });
    this.state.answer = answer;
    this.state.pending = null;
    return { ...this.#base(), complete: true, output: { answer_blocks: answer.content_blocks.length } };
  }

  #base() {
    const effects = [...this.#effects];
    return {
      state: this.state,
      events: this.events,
      ...(effects.length > 0
        ? {
            effects: async (scope: Parameters<NonNullable<TurnResult['effects']>>[0]) => {
              for (const effect of effects) await effect(scope);
            },
          }
        : {}),
    };
  }
}

export type { AgentMessage };
