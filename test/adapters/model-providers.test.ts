import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from '../../platform/errors.js';
import { LocalHashEmbedder, LocalModelProvider, embedLocally } from '../../platform/model/local.js';
import { runWithLocalFallback } from '../../platform/model/fallback.js';
import { OpenAiCompatibleProvider, openAiEmbedder } from '../../platform/model/openai.js';
import { EMBEDDING_DIMENSIONS, type ModelTask } from '../../platform/model/port.js';
import { WorkersAiEmbedder, WorkersAiProvider, type WorkersAiBinding } from '../../platform/model/workers-ai.js';
import { startFakeServer, type FakeRequest, type FakeServer } from '../support/fake-http-server.js';

/**
 * The model adapters against a fake OpenAI-compatible server on 127.0.0.1 (asserting the exact
 * request it receives) and a fake Workers AI binding; the local provider and embedder directly.
 */

const Input = z.object({ question: z.string().min(1), limit: z.number().int().positive() });
const Output = z.object({ answer: z.string(), citations: z.array(z.string()).max(3) });
type In = z.infer<typeof Input>;
type Out = z.infer<typeof Output>;

const task: ModelTask<In, Out> = {
  name: 'answer.with-citations v1',
  instructions: 'Answer the question from the given facts; cite fact ids.',
  input: Input,
  output: Output,
  local: (input) => ({ answer: `local:${input.question}`, citations: [] }),
};

interface Recorded extends FakeRequest {
  json: any;
}

const requests: Recorded[] = [];
let respond: (r: Recorded) => { status: number; body: string } = () => ({ status: 500, body: 'unset' });
let server: FakeServer;
let baseUrl: string;

beforeAll(async () => {
  server = await startFakeServer((req, res) => {
    let json: unknown = null;
    try {
      json = JSON.parse(req.body);
    } catch {
      json = req.body;
    }
    const recorded = { ...req, json };
    requests.push(recorded);
    const { status, body } = respond(recorded);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  baseUrl = `${server.url}/v1`;
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  requests.length = 0;
});

const completion = (content: string | null) => ({
  status: 200,
  body: JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  }),
});

const provider = () =>
  new OpenAiCompatibleProvider({
    baseUrl: `${baseUrl}/`,
    apiKey: 'sk-test-123',
    model: 'gpt-test-mini',
    embeddingModel: 'text-embedding-test',
    timeoutMs: 5000,
  });

async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('OpenAiCompatibleProvider.run', () => {
  it('sends the exact chat-completions request and returns the validated output', async () => {
    respond = () => completion(JSON.stringify({ answer: 'Paris', citations: ['f1'] }));
    const input = { question: 'Capital of France?', limit: 3 };
    const out = await provider().run(task, input);
    expect(out).toEqual({ answer: 'Paris', citations: ['f1'] });

    expect(requests).toHaveLength(1);
    const [req] = requests;
    expect(req?.method).toBe('POST');
    expect(req?.url).toBe('/v1/chat/completions');
    expect(req?.headers.authorization).toBe('Bearer sk-test-123');
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.json).toEqual({
      model: 'gpt-test-mini',
      temperature: 0,
      messages: [
        { role: 'system', content: task.instructions },
        { role: 'user', content: JSON.stringify(input) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'answer_with-citations_v1', schema: z.toJSONSchema(Output, { target: 'draft-7' }) },
      },
    });
    // The schema sent is the task's output schema.
    expect(req?.json.response_format.json_schema.schema).toMatchObject({
      type: 'object',
      properties: { answer: { type: 'string' }, citations: { type: 'array', items: { type: 'string' }, maxItems: 3 } },
      required: ['answer', 'citations'],
    });
    expect(provider().id).toBe('openai:gpt-test-mini');
  });

  it('sends no Authorization header without an API key (local OpenAI-compatible servers)', async () => {
    respond = () => completion(JSON.stringify({ answer: 'x', citations: [] }));
    const p = new OpenAiCompatibleProvider({ baseUrl, model: 'm', embeddingModel: 'e' });
    await p.run(task, { question: 'q', limit: 1 });
    expect(requests[0]?.headers.authorization).toBeUndefined();
  });

  it('validates the input before calling out', async () => {
    await expect(provider().run(task, { question: '', limit: 0 })).rejects.toThrow();
    expect(requests).toHaveLength(0);
  });

  it('refuses non-JSON output, schema-mismatching output and an empty completion as dependency_unavailable', async () => {
    for (const content of [
      'Paris is the capital.',
      JSON.stringify({ answer: 42 }),
      JSON.stringify({ answer: 'a', citations: ['1', '2', '3', '4'] }),
      '',
      null,
    ]) {
      respond = () => completion(content);
      const error = await apiError(provider().run(task, { question: 'q', limit: 1 }));
      expect(error.code).toBe('dependency_unavailable');
      expect(error.status).toBe(503);
      expect(error.retry).toBe(true);
    }
    respond = () => ({ status: 200, body: JSON.stringify({ choices: [] }) });
    expect((await apiError(provider().run(task, { question: 'q', limit: 1 }))).code).toBe('dependency_unavailable');
    respond = () => ({ status: 200, body: '<html>not json</html>' });
    expect((await apiError(provider().run(task, { question: 'q', limit: 1 }))).code).toBe('dependency_unavailable');
  });

  it('maps HTTP 500 to dependency_unavailable without leaking the provider body', async () => {
    const secret = 'org-SECRET-account-details sk-live-leak';
    respond = () => ({ status: 500, body: JSON.stringify({ error: { message: secret } }) });
    const error = await apiError(provider().run(task, { question: 'q', limit: 1 }));
    expect(error.code).toBe('dependency_unavailable');
    expect(error.message).not.toContain('SECRET');
    expect(JSON.stringify(error.toEnvelope())).not.toContain('SECRET');
    expect(error.details).toEqual({ provider_status: 500 });
    respond = () => ({ status: 429, body: secret });
    expect((await apiError(provider().run(task, { question: 'q', limit: 1 }))).message).toBe(
      'The model provider answered HTTP 429.',
    );
  });

  it('maps an unreachable provider and a timeout to dependency_unavailable', async () => {
    const unreachable = new OpenAiCompatibleProvider({
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      embeddingModel: 'e',
    });
    expect((await apiError(unreachable.run(task, { question: 'q', limit: 1 }))).code).toBe('dependency_unavailable');
    const hanging = new OpenAiCompatibleProvider({
      baseUrl,
      model: 'm',
      embeddingModel: 'e',
      timeoutMs: 50,
      fetch: (_input, init) =>
        new Promise<Response>((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    });
    expect((await apiError(hanging.run(task, { question: 'q', limit: 1 }))).code).toBe('dependency_unavailable');
  });
});

const vec = (seed: number, dims = EMBEDDING_DIMENSIONS) =>
  Array.from({ length: dims }, (_, i) => ((seed * 31 + i) % 17) / 17);

describe('OpenAiCompatibleProvider.embed', () => {
  it('sends the exact embeddings request and reorders results by index', async () => {
    respond = () => ({
      status: 200,
      body: JSON.stringify({
        object: 'list',
        data: [
          { object: 'embedding', index: 2, embedding: vec(2) },
          { object: 'embedding', index: 0, embedding: vec(0) },
          { object: 'embedding', index: 1, embedding: vec(1) },
        ],
        model: 'text-embedding-test',
      }),
    });
    const p = provider();
    const vectors = await openAiEmbedder(p).embed(['alpha', 'beta', 'gamma']);
    expect(vectors).toEqual([vec(0), vec(1), vec(2)]);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.method).toBe('POST');
    expect(requests[0]?.url).toBe('/v1/embeddings');
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-test-123');
    expect(requests[0]?.json).toEqual({
      model: 'text-embedding-test',
      input: ['alpha', 'beta', 'gamma'],
      dimensions: 384,
      encoding_format: 'float',
    });
    expect(openAiEmbedder(p).id).toBe('openai:text-embedding-test@384');
    expect(openAiEmbedder(p).dimensions).toBe(384);
  });

  it('makes no request for no texts', async () => {
    expect(await provider().embed([])).toEqual([]);
    expect(requests).toHaveLength(0);
  });

  it('refuses vectors of the wrong dimension, a wrong count, duplicated indexes and a 500', async () => {
    respond = () => ({ status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: vec(0, 1536) }] }) });
    expect((await apiError(provider().embed(['a']))).code).toBe('dependency_unavailable');
    respond = () => ({ status: 200, body: JSON.stringify({ data: [{ index: 0, embedding: vec(0) }] }) });
    expect((await apiError(provider().embed(['a', 'b']))).code).toBe('dependency_unavailable');
    respond = () => ({
      status: 200,
      body: JSON.stringify({
        data: [
          { index: 1, embedding: vec(0) },
          { index: 1, embedding: vec(1) },
        ],
      }),
    });
    expect(await apiError(provider().embed(['a', 'b']))).toMatchObject({ code: 'dependency_unavailable' });
    respond = () => ({ status: 500, body: 'secret upstream text' });
    const error = await apiError(provider().embed(['a']));
    expect(error.code).toBe('dependency_unavailable');
    expect(error.message).not.toContain('secret');
  });
});

/** A fake Workers AI binding that records every call and answers from a queue. */
function fakeBinding(
  answers: ((model: string, input: Record<string, unknown>) => unknown)[],
): WorkersAiBinding & { calls: { model: string; input: Record<string, unknown> }[] } {
  const calls: { model: string; input: Record<string, unknown> }[] = [];
  return {
    calls,
    async run(model, input) {
      calls.push({ model, input });
      const answer = answers.shift();
      if (!answer) throw new Error('unexpected call');
      return answer(model, input);
    },
  };
}

describe('WorkersAiProvider and WorkersAiEmbedder (fake binding)', () => {
  it('runs a task in JSON mode with the task schema, accepting an object or a JSON string response', async () => {
    const ai = fakeBinding([
      () => ({ response: { answer: 'obj', citations: [] } }),
      () => ({ response: JSON.stringify({ answer: 'str', citations: ['c'] }) }),
    ]);
    const p = new WorkersAiProvider(ai, '@cf/meta/llama-3.1-8b-instruct');
    expect(p.id).toBe('workers_ai:@cf/meta/llama-3.1-8b-instruct');
    const input = { question: 'q?', limit: 2 };
    expect(await p.run(task, input)).toEqual({ answer: 'obj', citations: [] });
    expect(await p.run(task, input)).toEqual({ answer: 'str', citations: ['c'] });
    expect(ai.calls[0]).toEqual({
      model: '@cf/meta/llama-3.1-8b-instruct',
      input: {
        messages: [
          { role: 'system', content: task.instructions },
          { role: 'user', content: JSON.stringify(input) },
        ],
        response_format: { type: 'json_schema', json_schema: z.toJSONSchema(Output, { target: 'draft-7' }) },
      },
    });
  });

  it('refuses non-JSON, off-schema and unexpected responses, and binding failures, as dependency_unavailable', async () => {
    const ai = fakeBinding([
      () => ({ response: 'not json at all' }),
      () => ({ response: { answer: 1 } }),
      () => ({ nothing: true }),
      () => {
        throw new Error('3040: capacity exceeded');
      },
    ]);
    const p = new WorkersAiProvider(ai, 'm');
    for (let i = 0; i < 4; i++)
      expect((await apiError(p.run(task, { question: 'q', limit: 1 }))).code).toBe('dependency_unavailable');
  });

  it('embeds through the binding with the text array and checks 384 dimensions', async () => {
    const ai = fakeBinding([
      () => ({ shape: [2, 384], data: [vec(1), vec(2)] }),
      () => ({ shape: [1, 768], data: [vec(1, 768)] }),
      () => ({ data: [vec(1)] }),
    ]);
    const e = new WorkersAiEmbedder(ai, '@cf/baai/bge-small-en-v1.5');
    expect(e.id).toBe('workers_ai:@cf/baai/bge-small-en-v1.5');
    expect(await e.embed(['a', 'b'])).toEqual([vec(1), vec(2)]);
    expect(ai.calls[0]).toEqual({ model: '@cf/baai/bge-small-en-v1.5', input: { text: ['a', 'b'] } });
    expect(await apiError(e.embed(['a']))).toMatchObject({ code: 'dependency_unavailable' });
    expect(await apiError(e.embed(['a', 'b']))).toMatchObject({ code: 'dependency_unavailable' });
    expect(await e.embed([])).toEqual([]);
    expect(ai.calls).toHaveLength(3);
  });

  it('maps a failing binding during embedding to dependency_unavailable', async () => {
    const ai = fakeBinding([
      () => {
        throw new Error('AiError: 5007: no such model');
      },
    ]);
    expect((await apiError(new WorkersAiEmbedder(ai, 'm').embed(['a']))).code).toBe('dependency_unavailable');
  });
});

const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * (b[i] ?? 0), 0);
const norm = (a: number[]) => Math.sqrt(a.reduce((s, v) => s + v * v, 0));

describe('LocalHashEmbedder', () => {
  const embedder = new LocalHashEmbedder();

  it('is deterministic, 384-dimensional and unit length', async () => {
    const text = 'Customers who churned after the pricing change in March';
    const [a, b] = await embedder.embed([text, text]);
    const [c] = await new LocalHashEmbedder().embed([text]);
    expect(a).toHaveLength(384);
    expect(a).toEqual(b);
    expect(a).toEqual(c);
    expect(a).toEqual(embedLocally(text));
    expect(norm(a!)).toBeCloseTo(1, 10);
    expect(embedder.dimensions).toBe(384);
    expect(embedder.id).toBe('local:hash-ngram-v3');
  });

  it('puts similar texts closer than unrelated ones', async () => {
    const [base, similar, unrelated] = await embedder.embed([
      'enterprise customers renewing their annual subscription',
      'annual subscription renewals for enterprise customers',
      'warehouse forklift maintenance schedule for tuesday',
    ]);
    expect(cosine(base!, similar!)).toBeGreaterThan(0.5);
    expect(cosine(base!, similar!)).toBeGreaterThan(cosine(base!, unrelated!) + 0.3);
    // Inflected forms still share character trigrams, so they beat unrelated text.
    const [inflected] = await embedder.embed(['enterprise customer renewed the annual subscriptions']);
    expect(cosine(base!, inflected!)).toBeGreaterThan(cosine(base!, unrelated!) + 0.1);
  });

  it('weights words by inverse document frequency: a shared question word no longer makes two texts near', async () => {
    const [question, sharesOften, sharesTopic] = await embedder.embed([
      'which competitors come up most often',
      'how often does the Salesforce sync run, is it real time or batched?',
      'we are comparing you with two competitors',
    ]);
    // v2 put these at 0.15 and 0.21: "often" was worth almost as much as "competitors".
    expect(cosine(question!, sharesOften!)).toBeLessThan(0.05);
    expect(cosine(question!, sharesTopic!)).toBeGreaterThan(0.4);
  });

  it('gives empty and stopword-only text a zero vector, never NaN', async () => {
    for (const text of ['', '   ', 'the and of to', '!!! ???']) {
      const [v] = await embedder.embed([text]);
      expect(v).toHaveLength(384);
      expect(v!.every((x) => x === 0)).toBe(true);
      expect(v!.some((x) => Number.isNaN(x))).toBe(false);
    }
  });
});

describe('LocalModelProvider', () => {
  it('runs the task’s local implementation with validated input and output', async () => {
    const p = new LocalModelProvider();
    expect(p.id).toBe('local');
    expect(await p.run(task, { question: 'why?', limit: 2 })).toEqual({ answer: 'local:why?', citations: [] });
  });

  it('rejects invalid input before running and output outside the schema', async () => {
    const p = new LocalModelProvider();
    let ran = false;
    const spy: ModelTask<In, Out> = {
      ...task,
      local: () => {
        ran = true;
        return { answer: 'x', citations: [] };
      },
    };
    await expect(p.run(spy, { question: '', limit: 1 })).rejects.toThrow();
    expect(ran).toBe(false);
    const broken: ModelTask<In, Out> = { ...task, local: () => ({ answer: 'x', citations: ['1', '2', '3', '4'] }) };
    const error = await apiError(p.run(broken, { question: 'q', limit: 1 }));
    expect(error.code).toBe('internal');
    // Output is the parsed value (unknown keys stripped), not the raw object.
    const extra: ModelTask<In, Out> = { ...task, local: () => ({ answer: 'x', citations: [], extra: true }) as Out };
    expect(await p.run(extra, { question: 'q', limit: 1 })).toEqual({ answer: 'x', citations: [] });
  });
});

describe('runWithLocalFallback', () => {
  it('returns the configured model’s answer when it works', async () => {
    respond = () => completion(JSON.stringify({ answer: 'hosted', citations: [] }));
    expect(await runWithLocalFallback(provider(), task, { question: 'q', limit: 1 })).toEqual({
      output: { answer: 'hosted', citations: [] },
      ranBy: 'openai:gpt-test-mini',
    });
  });

  it('runs the task’s local implementation when a hosted model fails, and says which failed', async () => {
    respond = () => ({ status: 500, body: 'upstream down' });
    const ran = await runWithLocalFallback(provider(), task, { question: 'q', limit: 1 });
    expect(ran).toMatchObject({
      output: { answer: 'local:q', citations: [] },
      ranBy: 'local',
      failure: { model: 'openai:gpt-test-mini' },
    });
  });

  it('throws when the local provider itself fails (a bug, not an outage)', async () => {
    const broken: ModelTask<In, Out> = { ...task, local: () => ({ answer: 1 }) as unknown as Out };
    await expect(runWithLocalFallback(new LocalModelProvider(), broken, { question: 'q', limit: 1 })).rejects.toThrow();
  });
});
