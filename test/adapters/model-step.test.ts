import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../platform/errors.js';
import { LocalModelProvider } from '../../platform/model/local.js';
import { OpenAiCompatibleProvider } from '../../platform/model/openai.js';
import type { AgentMessage, StepRequest, StepTask, ToolSpec } from '../../platform/model/port.js';
import { WorkersAiProvider, type WorkersAiBinding } from '../../platform/model/workers-ai.js';
import { startFakeServer, type FakeRequest, type FakeServer } from '../support/fake-http-server.js';

/**
 * The agent step on each provider. The OpenAI-compatible one runs a scripted multi-turn tool
 * conversation against a fake server on 127.0.0.1 (including a tool error fed back to the model),
 * asserting every request body it receives; Workers AI against a fake binding in both of its
 * response shapes; the local provider runs the task's own policy.
 */

const task: StepTask = { name: 'agent.step', local: () => ({ content: 'local', tool_calls: [], usage: null }) };
const TOOLS: ToolSpec[] = [
  {
    name: 'search_query',
    description: 'Routed search',
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: [] },
  },
  { name: 'search_fields', description: 'Field catalog', parameters: { type: 'object', properties: {}, required: [] } },
  {
    name: 'final_answer',
    description: 'Finish',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
];
const wireTools = TOOLS.map((t) => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: t.parameters },
}));

interface Recorded extends FakeRequest {
  json: any;
}
const requests: Recorded[] = [];
/** A scripted reply: a JSON body, or (`sse`) server-sent-event frames written as they are. */
let replies: { status: number; body?: unknown; sse?: string[] }[] = [];
let server: FakeServer;

beforeAll(async () => {
  server = await startFakeServer((req, res) => {
    requests.push({ ...req, json: JSON.parse(req.body || 'null') });
    const reply = replies.shift() ?? { status: 500, body: { error: 'unscripted' } };
    if (reply.sse) {
      res.writeHead(reply.status, { 'content-type': 'text/event-stream' });
      for (const frame of reply.sse) res.write(frame);
      res.end();
      return;
    }
    res.writeHead(reply.status, { 'content-type': 'application/json' });
    res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
  });
});
afterAll(async () => server.close());
afterEach(() => {
  requests.length = 0;
  replies = [];
});

const provider = () =>
  new OpenAiCompatibleProvider({
    baseUrl: `${server.url}/v1`,
    apiKey: 'sk-test',
    model: 'gpt-test',
    embeddingModel: 'emb-test',
    timeoutMs: 5000,
  });
const completion = (message: Record<string, unknown>, usage?: Record<string, number>) => ({
  status: 200,
  body: {
    id: 'chatcmpl-x',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'tool_calls' }],
    ...(usage ? { usage } : {}),
  },
});

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('OpenAiCompatibleProvider.step: a scripted three-step tool conversation', () => {
  it('sends the transcript and tools in the wire format each step and reads back calls, text and usage', async () => {
    const model = provider();
    const messages: AgentMessage[] = [
      { role: 'system', content: 'You are the researcher.' },
      { role: 'user', content: 'Why do customers push back on pricing?' },
    ];

    // Step 1: two tool calls.
    replies.push(
      completion(
        {
          content: null,
          tool_calls: [
            {
              id: 'call_a',
              type: 'function',
              function: { name: 'search_query', arguments: '{"query":"pricing objections","mode":"semantic"}' },
            },
            { id: 'call_b', type: 'function', function: { name: 'search_fields', arguments: '{}' } },
          ],
        },
        { prompt_tokens: 120, completion_tokens: 30 },
      ),
    );
    const first = await model.step(task, { messages, tools: TOOLS });
    expect(first).toEqual({
      content: null,
      tool_calls: [
        { id: 'call_a', name: 'search_query', arguments: { query: 'pricing objections', mode: 'semantic' } },
        { id: 'call_b', name: 'search_fields', arguments: {} },
      ],
      usage: { input_tokens: 120, output_tokens: 30 },
    });
    expect(requests[0]!.method).toBe('POST');
    expect(requests[0]!.url).toBe('/v1/chat/completions');
    expect(requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(requests[0]!.json).toEqual({
      model: 'gpt-test',
      temperature: 0,
      messages: [
        { role: 'system', content: 'You are the researcher.' },
        { role: 'user', content: 'Why do customers push back on pricing?' },
      ],
      tools: wireTools,
      tool_choice: 'auto',
    });

    // Step 2: the results go back, one of them a tool error; the model calls again.
    messages.push(
      { role: 'assistant', content: null, tool_calls: first.tool_calls },
      {
        role: 'tool',
        tool_call_id: 'call_a',
        name: 'search_query',
        content: '{"ok":true,"output":{"results":[{"text":"The price is above our budget."}]}}',
      },
      {
        role: 'tool',
        tool_call_id: 'call_b',
        name: 'search_fields',
        content: '{"ok":false,"error":{"code":"scope_denied","message":"search.fields needs data:read."}}',
      },
    );
    replies.push(
      completion({
        content: 'One more search.',
        tool_calls: [
          { id: 'call_c', type: 'function', function: { name: 'search_query', arguments: '{"query":"discount"}' } },
        ],
      }),
    );
    const second = await model.step(task, { messages, tools: TOOLS });
    expect(second).toEqual({
      content: 'One more search.',
      tool_calls: [{ id: 'call_c', name: 'search_query', arguments: { query: 'discount' } }],
      usage: null,
    });
    expect(requests[1]!.json.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'search_query', arguments: '{"query":"pricing objections","mode":"semantic"}' },
          },
          { id: 'call_b', type: 'function', function: { name: 'search_fields', arguments: '{}' } },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_a',
        content: '{"ok":true,"output":{"results":[{"text":"The price is above our budget."}]}}',
      },
      {
        role: 'tool',
        tool_call_id: 'call_b',
        content: '{"ok":false,"error":{"code":"scope_denied","message":"search.fields needs data:read."}}',
      },
    ]);

    // Step 3: the budget is spent; only final_answer, and the model must call it.
    messages.push(
      { role: 'assistant', content: 'One more search.', tool_calls: second.tool_calls },
      { role: 'tool', tool_call_id: 'call_c', name: 'search_query', content: '{"ok":true,"output":{"results":[]}}' },
    );
    replies.push(
      completion(
        {
          content: null,
          tool_calls: [
            {
              id: 'call_d',
              type: 'function',
              function: { name: 'final_answer', arguments: '{"text":"Budget is the main objection."}' },
            },
          ],
        },
        { prompt_tokens: 400 },
      ),
    );
    const third = await model.step(task, { messages, tools: [TOOLS[2]!], toolChoice: 'required' });
    expect(third.tool_calls).toEqual([
      { id: 'call_d', name: 'final_answer', arguments: { text: 'Budget is the main objection.' } },
    ]);
    expect(third.usage).toEqual({ input_tokens: 400, output_tokens: null });
    expect(requests[2]!.json).toMatchObject({ tools: [wireTools[2]], tool_choice: 'required' });
    expect(requests[2]!.json.messages.at(-2)).toEqual({
      role: 'assistant',
      content: 'One more search.',
      tool_calls: [
        { id: 'call_c', type: 'function', function: { name: 'search_query', arguments: '{"query":"discount"}' } },
      ],
    });
    expect(requests).toHaveLength(3);
  });

  it('sends no tools and no tool_choice when none are offered, and reads a plain text answer', async () => {
    replies.push(completion({ content: 'Just text.' }));
    const result = await provider().step(task, { messages: [{ role: 'user', content: 'hi' }], tools: [] });
    expect(result).toEqual({ content: 'Just text.', tool_calls: [], usage: null });
    expect(requests[0]!.json).not.toHaveProperty('tools');
    expect(requests[0]!.json).not.toHaveProperty('tool_choice');
  });

  it('refuses arguments that are not a JSON object, and a provider error, as dependency_unavailable without the provider\u2019s text', async () => {
    replies.push(
      completion({
        content: null,
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'search_query', arguments: '{"query": ' } }],
      }),
    );
    const malformed = await apiError(
      provider().step(task, { messages: [{ role: 'user', content: 'q' }], tools: TOOLS }),
    );
    expect(malformed.code).toBe('dependency_unavailable');
    expect(malformed.details).toEqual({ tool: 'search_query' });
    replies.push(
      completion({
        content: null,
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'search_query', arguments: '[1,2]' } }],
      }),
    );
    expect(
      (await apiError(provider().step(task, { messages: [{ role: 'user', content: 'q' }], tools: TOOLS }))).code,
    ).toBe('dependency_unavailable');
    replies.push({ status: 500, body: { error: { message: 'org-12345 is over quota' } } });
    const down = await apiError(provider().step(task, { messages: [{ role: 'user', content: 'q' }], tools: TOOLS }));
    expect(down.code).toBe('dependency_unavailable');
    expect(down.message).not.toContain('org-12345');
    replies.push({ status: 200, body: { choices: [] } });
    expect(
      (await apiError(provider().step(task, { messages: [{ role: 'user', content: 'q' }], tools: TOOLS }))).code,
    ).toBe('dependency_unavailable');
  });
});

describe('OpenAiCompatibleProvider.step, streaming', () => {
  const frame = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta }], ...extra })}\n\n`;

  it('asks for a stream, hands on each text piece as it arrives, and folds the chunks into one step', async () => {
    // Frames split mid-line across writes, tool-call arguments in pieces, usage in the last chunk.
    const text = frame({ role: 'assistant', content: 'Checking ' }) + frame({ content: 'pricing.' });
    replies.push({
      status: 200,
      sse: [
        text.slice(0, 25),
        text.slice(25),
        frame({
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'search_query', arguments: '{"qu' } },
          ],
        }),
        frame({ tool_calls: [{ index: 0, function: { arguments: 'ery":"pricing"}' } }] }),
        frame({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'search_fields' } }] }),
        `data: ${JSON.stringify({ id: 'c', choices: [], usage: { prompt_tokens: 50, completion_tokens: 7 } })}\n\n`,
        'data: [DONE]\n\n',
      ],
    });
    const pieces: string[] = [];
    const result = await provider().step(
      task,
      { messages: [{ role: 'user', content: 'q' }], tools: TOOLS },
      { onDelta: (t) => pieces.push(t) },
    );
    expect(pieces).toEqual(['Checking ', 'pricing.']);
    expect(result).toEqual({
      content: 'Checking pricing.',
      tool_calls: [
        { id: 'call_a', name: 'search_query', arguments: { query: 'pricing' } },
        { id: 'call_b', name: 'search_fields', arguments: {} },
      ],
      usage: { input_tokens: 50, output_tokens: 7 },
    });
    expect(requests[0]!.json).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      tools: wireTools,
    });
  });

  it('reads a whole completion from a server that ignores stream, and asks no stream without a listener', async () => {
    replies.push(completion({ content: 'Whole.' }));
    const pieces: string[] = [];
    const whole = await provider().step(
      task,
      { messages: [{ role: 'user', content: 'q' }], tools: [] },
      { onDelta: (t) => pieces.push(t) },
    );
    expect(whole).toEqual({ content: 'Whole.', tool_calls: [], usage: null });
    expect(pieces).toEqual([]);
    replies.push(completion({ content: 'Plain.' }));
    await provider().step(task, { messages: [{ role: 'user', content: 'q' }], tools: [] });
    expect(requests[1]!.json).not.toHaveProperty('stream');
  });

  it('fails a stream with a chunk that is not JSON, an error event, or broken tool arguments as dependency_unavailable', async () => {
    const run = () =>
      provider().step(task, { messages: [{ role: 'user', content: 'q' }], tools: TOOLS }, { onDelta: () => undefined });
    replies.push({ status: 200, sse: [frame({ content: 'ok' }), 'data: {not json\n\n'] });
    expect((await apiError(run())).code).toBe('dependency_unavailable');
    replies.push({ status: 200, sse: ['data: {"error":{"message":"org-1 over quota"}}\n\n'] });
    const quota = await apiError(run());
    expect(quota.code).toBe('dependency_unavailable');
    expect(quota.message).not.toContain('org-1');
    replies.push({
      status: 200,
      sse: [
        frame({ tool_calls: [{ index: 0, id: 'x', function: { name: 'search_query', arguments: '{"query": ' } }] }),
      ],
    });
    const broken = await apiError(run());
    expect(broken.details).toEqual({ tool: 'search_query' });
  });
});

describe('WorkersAiProvider.step', () => {
  const binding = (reply: unknown) => {
    const calls: { model: string; input: Record<string, unknown> }[] = [];
    const ai: WorkersAiBinding = {
      run: async (model, input) => {
        calls.push({ model, input });
        if (reply instanceof Error) throw reply;
        return reply;
      },
    };
    return { ai, calls };
  };
  const request: StepRequest = {
    messages: [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', name: 'search_query', arguments: { query: 'x' } }] },
      { role: 'tool', tool_call_id: 'c1', name: 'search_query', content: '{"ok":true}' },
    ],
    tools: TOOLS,
  };

  it('sends messages and tools through the binding and reads the traditional shape (calls get stable ids)', async () => {
    const { ai, calls } = binding({
      response: null,
      tool_calls: [{ name: 'search_query', arguments: { query: 'pricing' } }],
      usage: { prompt_tokens: 10, completion_tokens: 5 },
    });
    const model = new WorkersAiProvider(ai, '@cf/meta/llama-3.3-70b-instruct-fp8-fast');
    const first = await model.step(task, request);
    const again = await model.step(task, request);
    expect(first.tool_calls).toEqual([
      { id: expect.stringMatching(/^call_2_0_/), name: 'search_query', arguments: { query: 'pricing' } },
    ]);
    expect(again.tool_calls[0]!.id).toBe(first.tool_calls[0]!.id);
    expect(first.usage).toEqual({ input_tokens: 10, output_tokens: 5 });
    expect(calls[0]!.model).toBe('@cf/meta/llama-3.3-70b-instruct-fp8-fast');
    expect(calls[0]!.input).toEqual({
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_query', arguments: '{"query":"x"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      ],
      tools: wireTools,
    });
  });

  it('reads the OpenAI-compatible shape, and a text answer', async () => {
    const { ai } = binding({
      choices: [
        {
          message: {
            content: 'Done.',
            tool_calls: [{ id: 'w1', function: { name: 'final_answer', arguments: '{"text":"Done."}' } }],
          },
        },
      ],
    });
    expect(await new WorkersAiProvider(ai, 'm').step(task, request)).toEqual({
      content: 'Done.',
      tool_calls: [{ id: 'w1', name: 'final_answer', arguments: { text: 'Done.' } }],
      usage: null,
    });
    const text = binding({ response: 'Only words.' });
    expect(await new WorkersAiProvider(text.ai, 'm').step(task, request)).toEqual({
      content: 'Only words.',
      tool_calls: [],
      usage: null,
    });
  });

  it('maps a failing binding and an unknown shape to dependency_unavailable', async () => {
    expect(
      (await apiError(new WorkersAiProvider(binding(new Error('capacity')).ai, 'm').step(task, request))).code,
    ).toBe('dependency_unavailable');
    expect((await apiError(new WorkersAiProvider(binding(42).ai, 'm').step(task, request))).code).toBe(
      'dependency_unavailable',
    );
    expect(
      (
        await apiError(
          new WorkersAiProvider(binding({ tool_calls: [{ name: 'x', arguments: 'not json' }] }).ai, 'm').step(
            task,
            request,
          ),
        )
      ).code,
    ).toBe('dependency_unavailable');
  });
});

describe('WorkersAiProvider.step, streaming', () => {
  const sse = (frames: unknown[]): ReadableStream<Uint8Array> => {
    const bytes = new TextEncoder().encode(
      `${frames.map((f) => `data: ${typeof f === 'string' ? f : JSON.stringify(f)}\n\n`).join('')}`,
    );
    // Two reads, cut mid-frame, as a network would deliver them.
    return new ReadableStream({
      start(controller) {
        controller.enqueue(bytes.slice(0, 17));
        controller.enqueue(bytes.slice(17));
        controller.close();
      },
    });
  };
  const request: StepRequest = { messages: [{ role: 'user', content: 'q' }], tools: TOOLS };

  it('asks the binding to stream and reads the traditional shape token by token, calls at the end', async () => {
    const inputs: Record<string, unknown>[] = [];
    const ai: WorkersAiBinding = {
      run: async (_model, input) => {
        inputs.push(input);
        return sse([
          { response: 'Budget ' },
          { response: 'first.' },
          { response: '', tool_calls: [{ name: 'final_answer', arguments: { text: 'Budget first.' } }] },
          { response: '', usage: { prompt_tokens: 12, completion_tokens: 4 } },
          '[DONE]',
        ]);
      },
    };
    const pieces: string[] = [];
    const result = await new WorkersAiProvider(ai, 'm').step(task, request, { onDelta: (t) => pieces.push(t) });
    expect(pieces).toEqual(['Budget ', 'first.']);
    expect(result).toEqual({
      content: 'Budget first.',
      tool_calls: [
        { id: expect.stringMatching(/^call_1_0_/), name: 'final_answer', arguments: { text: 'Budget first.' } },
      ],
      usage: { input_tokens: 12, output_tokens: 4 },
    });
    expect(inputs[0]).toMatchObject({ stream: true, tools: wireTools });
  });

  it('reads the OpenAI chunk shape too, and a broken stream as dependency_unavailable', async () => {
    const openAiShaped: WorkersAiBinding = {
      run: async () =>
        sse([
          { choices: [{ delta: { content: 'Hi' } }] },
          {
            choices: [
              {
                delta: {
                  tool_calls: [{ index: 0, id: 'w1', function: { name: 'final_answer', arguments: '{"text":"Hi"}' } }],
                },
              },
            ],
          },
          '[DONE]',
        ]),
    };
    const pieces: string[] = [];
    expect(
      await new WorkersAiProvider(openAiShaped, 'm').step(task, request, { onDelta: (t) => pieces.push(t) }),
    ).toEqual({
      content: 'Hi',
      tool_calls: [{ id: 'w1', name: 'final_answer', arguments: { text: 'Hi' } }],
      usage: null,
    });
    expect(pieces).toEqual(['Hi']);
    const broken: WorkersAiBinding = {
      run: async () =>
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('data: {"response":"par'));
            controller.error(new Error('connection reset'));
          },
        }),
    };
    expect(
      (await apiError(new WorkersAiProvider(broken, 'm').step(task, request, { onDelta: () => undefined }))).code,
    ).toBe('dependency_unavailable');
  });
});

describe('LocalModelProvider.step', () => {
  it('runs the task\u2019s own policy and checks what it returns', async () => {
    expect(await new LocalModelProvider().step(task, { messages: [], tools: [] })).toEqual({
      content: 'local',
      tool_calls: [],
      usage: null,
    });
    const broken: StepTask = {
      name: 'broken',
      local: () => ({ content: null, tool_calls: [{ id: '', name: 'x', arguments: {} }], usage: null }),
    };
    expect((await apiError(new LocalModelProvider().step(broken, { messages: [], tools: [] }))).code).toBe('internal');
  });
});
