import type { z } from 'zod';

/**
 * A unit of language work (plan a search, summarise with citations, grade a message...). Each
 * capability declares its tasks: instructions and zod schemas for hosted models, and a
 * deterministic local implementation that does the same job with plain computation, so the
 * embedded default is honest rather than mocked. A provider runs a task; nothing above the port
 * knows which provider it got.
 */
export interface ModelTask<I, O> {
  readonly name: string;
  readonly instructions: string;
  readonly input: z.ZodType<I>;
  readonly output: z.ZodType<O>;
  local(input: I): O | Promise<O>;
}

export interface ModelRunOptions {
  signal?: AbortSignal;
  /**
   * Agent steps: called with each piece of text as a hosted model streams it (the step then asks
   * its provider to stream). The step's result is still the whole answer; this only shows progress.
   */
  onDelta?: (text: string) => void;
}

export interface ModelProvider {
  /** e.g. "local", "openai:gpt-4o-mini", "workers_ai:@cf/meta/llama-3.1-8b-instruct". */
  readonly id: string;
  run<I, O>(task: ModelTask<I, O>, input: I, options?: ModelRunOptions): Promise<O>;
  /** One tool-calling step of an agent (below). */
  step(task: StepTask, request: StepRequest, options?: ModelRunOptions): Promise<StepResult>;
}

/** Every stored vector has this many dimensions, whichever embedder produced it. */
export const EMBEDDING_DIMENSIONS = 384;

export interface Embedder {
  /** Stored beside every vector; vectors from different embedders are never compared. */
  readonly id: string;
  readonly dimensions: typeof EMBEDDING_DIMENSIONS;
  embed(texts: readonly string[], options?: ModelRunOptions): Promise<number[][]>;
}

// ---------------------------------------------------------------------------------------------
// Tool calling: one step of an agent (agents.md, "The model step"). The caller sends the whole
// transcript and the tools it may call; the model answers with tool calls, or with text and none.

/** A tool the model may call: its name, what it does, and the JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema (an object schema) of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  /** The provider's id for the call (or one the caller assigned); tool results answer it. */
  id: string;
  name: string;
  /** Parsed JSON arguments; a provider that sends malformed JSON fails the step. */
  arguments: Record<string, unknown>;
}

export type AgentMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }
  | { role: 'tool'; tool_call_id: string; name: string; content: string };

export interface StepRequest {
  messages: AgentMessage[];
  tools: ToolSpec[];
  /** `required`: the model must call a tool (e.g. `final_answer` when the budget is spent). */
  toolChoice?: 'auto' | 'required';
}

export interface StepUsage {
  input_tokens: number | null;
  output_tokens: number | null;
}

export interface StepResult {
  /** Text the model wrote this step (may be null when it only calls tools). */
  content: string | null;
  tool_calls: ToolCall[];
  /** Null when the provider does not report usage (never 0 for unknown). */
  usage: StepUsage | null;
}

/**
 * The tool-calling task: hosted providers send the transcript and tools to their model; the local
 * provider runs `local`, a deterministic policy that does the same job with the same tools.
 */
export interface StepTask {
  readonly name: string;
  local(request: StepRequest, options?: ModelRunOptions): StepResult | Promise<StepResult>;
}

export interface ToolCallingModel {
  readonly id: string;
  step(task: StepTask, request: StepRequest, options?: ModelRunOptions): Promise<StepResult>;
}
