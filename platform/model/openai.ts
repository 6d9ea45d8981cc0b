import { z } from 'zod';
import { ApiError } from '../errors.js';
import {
  EMBEDDING_DIMENSIONS,
  type AgentMessage,
  type Embedder,
  type ModelProvider,
  type ModelRunOptions,
  type ModelTask,
  type StepRequest,
  type StepResult,
  type StepTask,
} from './port.js';
import { OpenAiToolCompletionSchema, readEventStream, stepFromCompletion, StreamedCompletion } from './openai-wire.js';

export interface OpenAiCompatibleOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  model: string;
  embeddingModel: string;
  /** Injected for tests and for runtimes with their own fetch. */
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const ChatCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable() }) })).min(1),
});

const Embeddings = z.object({
  data: z.array(z.object({ index: z.number().int(), embedding: z.array(z.number()) })),
});

/**
 * Any OpenAI-compatible HTTP API: chat completions with a JSON-schema response format for tasks,
 * and /embeddings asked for exactly 384 dimensions. Failures are `dependency_unavailable`
 * (retryable); output that does not match the task's schema is refused the same way.
 */
export class OpenAiCompatibleProvider implements ModelProvider, Embedder {
  readonly id: string;
  readonly dimensions = EMBEDDING_DIMENSIONS;
  readonly #options: OpenAiCompatibleOptions;
  readonly #fetch: typeof fetch;

  constructor(options: OpenAiCompatibleOptions) {
    this.#options = { ...options, baseUrl: options.baseUrl.replace(/\/+$/, '') };
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.id = `openai:${options.model}`;
  }

  /** The embedder's id names the embedding model, which is what makes vectors comparable. */
  get embedderId(): string {
    return `openai:${this.#options.embeddingModel}@${EMBEDDING_DIMENSIONS}`;
  }

  async run<I, O>(task: ModelTask<I, O>, input: I, options?: ModelRunOptions): Promise<O> {
    const body = {
      model: this.#options.model,
      temperature: 0,
      messages: [
        { role: 'system', content: task.instructions },
        { role: 'user', content: JSON.stringify(task.input.parse(input)) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: task.name.replace(/[^a-zA-Z0-9_-]/g, '_'),
          schema: z.toJSONSchema(task.output, { target: 'draft-7' }),
        },
      },
    };
    const json = await this.#post('/chat/completions', body, options);
    const completion = ChatCompletion.safeParse(json);
    const content = completion.success ? completion.data.choices[0]?.message.content : null;
    if (!content) throw new ApiError('dependency_unavailable', 'The model provider returned no completion.');
    let parsedJson: unknown;
    try {
      parsedJson = JSON.parse(content);
    } catch {
      throw new ApiError('dependency_unavailable', `The model returned non-JSON output for task ${task.name}.`);
    }
    const output = task.output.safeParse(parsedJson);
    if (!output.success)
      throw new ApiError(
        'dependency_unavailable',
        `The model's output for task ${task.name} did not match its schema.`,
      );
    return output.data;
  }

  /**
   * One agent step: chat completions with `tools` and `tool_choice` (the OpenAI wire format: an
   * assistant's calls carry JSON-string arguments, a tool result answers its `tool_call_id`).
   * Usage comes from the response when the provider reports it; otherwise it is null, never 0.
   */
  async step(_task: StepTask, request: StepRequest, options?: ModelRunOptions): Promise<StepResult> {
    const body: Record<string, unknown> = {
      model: this.#options.model,
      temperature: 0,
      messages: request.messages.map(toWireMessage),
    };
    if (request.tools.length > 0) {
      body.tools = request.tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.parameters },
      }));
      body.tool_choice = request.toolChoice ?? 'auto';
    }
    // With someone listening for tokens, stream (usage arrives in the last chunk).
    if (options?.onDelta) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
    const step = request.messages.filter((m) => m.role === 'assistant').length + 1;
    const response = await this.#send('/chat/completions', body, options);
    if (options?.onDelta && response.body && isEventStream(response)) {
      const streamed = new StreamedCompletion(options.onDelta);
      await this.#guard(readEventStream(response.body, (payload) => streamed.add(payload, PROVIDER), PROVIDER));
      return streamed.result(step, PROVIDER);
    }
    // A server that ignores `stream` answers with the whole completion: read it the same way.
    const parsed = OpenAiToolCompletionSchema.safeParse(await readJson(response));
    if (!parsed.success)
      throw new ApiError('dependency_unavailable', 'The model provider returned a malformed tool-calling completion.');
    return stepFromCompletion(parsed.data, step, PROVIDER);
  }

  async embed(texts: readonly string[], options?: ModelRunOptions): Promise<number[][]> {
    if (texts.length === 0) return [];
    const json = await this.#post(
      '/embeddings',
      { model: this.#options.embeddingModel, input: texts, dimensions: EMBEDDING_DIMENSIONS, encoding_format: 'float' },
      options,
    );
    const parsed = Embeddings.safeParse(json);
    if (!parsed.success || parsed.data.data.length !== texts.length) {
      throw new ApiError('dependency_unavailable', 'The embedding provider returned a malformed response.');
    }
    const sorted = [...parsed.data.data].sort((a, b) => a.index - b.index);
    // Each text's vector exactly once: a duplicated or missing index would pair vectors with the wrong texts.
    if (sorted.some((d, i) => d.index !== i)) {
      throw new ApiError('dependency_unavailable', 'The embedding provider returned a malformed response.');
    }
    const ordered = sorted.map((d) => d.embedding);
    if (ordered.some((v) => v.length !== EMBEDDING_DIMENSIONS)) {
      throw new ApiError(
        'dependency_unavailable',
        `The embedding provider did not return ${EMBEDDING_DIMENSIONS}-dimensional vectors.`,
      );
    }
    return ordered;
  }

  async #post(path: string, body: unknown, options?: ModelRunOptions): Promise<unknown> {
    return readJson(await this.#send(path, body, options));
  }

  /** POST a JSON body; a non-2xx answer or an unreachable provider is dependency_unavailable. */
  async #send(path: string, body: unknown, options?: ModelRunOptions): Promise<Response> {
    const timeout = AbortSignal.timeout(this.#options.timeoutMs ?? 60_000);
    const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await this.#fetch(`${this.#options.baseUrl}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.#options.apiKey ? { authorization: `Bearer ${this.#options.apiKey}` } : {}),
        },
        body: JSON.stringify(body),
        signal,
      });
    } catch (cause) {
      throw new ApiError('dependency_unavailable', 'The model provider could not be reached.', undefined, { cause });
    }
    if (!response.ok) {
      // Provider text can carry account details; keep only the status.
      throw new ApiError('dependency_unavailable', `The model provider answered HTTP ${response.status}.`, {
        provider_status: response.status,
      });
    }
    return response;
  }

  /** A stream that breaks off (connection lost, timeout) is the provider's failure, like any other. */
  async #guard(reading: Promise<void>): Promise<void> {
    try {
      await reading;
    } catch (cause) {
      if (cause instanceof ApiError) throw cause;
      throw new ApiError('dependency_unavailable', 'The model provider stopped streaming mid-answer.', undefined, {
        cause,
      });
    }
  }
}

const PROVIDER = 'The model provider';

const isEventStream = (response: Response): boolean =>
  (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    throw new ApiError('dependency_unavailable', 'The model provider returned invalid JSON.');
  }
}

/** Our transcript message in the OpenAI chat-completions wire format. */
export function toWireMessage(message: AgentMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.tool_calls?.length
          ? {
              tool_calls: message.tool_calls.map((c) => ({
                id: c.id,
                type: 'function',
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/** The embedding half of the provider under its own id. */
export function openAiEmbedder(provider: OpenAiCompatibleProvider): Embedder {
  return {
    id: provider.embedderId,
    dimensions: EMBEDDING_DIMENSIONS,
    embed: (texts, options) => provider.embed(texts, options),
  };
}
