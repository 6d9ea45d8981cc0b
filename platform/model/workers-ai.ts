import { z } from 'zod';
import { ApiError } from '../errors.js';
import { EMBEDDING_DIMENSIONS, type Embedder, type ModelProvider, type ModelTask } from './port.js';

/** The part of the Workers AI binding we use. */
export interface WorkersAiBinding {
  run(model: string, input: Record<string, unknown>): Promise<unknown>;
}

const TextResponse = z.object({ response: z.union([z.string(), z.record(z.string(), z.unknown())]) });
const EmbeddingResponse = z.object({ data: z.array(z.array(z.number())) });

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
    if (!output.success) throw new ApiError('dependency_unavailable', `Workers AI output for task ${task.name} did not match its schema.`);
    return output.data;
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
      throw new ApiError('dependency_unavailable', 'Workers AI could not run the embedding model.', undefined, { cause });
    }
    const parsed = EmbeddingResponse.safeParse(raw);
    if (!parsed.success || parsed.data.data.length !== texts.length || parsed.data.data.some((v) => v.length !== EMBEDDING_DIMENSIONS)) {
      throw new ApiError('dependency_unavailable', `Workers AI embedding model ${this.model} did not return ${EMBEDDING_DIMENSIONS}-dimensional vectors.`);
    }
    return parsed.data.data;
  }
}
