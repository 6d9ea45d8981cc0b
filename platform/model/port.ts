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
}

export interface ModelProvider {
  /** e.g. "local", "openai:gpt-4o-mini", "workers_ai:@cf/meta/llama-3.1-8b-instruct". */
  readonly id: string;
  run<I, O>(task: ModelTask<I, O>, input: I, options?: ModelRunOptions): Promise<O>;
}

/** Every stored vector has this many dimensions, whichever embedder produced it. */
export const EMBEDDING_DIMENSIONS = 384;

export interface Embedder {
  /** Stored beside every vector; vectors from different embedders are never compared. */
  readonly id: string;
  readonly dimensions: typeof EMBEDDING_DIMENSIONS;
  embed(texts: readonly string[], options?: ModelRunOptions): Promise<number[][]>;
}
