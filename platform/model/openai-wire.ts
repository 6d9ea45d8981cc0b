import { z } from 'zod';
import { ApiError } from '../errors.js';
import { fnv1a } from '../fnv1a.js';
import type { StepResult, StepUsage, ToolCall } from './port.js';
import { parseToolArguments } from './step-schema.js';

/**
 * The OpenAI chat-completions shape of a tool-calling answer, read in one place for every provider
 * that speaks it (the OpenAI-compatible provider, and Workers AI models that answer in it): the
 * whole message, or its streamed chunks (server-sent events) folded back into one message while
 * each text token is handed on as it arrives.
 */

const UsageSchema = z
  .object({
    prompt_tokens: z.number().int().min(0).optional(),
    completion_tokens: z.number().int().min(0).optional(),
  })
  .nullable()
  .optional();

const WireToolCallSchema = z.object({
  id: z.string().min(1).optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.unknown() }),
});

export const OpenAiToolCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullable().optional(),
          tool_calls: z.array(WireToolCallSchema).nullable().optional(),
        }),
      }),
    )
    .min(1),
  usage: UsageSchema,
});
export type OpenAiToolCompletion = z.infer<typeof OpenAiToolCompletionSchema>;

/** A tool call as the wire carries it: arguments a JSON string (OpenAI) or an object (some Workers AI models). */
export interface WireToolCall {
  id?: string | undefined;
  name: string;
  arguments: unknown;
}

/**
 * Tool calls in our form. Arguments that are not a JSON object are the provider's fault
 * (`dependency_unavailable`, naming the tool). A call without an id gets one that is stable for the
 * same step, name and arguments, so a retried step answers the same call.
 */
export function toToolCalls(calls: readonly WireToolCall[], step: number, provider: string): ToolCall[] {
  return calls.map((call, index) => {
    const args = parseToolArguments(call.arguments, call.name);
    if (!args)
      throw new ApiError(
        'dependency_unavailable',
        `${provider} sent arguments for ${call.name} that are not a JSON object.`,
        { tool: call.name },
      );
    return {
      id: call.id ?? `call_${step}_${index}_${fnv1a(`${call.name}:${JSON.stringify(args)}`).toString(36)}`,
      name: call.name,
      arguments: args,
    };
  });
}

export const usageOf = (usage: z.infer<typeof UsageSchema>): StepUsage | null =>
  usage ? { input_tokens: usage.prompt_tokens ?? null, output_tokens: usage.completion_tokens ?? null } : null;

/** A whole OpenAI-shaped completion as a step. */
export function stepFromCompletion(completion: OpenAiToolCompletion, step: number, provider: string): StepResult {
  const message = completion.choices[0]!.message;
  return {
    content: message.content ?? null,
    tool_calls: toToolCalls(
      (message.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })),
      step,
      provider,
    ),
    usage: usageOf(completion.usage),
  };
}

// ---- streaming -----------------------------------------------------------------------------------

/**
 * One chunk of a streamed answer, in either shape a provider sends: OpenAI's `choices[0].delta`
 * (text, and tool calls in pieces keyed by `index`), or Workers AI's traditional `{response, tool_calls?}`.
 */
const StreamChunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullable().optional(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().min(0).optional(),
                  id: z.string().min(1).optional(),
                  function: z.object({ name: z.string().optional(), arguments: z.unknown().optional() }).optional(),
                }),
              )
              .nullable()
              .optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  response: z.string().nullable().optional(),
  tool_calls: z
    .array(z.object({ name: z.string().min(1), arguments: z.unknown() }))
    .nullable()
    .optional(),
  usage: UsageSchema,
});

/** Streamed chunks folded into one message: text joined, each call's argument pieces joined by index. */
export class StreamedCompletion {
  #content = '';
  #sawContent = false;
  readonly #calls = new Map<number, { id?: string; name: string; arguments: string; object?: unknown }>();
  #usage: z.infer<typeof UsageSchema> = null;

  constructor(private readonly onDelta: (text: string) => void) {}

  /** Fold one `data:` payload; an error event, or one that is no chunk of either shape, fails the step. */
  add(payload: unknown, provider: string): void {
    const chunk = StreamChunkSchema.safeParse(payload);
    if (!chunk.success || (payload && typeof payload === 'object' && 'error' in payload))
      throw new ApiError('dependency_unavailable', `${provider} streamed an error or a malformed chunk.`);
    const { choices, response, tool_calls, usage } = chunk.data;
    if (usage) this.#usage = usage;
    const delta = choices?.[0]?.delta;
    const text = delta?.content ?? response ?? '';
    if (text) this.#text(text);
    for (const [i, piece] of (delta?.tool_calls ?? []).entries()) {
      const index = piece.index ?? i;
      const call = this.#calls.get(index) ?? { name: '', arguments: '' };
      if (piece.id) call.id = piece.id;
      if (piece.function?.name) call.name += piece.function.name;
      const args = piece.function?.arguments;
      if (typeof args === 'string') call.arguments += args;
      else if (args !== undefined) call.object = args;
      this.#calls.set(index, call);
    }
    for (const call of tool_calls ?? [])
      this.#calls.set(this.#calls.size, { name: call.name, arguments: '', object: call.arguments });
  }

  #text(text: string): void {
    this.#content += text;
    this.#sawContent = true;
    this.onDelta(text);
  }

  result(step: number, provider: string): StepResult {
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    if (calls.some((c) => !c.name))
      throw new ApiError('dependency_unavailable', `${provider} streamed a tool call without a name.`);
    return {
      content: this.#sawContent ? this.#content : null,
      tool_calls: toToolCalls(
        calls.map((c) => ({ id: c.id, name: c.name, arguments: c.object ?? c.arguments })),
        step,
        provider,
      ),
      usage: usageOf(this.#usage),
    };
  }
}

/**
 * Read a server-sent-event body to its end (`data: [DONE]` or the last byte), handing each `data:`
 * payload, parsed as JSON, to `onData`. A payload that is not JSON fails the step: the stream is
 * the provider's answer, and half of one is not an answer.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  onData: (payload: unknown) => void,
  provider: string,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = '';
  const takeLine = (line: string): boolean => {
    const trimmed = line.replace(/\r$/, '');
    if (!trimmed.startsWith('data:')) return false;
    const data = trimmed.slice(5).trim();
    if (data === '[DONE]') return true;
    if (data === '') return false;
    let payload: unknown;
    try {
      payload = JSON.parse(data);
    } catch {
      throw new ApiError('dependency_unavailable', `${provider} streamed a chunk that is not JSON.`);
    }
    onData(payload);
    return false;
  };
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffered += decoder.decode(value ?? new Uint8Array(), { stream: !done });
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (takeLine(line)) return;
        newline = buffered.indexOf('\n');
      }
      if (done) {
        if (buffered) takeLine(buffered);
        return;
      }
    }
  } finally {
    reader.releaseLock();
    // Stop the transfer when we return early ([DONE] before the connection closes) or fail.
    await body.cancel().catch(() => undefined);
  }
}
