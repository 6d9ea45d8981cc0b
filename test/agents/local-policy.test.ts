import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAgentStep } from '../../functions/agents/local-policy/index.js';
import type { AgentMessage, StepRequest } from '../../platform/model/port.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';
import { loadTokenizer } from '../../functions/agents/understanding/tokens.js';

/**
 * The local model's behaviour beyond the demo questions: it asks only when the data is ambiguous
 * (and assumes out loud when it cannot ask), says so when there is no evidence or no tool to get
 * it, answers at once when the budget is spent, and is a pure function of the transcript.
 */

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const drain = () => (h.services.queue as LocalTransport).drain();
async function chat(body: Record<string, unknown>) {
  const started = await h.request('POST', '/chat', { key: ws.editor.key, body });
  expect(started.status, started.text).toBe(202);
  await drain();
  return {
    handles: started.body.data,
    run: (await h.request('GET', `/chat/runs/${started.body.data.run_id}`, { key: ws.viewer.key })).body.data,
  };
}

// The local model's reader needs its NLP library loaded (the agent step task does this before a run's first step).
beforeAll(loadTokenizer);
describe('a company name that matches several accounts', () => {
  it('asks which one when the run may pause, then answers about the one chosen', async () => {
    const { handles, run } = await chat({ input: 'prep me for my call with Acme', on_question: 'pause' });
    expect(run.status).toBe('awaiting_input');
    expect(run.pending_input_type).toBe('question');
    expect(run.pending_input_context.question).toMatch(/Acme Health and Acme Logistics|Acme Logistics and Acme Health/);
    const options = run.pending_input_context.options as { id: string; label: string }[];
    expect(options.map((o) => o.label).sort()).toEqual([
      'Acme Health',
      'Acme Logistics',
      'Something else (write it in)',
    ]);
    const logistics = options.find((o) => o.label === 'Acme Logistics')!;
    const resumed = await h.request('POST', `/agents/${handles.run_id}/resume`, {
      key: ws.editor.key,
      body: { input: { option_id: logistics.id } },
    });
    expect(resumed.status, resumed.text).toBe(200);
    await drain();
    const done = (await h.request('GET', `/chat/runs/${handles.run_id}`, { key: ws.viewer.key })).body.data;
    expect(done.status).toBe('complete');
    expect(done.answer.text).toContain('Where things stand with Acme Logistics');
    expect(done.answer.text).not.toContain('Acme Health');
    expect(done.answer.grounding.verified).toBe(true);
  });

  it('takes a written-in answer that names one of the accounts', async () => {
    const { handles } = await chat({ input: 'what did Acme say about pricing?', on_question: 'pause' });
    await h.request('POST', `/agents/${handles.run_id}/resume`, {
      key: ws.editor.key,
      body: { input: { option_id: 'other', response: 'Acme Health' } },
    });
    await drain();
    const done = (await h.request('GET', `/chat/runs/${handles.run_id}`, { key: ws.viewer.key })).body.data;
    expect(done.status).toBe('complete');
    expect(done.answer.text).toContain('Acme Health');
  });

  it('picks the most likely reading and says so when it may not ask', async () => {
    const { run } = await chat({ input: 'prep me for my call with Acme' });
    expect(run.status).toBe('complete');
    expect(run.answer.text).toMatch(
      /I took "Acme" to mean \*\*Acme (Health|Logistics)\*\*; Acme (Health|Logistics) also matches/,
    );
    expect(run.answer.grounding.verified).toBe(true);
  });

  it('does not ask when the name is exact', async () => {
    const { run } = await chat({ input: 'brief me on Acme Logistics', on_question: 'pause' });
    expect(run.status).toBe('complete');
    expect(run.pending_input_type).toBeNull();
  });
});

describe('honest empties', () => {
  it('says it found no such account instead of inventing one', async () => {
    const { run } = await chat({ input: 'prep me for my call with Zanzibar Aerospace' });
    expect(run.answer.text).toMatch(/couldn't find an account called \*\*Zanzibar Aerospace\*\*/);
    // Only what the answer rests on: the coverage of the data it searched.
    expect(run.answer.content_blocks.map((b: { kind: string; title?: string }) => [b.kind, b.title])).toEqual([
      ['table', 'What the interactions searched cover'],
    ]);
  });

  it('says no deal matches, with a zero backed by its metric', async () => {
    const { run } = await chat({ input: 'which deals over $5M are in negotiation?' });
    expect(run.answer.text).toMatch(/No deals match/);
    expect(run.answer.content_blocks[0]).toMatchObject({ kind: 'metric', value: 0, column: 'count' });
    expect(run.answer.content_blocks.filter((b: { kind: string }) => b.kind === 'quote')).toEqual([]);
    expect(run.answer.grounding.verified).toBe(true);
  });

  it('says it cannot search when its agent may not call search, rather than answering from nothing', async () => {
    const agent = await h.request('POST', '/agents', {
      key: ws.editor.key,
      body: { name: 'Blind agent', prompt: 'Answer.', tool_blocklist: ['search.query'] },
    });
    const { run } = await chat({ input: 'why do customers push back on pricing?', agent: agent.body.data.agent.slug });
    expect(run.status).toBe('complete');
    expect(run.answer.text).toMatch(/can't search/);
    expect(run.usage.turns_used).toBe(1);
  });
});

describe('as a function of the transcript', () => {
  const system = `You are the researcher.\n\nToday is ${CORPUS_NOW.toISOString().slice(0, 10)}.\nAgent: researcher`;
  const tools = ['search_query', 'search_fields', 'final_answer'].map((name) => ({
    name,
    description: name,
    parameters: { type: 'object' },
  }));

  it('returns the same step for the same request', () => {
    const request: StepRequest = {
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'which deals over $50K are in negotiation?' },
      ],
      tools,
    };
    expect(localAgentStep(structuredClone(request))).toEqual(localAgentStep(structuredClone(request)));
    // The first step learns the workspace's vocabulary (accounts, deals, owners) the ask is read against.
    expect(localAgentStep(request).tool_calls.map((c) => c.id)).toEqual(['s1_vocab_deals', 's1_vocab_accounts']);
  });

  it('answers at once, honestly, when only final_answer is offered and it must be called', () => {
    const step = localAgentStep({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'why do customers push back on pricing?' },
      ],
      tools: [tools[2]!],
      toolChoice: 'required',
    });
    expect(step.tool_calls).toHaveLength(1);
    expect(step.tool_calls[0]!.name).toBe('final_answer');
    expect(String(step.tool_calls[0]!.arguments.text)).toMatch(/ran out of turns before I could search/);
  });

  it('carries the account of an earlier turn into a follow-up', () => {
    const step = localAgentStep({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'prep me for my call with Tidewater Logistics' },
        { role: 'assistant', content: 'Here is the brief.' },
        { role: 'user', content: 'and what about security?' },
        ...vocabularyExchange(2, ['Tidewater Logistics', 'Acme Logistics']),
      ],
      tools,
    });
    expect(step.tool_calls[0]).toEqual({
      id: 's3_resolve',
      name: 'search_query',
      arguments: { query: 'Tidewater Logistics', mode: 'fuzzy', limit: 1 },
    });
  });
});

/** The vocabulary step of a run, as the transcript holds it: the two aggregates and their rows. */
function vocabularyExchange(step: number, accounts: string[]): AgentMessage[] {
  const deals = `s${step}_vocab_deals`;
  const names = `s${step}_vocab_accounts`;
  const result = (rows: Record<string, unknown>[]) => JSON.stringify({ ok: true, output: { results: rows } });
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: deals, name: 'search_query', arguments: {} },
        { id: names, name: 'search_query', arguments: {} },
      ],
    },
    { role: 'tool', tool_call_id: deals, name: 'search_query', content: result([]) },
    {
      role: 'tool',
      tool_call_id: names,
      name: 'search_query',
      content: result(accounts.map((a) => ({ account_name: a, count: 1 }))),
    },
  ];
}

describe('a question the data cannot answer, naming a period', () => {
  it('says the period as it was asked (no digits masked as #), and the answer is verified', async () => {
    const { run } = await chat({ input: 'What was our NRR in Q3 2026?' });
    expect(run.status).toBe('complete');
    expect(run.answer.text).toContain('the period "Q3 2026"');
    expect(run.answer.text).not.toContain('#');
    expect(run.answer.grounding).toMatchObject({ verified: true, numbers: { unverified: [] } });
  });
});
