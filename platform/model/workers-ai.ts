import { z } from 'zod';
import { ApiError } from '../errors.js';
import { toWireMessage } from './openai.js';
import {
  OpenAiToolCompletionSchema,
  readEventStream,
  stepFromCompletion,
  StreamedCompletion,
  toToolCalls,
  usageOf,
} from './openai-wire.js';
import {
  EMBEDDING_DIMENSIONS,
  type Embedder,
  type ModelProvider,
  type ModelRunOptions,
  type ModelTask,
  type StepRequest,
  type StepResult,
  type StepTask,
} from './port.js';

/** The part of the Workers AI binding we use. */
export interface WorkersAiBinding {
  run(model: string, input: Record<string, unknown>): Promise<unknown>;
}

const TextResponse = z.object({ response: z.union([z.string(), z.record(z.string(), z.unknown())]) });
const EmbeddingResponse = z.object({ data: z.array(z.array(z.number())) });

/**
 * Workers AI answers function calling in two shapes, depending on the model: the "traditional"
 * one (`{response, tool_calls: [{name, arguments: {...}}], usage?}`, no call ids) and the
 * OpenAI-compatible one (`{choices: [{message: {content, tool_calls: [{id, function: {name,
 * arguments: "<json>"}}]}}], usage}`). Both are accepted; calls without an id get a stable one.
 */
const TraditionalToolResponse = z.object({
  response: z.string().nullable().optional(),
  tool_calls: z.array(z.object({ name: z.string().min(1), arguments: z.unknown() })).optional(),
  usage: z
    .object({ prompt_tokens: z.number().int().optional(), completion_tokens: z.number().int().optional() })
    .optional(),
});
const PROVIDER = 'Workers AI';

/** Workers AI through its binding: JSON-mode text generation and a 384-dimensional embedding model. */
export class WorkersAiProvider implements ModelProvider {
  readonly id: string;
  constructor(
    private readonly ai: WorkersAiBinding,
    private readonly model: string,
  ) {
    this.id = `workers_ai:${model}`;
  }

  async run<I, O>(task: ModelTask<I, O>, input: I): Promise<O> {
    let raw: unknown;
    try {
      raw = await this.ai.run(this.model, {
        messages: [
          { role: 'system', content: task.instructions },
          { role: 'user', content: JSON.stringify(task.input.parse(input)) },
        ],
        response_format: { type: 'json_schema', json_schema: z.toJSONSchema(task.output, { target: 'draft-7' }) },
      });
    } catch (cause) {
      throw new ApiError('dependency_unavailable', 'Workers AI could not run the model.', undefined, { cause });
    }
    const parsed = TextResponse.safeParse(raw);
    if (!parsed.success) throw new ApiError('dependency_unavailable', 'Workers AI returned an unexpected response.');
    let value: unknown = parsed.data.response;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        throw new ApiError('dependency_unavailable', `Workers AI returned non-JSON output for task ${task.name}.`);
      }
    }
    const output = task.output.safeParse(value);
    if (!output.success)
      throw new ApiError('dependency_unavailable', `Workers AI output for task ${task.name} did not match its schema.`);
    return output.data;
  }

  /**
   * One agent step with Workers AI function calling (messages in the OpenAI format the binding
   * accepts). With someone listening for tokens it asks the binding to stream, and reads the
   * server-sent events it returns; a binding that answers whole anyway is read the same as without.
   */
  async step(_task: StepTask, request: StepRequest, options?: ModelRunOptions): Promise<StepResult> {
    let raw: unknown;
    try {
      raw = await this.ai.run(this.model, {
        messages: request.messages.map(toWireMessage),
        ...(request.tools.length > 0
          ? {
              tools: request.tools.map((t) => ({
                type: 'function',
                function: { name: t.name, description: t.description, parameters: t.parameters },
              })),
            }
          : {}),
        ...(options?.onDelta ? { stream: true } : {}),
      });
    } catch (cause) {
      throw new ApiError('dependency_unavailable', 'Workers AI could not run the model.', undefined, { cause });
    }
    // Calls without ids are told apart by the step they answer (the count of assistant turns so far).
    const step = request.messages.filter((m) => m.role === 'assistant').length + 1;
    if (options?.onDelta && raw instanceof ReadableStream) {
      const streamed = new StreamedCompletion(options.onDelta);
      try {
        await readEventStream(
          raw as ReadableStream<Uint8Array>,
          (payload) => streamed.add(payload, PROVIDER),
          PROVIDER,
        );
      } catch (cause) {
        if (cause instanceof ApiError) throw cause;
        throw new ApiError('dependency_unavailable', 'Workers AI stopped streaming mid-answer.', undefined, { cause });
      }
      return streamed.result(step, PROVIDER);
    }
    const shaped = OpenAiToolCompletionSchema.safeParse(raw);
    if (shaped.success) return stepFromCompletion(shaped.data, step, PROVIDER);
    const traditional = TraditionalToolResponse.safeParse(raw);
    if (!traditional.success)
      throw new ApiError('dependency_unavailable', 'Workers AI returned an unexpected tool-calling response.');
    return {
      content: traditional.data.response ?? null,
      tool_calls: toToolCalls(traditional.data.tool_calls ?? [], step, PROVIDER),
      usage: usageOf(traditional.data.usage),
    };
  }
}

export class WorkersAiEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  constructor(
    private readonly ai: WorkersAiBinding,
    private readonly model: string,
  ) {
    this.id = `workers_ai:${model}`;
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    let raw: unknown;
    try {
      raw = await this.ai.run(this.model, { text: [...texts] });
    } catch (cause) {
      throw new ApiError('dependency_unavailable', 'Workers AI could not run the embedding model.', undefined, {
        cause,
      });
    }
    const parsed = EmbeddingResponse.safeParse(raw);
    if (
      !parsed.success ||
      parsed.data.data.length !== texts.length ||
      parsed.data.data.some((v) => v.length !== EMBEDDING_DIMENSIONS)
    ) {
      throw new ApiError(
        'dependency_unavailable',
        `Workers AI embedding model ${this.model} did not return ${EMBEDDING_DIMENSIONS}-dimensional vectors.`,
      );
    }
    return parsed.data.data;
  }
}
