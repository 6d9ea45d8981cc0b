import { and, asc, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runEvents } from '../../schema/runs.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { startFakeServer, type FakeServer } from '../support/fake-http-server.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * A research job with a hosted model: MODEL_PROVIDER=openai pointed at a local fake
 * OpenAI-compatible server that scripts the model's tool calls. The same job runs through tool
 * calls, pauses on the model's clarifying question, is grounded like any answer (the table the
 * model writes is re-run and compared), and ends partial when the model outruns its budget.
 */

type Body = {
  messages: { role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
  tool_choice?: string;
};
let script: (body: Body) => Record<string, unknown> = () => ({});
/**
 * When set, a step is answered as a server-sent-event stream instead: the chunks of the first list
 * at once, the rest once `release` resolves (so a test can look at the run while the model is still
 * mid-answer).
 */
let streamed: { first: unknown[]; rest: unknown[]; release: Promise<void> } | null = null;
const stepBodies: Body[] = [];
let server: FakeServer;
let h: Harness;
let ws: SeededWorkspace;

const toolCall = (id: string, name: string, args: Record<string, unknown>) => ({
  content: null,
  tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }],
});
const dealsQuery = {
  surface: 'deals',
  filters: [{ field: 'stage', op: 'eq', value: 'negotiation' }],
  order_by: { field: 'amount', dir: 'desc' },
  limit: 3,
};

beforeAll(async () => {
  server = await startFakeServer((req, res) => {
    const body = JSON.parse(req.body || '{}') as Body;
    // Only agent steps carry tools; other model tasks (search planning) and embeddings get an error, so
    // the service falls back to its local implementations for those and says so.
    if (!req.url.endsWith('/chat/completions') || !body.tools) {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"not scripted"}');
      return;
    }
    stepBodies.push(body);
    if (streamed && (body as { stream?: boolean }).stream === true) {
      const { first, rest, release } = streamed;
      streamed = null;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const send = (chunk: unknown) => res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      first.forEach(send);
      void release.then(() => {
        rest.forEach(send);
        res.end('data: [DONE]\n\n');
      });
      return;
    }
    const message = script(body);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 20 },
      }),
    );
  });
  h = await createHarness({
    database: await openCorpusDatabase(),
    env: {
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: `${server.url}/v1`,
      OPENAI_MODEL: 'gpt-scripted',
      OPENAI_EMBEDDING_MODEL: 'emb-scripted',
      OPENAI_API_KEY: 'sk-test',
    },
  });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
  await server.close();
});
afterEach(() => {
  stepBodies.length = 0;
});

const drain = () => (h.services.queue as LocalTransport).drain();
const lastTool = (body: Body) => [...body.messages].reverse().find((m) => m.role === 'tool');

describe('research with an OpenAI-compatible model', () => {
  it('pauses on the model\u2019s clarifying question, resumes with the answer, and verifies the table the model wrote', async () => {
    script = (body) => {
      const tools = body.messages.filter((m) => m.role === 'tool');
      if (tools.length === 0)
        return toolCall('q1', 'ask_user', {
          question: 'Deals of which stage?',
          options: [
            { id: 'negotiation', label: 'Negotiation' },
            { id: 'proposal', label: 'Proposal' },
          ],
        });
      if (tools.length === 1) return toolCall('s1', 'search_query', dealsQuery);
      const rows = (
        JSON.parse(lastTool(body)!.content ?? 'null') as { output: { results: { name: string; amount: number }[] } }
      ).output.results;
      return toolCall('done', 'final_answer', {
        text: `The largest deal in negotiation is ${rows[0]!.name}.`,
        content_blocks: [
          {
            kind: 'table',
            title: 'Deals in negotiation',
            columns: [
              { key: 'name', label: 'Deal' },
              { key: 'amount', label: 'Amount' },
            ],
            data: rows.map((r) => ({ name: r.name, amount: r.amount })),
            query: dealsQuery,
          },
        ],
        follow_ups: ['Which of them close this month?'],
      });
    };
    const started = await h.request('POST', '/research', {
      key: ws.editor.key,
      body: { question: 'Which big deals are close to closing?' },
    });
    await drain();
    const waiting = (await h.request('GET', `/research/${started.body.data.research_id}`, { key: ws.viewer.key })).body
      .data;
    expect(waiting).toMatchObject({
      status: 'needs_input',
      question_for_you: { kind: 'multiple_choice', question: 'Deals of which stage?' },
    });
    // The model was offered ask_user (questions allowed) but no continue-or-finish pause exists for research.
    expect(stepBodies[0]!.tools!.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['search_query', 'ask_user', 'final_answer']),
    );
    expect(stepBodies[0]!.messages[0]!.content).toContain('Agent: researcher');
    // The deep tier's instructions: plan the facets, answer with a sectioned report.
    expect(stepBodies[0]!.messages[0]!.content).toContain('Depth: deep');
    expect(stepBodies[0]!.messages[0]!.content).toContain('What this rests on');

    await h.request('POST', `/research/${waiting.research_id}/respond`, {
      key: ws.editor.key,
      body: { answer: 'Negotiation' },
    });
    await drain();
    const done = (await h.request('GET', `/research/${waiting.research_id}`, { key: ws.viewer.key })).body.data;
    expect(done.status).toBe('complete');
    expect(done.answer.grounding).toMatchObject({ verified: true, tables: { checked: 1, verified: 1, removed: 0 } });
    expect(done.answered_questions).toEqual([
      expect.objectContaining({ answer: 'Negotiation', option_id: 'negotiation' }),
    ]);
    // The answer reached the model as the ask_user tool result.
    expect(
      JSON.parse(stepBodies[1]!.messages.find((m) => m.role === 'tool' && m.tool_call_id === 'q1')!.content ?? 'null'),
    ).toEqual({ ok: true, output: { answer: 'Negotiation', option_id: 'negotiation' } });
  });

  it('removes a table the model tampered with, and says so', async () => {
    script = (body) => {
      if (!body.messages.some((m) => m.role === 'tool')) return toolCall('s1', 'search_query', dealsQuery);
      return toolCall('done', 'final_answer', {
        text: 'The deals are in the table.',
        content_blocks: [
          {
            kind: 'table',
            title: null,
            columns: [{ key: 'name', label: 'Deal' }],
            data: [{ name: 'A deal that does not exist' }],
            query: dealsQuery,
          },
        ],
      });
    };
    const started = await h.request('POST', '/research', {
      key: ws.editor.key,
      body: { question: 'Deals in negotiation?', allow_questions: false },
    });
    await drain();
    const done = (await h.request('GET', `/research/${started.body.data.research_id}`, { key: ws.viewer.key })).body
      .data;
    expect(done.answer.grounding).toMatchObject({ verified: false, tables: { removed: 1 } });
    expect(done.answer.content_blocks.map((b: { kind: string }) => b.kind)).toEqual(['callout']);
  });

  it('completes partial (turn_limit) when the model outruns the budget, and records token usage', async () => {
    script = (body) =>
      body.tool_choice === 'required'
        ? toolCall('done', 'final_answer', {
            text: 'Here is what I found before the budget ran out: nothing conclusive.',
          })
        : toolCall(`s${body.messages.length}`, 'search_query', { surface: 'deals', metrics: [{ fn: 'count' }] });
    const started = await h.request('POST', '/research', {
      key: ws.editor.key,
      body: { question: 'Dig as long as you like.', allow_questions: false },
    });
    await drain();
    const done = (await h.request('GET', `/research/${started.body.data.research_id}`, { key: ws.viewer.key })).body
      .data;
    expect(done.status).toBe('complete');
    expect(done.answer).toMatchObject({ partial: true, partial_reason: 'turn_limit' });
    // Research runs at the deep tier: 75 turns, then one that may only answer.
    expect(stepBodies).toHaveLength(76);
    expect(stepBodies.at(-1)!.tools!.map((t) => t.function.name)).toEqual(['final_answer']);
    const run = (await h.request('GET', `/chat/runs/${done.research_id}`, { key: ws.viewer.key })).body.data;
    expect(run.usage).toEqual({ turns_used: 76, turn_budget: 75, input_tokens: 7600, output_tokens: 1520 });
  }, 120_000);

  it('fails with a clear error when nothing can be written', async () => {
    script = (body) =>
      body.tool_choice === 'required'
        ? { content: null, tool_calls: [] }
        : toolCall(`s${body.messages.length}`, 'search_query', { surface: 'deals', metrics: [{ fn: 'count' }] });
    const started = await h.request('POST', '/research', {
      key: ws.editor.key,
      body: { question: 'Never answer.', allow_questions: false },
    });
    await drain();
    const done = (await h.request('GET', `/research/${started.body.data.research_id}`, { key: ws.viewer.key })).body
      .data;
    expect(done).toMatchObject({
      status: 'failed',
      answer: null,
      error: expect.stringMatching(/without (writing )?an answer/),
    });
  }, 120_000);
});

describe('a hosted model that streams', () => {
  const chunk = (delta: Record<string, unknown>, usage?: Record<string, number>) => ({
    id: 'x',
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta }],
    ...(usage ? { usage } : {}),
  });
  const eventsOf = (runId: string) =>
    h.database.db
      .select({ seq: runEvents.seq, type: runEvents.type, data: runEvents.data })
      .from(runEvents)
      .where(and(eq(runEvents.runId, runId)))
      .orderBy(asc(runEvents.seq));

  it('puts its text on the run stream as answer.delta events while it is still answering', async () => {
    let release!: () => void;
    const answer = { text: 'Nothing in the data settles it yet.', content_blocks: [], follow_ups: [] };
    const args = JSON.stringify(answer);
    streamed = {
      first: [chunk({ role: 'assistant', content: 'Reading ' }), chunk({ content: 'the deals' })],
      rest: [
        chunk({ content: ' now.' }),
        chunk({
          tool_calls: [{ index: 0, id: 'f1', type: 'function', function: { name: 'final_answer', arguments: '' } }],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 20) } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(20) } }] }),
        { id: 'x', object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 70, completion_tokens: 9 } },
      ],
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    };
    const started = await h.request('POST', '/research', {
      key: ws.editor.key,
      body: { question: 'Stream me an answer.', allow_questions: false },
    });
    const id = started.body.data.research_id as string;
    const draining = drain();
    // The first pieces reach the stream while the model still holds the rest of its answer.
    let early: { type: string; data: Record<string, unknown> }[] = [];
    for (let i = 0; i < 600 && early.filter((e) => e.type === 'answer.delta').length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      early = await eventsOf(id);
    }
    expect(
      early
        .filter((e) => e.type === 'answer.delta')
        .map((e) => e.data.text)
        .join(''),
    ).toMatch(/^Reading /);
    expect(early.map((e) => e.type)).not.toContain('answer.block');
    expect(early.map((e) => e.type)).not.toContain('run.completed');
    release();
    await draining;

    const events = await eventsOf(id);
    const types = events.map((e) => e.type);
    const deltas = events.filter((e) => e.type === 'answer.delta');
    expect(deltas.map((e) => e.data.text).join('')).toBe('Reading the deals now.');
    // Every delta comes before the turn's commit (its stage.completed) and the run's end.
    expect(types.lastIndexOf('answer.delta')).toBeLessThan(types.indexOf('stage.completed'));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const done = (await h.request('GET', `/research/${id}`, { key: ws.viewer.key })).body.data;
    expect(done.status).toBe('complete');
    expect(done.answer.text).toBe(answer.text);
    const run = (await h.request('GET', `/chat/runs/${id}`, { key: ws.viewer.key })).body.data;
    expect(run.usage).toMatchObject({ input_tokens: 70, output_tokens: 9 });
    // The request asked for a stream with usage in it.
    expect(stepBodies.at(-1)).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  }, 120_000);
});
