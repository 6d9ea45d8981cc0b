import { z } from 'zod';
import type { AgentMessage } from '../../platform/model/port.js';
import { AnswerSchema, ContentBlockSchema } from './answer.js';

/**
 * What an agent run stores: its input (fixed at start) and its state (the transcript and the loop's
 * bookkeeping, committed with every turn). Both are parsed on every delivery (functions/agents/run-pipeline.ts).
 */

export const AGENT_RUN_KIND = 'agent_run';
/** A research job: the same loop and state as a chat run, its own kind so research reads only see research. */
export const RESEARCH_KIND = 'research';
/** Every run kind the agent loop serves. */
export const AGENT_KINDS = [AGENT_RUN_KIND, RESEARCH_KIND] as const;

export const DEPTHS = ['quick', 'standard', 'deep'] as const;
export type Depth = (typeof DEPTHS)[number];

/** Turns per depth tier (spec, Limits: chat turn budget). */
export const TURN_BUDGET: Record<Depth, number> = { quick: 10, standard: 50, deep: 75 };

/**
 * Tokens per depth tier, counted only when the provider reports usage: past it the run finishes with
 * the best answer so far (`partial_reason: usage_limit`). The local model reports none.
 */
export const TOKEN_BUDGET: Record<Depth, number> = { quick: 200_000, standard: 1_000_000, deep: 2_000_000 };

export const ON_QUESTION = ['auto', 'pause'] as const;
export type OnQuestion = (typeof ON_QUESTION)[number];

/** How a run was started (`trigger` on the read): the REST API, an MCP client, a routine, a parent run, a subscription. */
export const TRIGGERS = ['api', 'mcp', 'routine', 'delegate', 'subscription'] as const;
export type Trigger = (typeof TRIGGERS)[number];

const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) });

export const AgentMessageSchema: z.ZodType<AgentMessage> = z.union([
  z.object({ role: z.literal('system'), content: z.string() }),
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({
    role: z.literal('assistant'),
    content: z.string().nullable(),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  z.object({ role: z.literal('tool'), tool_call_id: z.string(), name: z.string(), content: z.string() }),
]);

export const RunAgentSchema = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  prompt: z.string(),
  tool_blocklist: z.array(z.string()),
  authored_by: z.enum(['amdahl', 'tenant']),
});
export type RunAgent = z.infer<typeof RunAgentSchema>;

/** A fire with no one to ask: which routine or subscription, and what its config lets the run write. */
const HeadlessFireSchema = z.object({
  id: z.uuid(),
  write_outputs: z.boolean(),
  actions_allowed: z.array(z.string()).nullable(),
});
export type HeadlessFire = z.infer<typeof HeadlessFireSchema>;

export const AgentRunInputSchema = z.object({
  chat_id: z.uuid(),
  /** The user's words for this turn. */
  message: z.string(),
  agent: RunAgentSchema,
  on_question: z.enum(ON_QUESTION),
  /**
   * What the run may pause for: a clarifying question, approval of a write, more turns when the
   * budget is spent. A chat with on_question "pause" pauses for all three, "auto" for none; a
   * research job only asks questions (its budget ends it with a partial answer).
   */
  pauses: z.object({ question: z.boolean(), approval: z.boolean(), budget: z.boolean() }),
  depth: z.enum(DEPTHS),
  trigger: z.enum(TRIGGERS),
  /** Whether the run may hand sub-tasks to other agents (a delegated run may not delegate again). */
  may_delegate: z.boolean(),
  /** Agents this run may delegate to; null means any agent of the roster. */
  delegate_roster: z.array(z.string()).nullable(),
  /**
   * Set when a routine fired the run: its id and what its config lets the run write. Such a run has
   * no one to ask, so it may write documents (through the gate) and take the actions it allows;
   * every other write becomes a proposal.
   */
  routine: HeadlessFireSchema.nullable().default(null),
  /** Set when a subscription fired the run (an event woke it): the same permissions as a routine's fire. */
  subscription: HeadlessFireSchema.nullable().default(null),
});
export type AgentRunInput = z.infer<typeof AgentRunInputSchema>;

/**
 * What a headless fire (a routine's or a subscription's) lets its run write, or null for a run
 * someone is there to answer. Everything that decides what such a run may write reads this.
 */
export const headlessFireOf = (input: Pick<AgentRunInput, 'routine' | 'subscription'>): HeadlessFire | null =>
  input.routine ?? input.subscription ?? null;

/** What the run is waiting for while paused (or, for a child, on which run). */
export const PendingSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('question'),
    call_id: z.string(),
    question: z.string(),
    options: z.array(z.object({ id: z.string(), label: z.string() })),
  }),
  z.object({
    kind: z.literal('approval'),
    call_id: z.string(),
    tool: z.string(),
    operation: z.string(),
    arguments: z.record(z.string(), z.unknown()),
    label: z.string(),
  }),
  z.object({ kind: z.literal('continue_or_finish') }),
  z.object({ kind: z.literal('child'), call_id: z.string(), child_run_id: z.uuid(), agent: z.string() }),
]);
export type Pending = z.infer<typeof PendingSchema>;

/** A reply to a pause, as resume validated it. */
export const ReplySchema = z.record(z.string(), z.unknown());

export const UsageSchema = z.object({
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
});

export const AgentRunStateSchema = z.object({
  messages: z.array(AgentMessageSchema).default([]),
  turns_used: z.number().int().min(0).default(0),
  turn_budget: z.number().int().min(1).default(TURN_BUDGET.standard),
  usage: UsageSchema.default({ input_tokens: null, output_tokens: null }),
  /** The model's latest interim words (a hosted model's text between tool calls). */
  draft_text: z.string().nullable().default(null),
  pending: PendingSchema.nullable().default(null),
  reply: ReplySchema.nullable().default(null),
  /** Set when the run must answer now: the budget is spent, or the user chose to finish. */
  finishing: z.enum(['turn_limit', 'usage_limit', 'user']).nullable().default(null),
  /** Side effects the run proposed instead of doing (it could not ask for approval). */
  proposals: z
    .array(z.object({ tool: z.string(), operation: z.string(), arguments: z.record(z.string(), z.unknown()) }))
    .default([]),
  answer: AnswerSchema.nullable().default(null),
  /** Every clarifying question the run asked and the reply it got, in order. */
  answered_questions: z
    .array(
      z.object({
        question: z.string(),
        options: z.array(z.object({ id: z.string(), label: z.string() })),
        answer: z.string(),
        option_id: z.string().nullable(),
        answered_at: z.string(),
      }),
    )
    .default([]),
});
export type AgentRunState = z.infer<typeof AgentRunStateSchema>;

export const DraftSchema = z.object({ text: z.string().nullable(), content_blocks: z.array(ContentBlockSchema) });
