import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadRun } from '../../queues/run-store.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import type { QueueTransport } from '../../queues/transport/port.js';
import { runs as runsTable, usageCounters, workspaces } from '../../schema/index.js';
import { RecordingQueue } from '../engine/fixtures.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * Research jobs through REST on the demo corpus with the local model: the endpoints, every state
 * transition of the spec's table (and each wrong-state respond and cancel), clarifying questions
 * from the data, the monthly cap.
 */

let h: Harness;
let ws: SeededWorkspace;
let originalQueue: QueueTransport;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
  originalQueue = h.services.queue;
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});
afterEach(() => {
  h.services.queue = originalQueue;
});

const drain = () => (h.services.queue as LocalTransport).drain();
const start = (body: Record<string, unknown>, key = ws.editor.key) => h.request('POST', '/research', { key, body });
const read = (id: string, query: Record<string, string | number> = {}) =>
  h.request('GET', `/research/${id}`, { key: ws.viewer.key, query });
const respond = (id: string, body: Record<string, unknown>) =>
  h.request('POST', `/research/${id}/respond`, { key: ws.editor.key, body });
const cancel = (id: string) => h.request('POST', `/research/${id}/cancel`, { key: ws.editor.key });

async function research(body: Record<string, unknown>) {
  const res = await start(body);
  expect(res.status, res.text).toBe(202);
  await drain();
  return (await read(res.body.data.research_id)).body.data;
}

describe('POST /research and GET /research/{id}', () => {
  it('starts a job, answers with its ids, and reads a cited answer when complete', async () => {
    const res = await start({
      question: 'Why do customers push back on pricing?',
      context: 'For the Q4 pricing review.',
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body.data).toEqual({
      success: true,
      research_id: expect.any(String),
      chat_id: expect.any(String),
      status: 'queued',
    });
    await drain();
    const job = (await read(res.body.data.research_id, { wait_ms: 10_000 })).body.data;
    expect(job).toMatchObject({
      research_id: res.body.data.research_id,
      chat_id: res.body.data.chat_id,
      status: 'complete',
      question: 'Why do customers push back on pricing?\n\nContext: For the Q4 pricing review.',
      question_for_you: null,
      answered_questions: [],
      error: null,
    });
    expect(job.answer.grounding.problems, job.answer.text).toEqual([]);
    expect(job.answer).toMatchObject({ partial: false, partial_reason: null, grounding: { verified: true } });
    expect(job.answer.content_blocks.some((b: { kind: string }) => b.kind === 'quote')).toBe(true);
    expect(job.answer.content_blocks.some((b: { kind: string }) => b.kind === 'table')).toBe(true);
    expect(job.answer.follow_ups.length).toBeLessThanOrEqual(4);
    expect(job.started_at).toEqual(expect.any(String));
    expect(job.completed_at).toEqual(expect.any(String));
    // Recorded as a chat too.
    const chat = (await h.request('GET', `/chats/${job.chat_id}`, { key: ws.viewer.key })).body.data;
    expect(chat.turns.map((t: { role: string }) => t.role)).toEqual(['user', 'assistant']);
  });

  it('reads a queued job as running, with a null answer', async () => {
    h.services.queue = new RecordingQueue();
    const res = await start({ question: 'What do customers say about onboarding?' });
    const job = (await read(res.body.data.research_id)).body.data;
    expect(job).toMatchObject({ status: 'running', answer: null, started_at: null });
  });

  it('refuses unknown fields and bad values before anything is counted, naming the field', async () => {
    for (const [body, field] of [
      [{ question: 'x', depth: 'deep' }, 'depth'],
      [{}, 'question'],
      [{ question: '' }, 'question'],
      [{ question: 'x', allow_questions: 'yes' }, 'allow_questions'],
    ] as const) {
      const res = await start(body as Record<string, unknown>);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_argument');
      expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
  });

  it('is 404 for a malformed id, an unknown id, and a plain chat run\u2019s id', async () => {
    const chat = await h.request('POST', '/chat', { key: ws.editor.key, body: { input: 'hello' } });
    for (const id of ['not-a-uuid', '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f', chat.body.data.run_id]) {
      for (const res of [await read(id), await respond(id, { answer: 'x' }), await cancel(id)]) {
        expect(res.status, id).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    }
    await drain();
  });

  it('streams the job\u2019s events with Accept: text/event-stream', async () => {
    const res = await start({ question: 'Which deals over $50K are in negotiation?' });
    await drain();
    const stream = await h.fetch(`/api/platform/v1/research/${res.body.data.research_id}`, {
      headers: { 'x-api-key': ws.viewer.key, accept: 'text/event-stream' },
    });
    const text = await stream.text();
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    expect(text).toContain('event: tool.started');
    expect(text.trim().split('\n\n').at(-1)).toContain('event: run.completed');
  });
});

describe('clarifying questions', () => {
  it('asks which account when a name matches several; a choice label answers it; the answer is about that account', async () => {
    const job = await research({ question: 'What did Acme say about pricing?' });
    expect(job.status).toBe('needs_input');
    expect(job.question_for_you).toMatchObject({ kind: 'multiple_choice', question: expect.stringContaining('Acme') });
    const labels = job.question_for_you.options.map((o: { label: string }) => o.label);
    expect(labels).toEqual(expect.arrayContaining(['Acme Health', 'Acme Logistics']));
    expect(job.question_for_you.options.at(-1).id).toBe('other');

    const bad = await respond(job.research_id, { answer: 'x', option_id: 'not-an-option' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'invalid_argument',
      details: { fields: [expect.objectContaining({ field: 'option_id' })] },
    });

    const ok = await respond(job.research_id, { answer: 'acme health' });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.status).toBe('running');
    await drain();
    const done = (await read(job.research_id)).body.data;
    expect(done.status).toBe('complete');
    expect(done.answer.text).toContain('Acme Health');
    expect(done.answered_questions).toEqual([
      {
        question: job.question_for_you.question,
        options: job.question_for_you.options.filter((o: { id: string }) => o.id !== 'other'),
        answer: 'Acme Health',
        option_id: expect.any(String),
        answered_at: expect.any(String),
      },
    ]);
    expect(done.answer.grounding.verified).toBe(true);
  });

  it('asks which period when the one asked lies outside the data, and a write-in or "all" answers it', async () => {
    const job = await research({ question: 'What did Tidewater Logistics say about security in 2019?' });
    expect(job.status).toBe('needs_input');
    expect(job.question_for_you.question).toMatch(/no data for "in 2019"/);
    await respond(job.research_id, { answer: 'All the data there is' });
    await drain();
    const done = (await read(job.research_id)).body.data;
    expect(done.status).toBe('complete');
    expect(done.answered_questions[0]).toMatchObject({ option_id: 'all' });
    expect(done.answer.grounding.verified).toBe(true);
  });

  it('asks which reading of a segment with two meanings in the data, and answers for the one chosen', async () => {
    const job = await research({ question: 'What do prospects say about pricing?' });
    expect(job.status).toBe('needs_input');
    expect(job.question_for_you.options.map((o: { id: string }) => o.id)).toEqual(['crm_type', 'early_deals', 'other']);
    await respond(job.research_id, { answer: 'ignored', option_id: 'early_deals' });
    await drain();
    const done = (await read(job.research_id)).body.data;
    expect(done.status).toBe('complete');
    expect(done.answer.text).toContain('discovery stage');
    expect(done.answer.grounding.verified).toBe(true);
    const assumed = await research({ question: 'What do prospects say about pricing?', allow_questions: false });
    expect(assumed.answer.text).toMatch(/"Prospects" can mean two groups in the data; I took it to mean/);
  });

  it('with allow_questions: false, picks the most likely reading and says which', async () => {
    const job = await research({ question: 'What did Acme say about pricing?', allow_questions: false });
    expect(job.status).toBe('complete');
    expect(job.answer.text).toMatch(/I took "Acme" to mean/);
  });

  it('answers respond outside needs_input with 409 conflict and the current status', async () => {
    const job = await research({ question: 'Which deals over $50K are in negotiation?' });
    const res = await respond(job.research_id, { answer: 'yes' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', details: { current_status: 'complete' } });
  });
});

describe('cancel', () => {
  it('cancels a job that needs input or is running; an ended job is 409 conflict', async () => {
    const waiting = await research({ question: 'What did Acme say about security?' });
    expect(waiting.status).toBe('needs_input');
    const canceled = await cancel(waiting.research_id);
    expect(canceled.status).toBe(200);
    expect(canceled.body.data).toMatchObject({ status: 'canceled', question_for_you: null });
    expect((await cancel(waiting.research_id)).body.error).toMatchObject({
      code: 'conflict',
      details: { current_status: 'canceled' },
    });
    expect((await respond(waiting.research_id, { answer: 'x' })).body.error).toMatchObject({
      code: 'conflict',
      details: { current_status: 'canceled' },
    });

    h.services.queue = new RecordingQueue();
    const running = (await start({ question: 'What do customers say about SSO?' })).body.data;
    expect((await read(running.research_id)).body.data.status).toBe('running');
    expect((await cancel(running.research_id)).body.data.status).toBe('canceled');
    expect((await loadRun(h.services.db, running.research_id))?.status).toBe('canceled');

    h.services.queue = originalQueue;
    const done = await research({ question: 'How many deals did we win?' });
    expect((await cancel(done.research_id)).body.error).toMatchObject({
      code: 'conflict',
      details: { current_status: 'complete' },
    });
  });
});

describe('respond and cancel in every wrong state', () => {
  it('respond to a running job is 409; cancel of a failed job is 409, both with the current status', async () => {
    h.services.queue = new RecordingQueue();
    const running = (await start({ question: 'What do customers say about onboarding?' })).body.data;
    expect((await respond(running.research_id, { answer: 'x' })).body.error).toMatchObject({
      code: 'conflict',
      details: { current_status: 'running' },
    });
    await h.database.db
      .update(runsTable)
      .set({
        status: 'failed',
        stage: null,
        error: { code: 'no_answer', message: 'nothing to say', stage: 'turn' },
        completedAt: new Date(),
      })
      .where(eq(runsTable.id, running.research_id));
    const failed = (await read(running.research_id)).body.data;
    expect(failed).toMatchObject({ status: 'failed', error: 'nothing to say', answer: null });
    expect((await cancel(running.research_id)).body.error).toMatchObject({
      code: 'conflict',
      details: { current_status: 'failed' },
    });
    expect((await respond(running.research_id, { answer: 'x' })).body.error).toMatchObject({
      code: 'conflict',
      details: { current_status: 'failed' },
    });
  });
});

describe('the monthly cap', () => {
  it('counts each accepted job; past the cap it is 429 quota_exceeded with the family, limit, usage and reset', async () => {
    const team = await h.seedWorkspace();
    await h.database.db
      .update(workspaces)
      .set({ quotaOverrides: { research: 2 } })
      .where(eq(workspaces.id, team.id));
    h.services.queue = new RecordingQueue();
    expect((await start({ question: 'one' }, team.editor.key)).status).toBe(202);
    expect((await start({ question: 'two' }, team.editor.key)).status).toBe(202);
    const refused = await start({ question: 'three' }, team.editor.key);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: 'quota_exceeded',
      details: { family: 'research', limit: 2, used: 2, resets_at: expect.any(String) },
    });
    // Invalid requests never count.
    expect((await start({ question: 'x', nope: 1 }, team.editor.key)).status).toBe(400);
  });

  it('gives the unit back when a validated start is refused (the workspace\u2019s cap on working runs)', async () => {
    const team = await h.seedWorkspace();
    await h.database.db
      .update(workspaces)
      .set({ quotaOverrides: { research: 11 } })
      .where(eq(workspaces.id, team.id));
    h.services.queue = new RecordingQueue();
    for (let i = 0; i < 10; i++) expect((await start({ question: `job ${i}` }, team.editor.key)).status).toBe(202);
    const busy = await start({ question: 'one too many at once' }, team.editor.key);
    expect(busy.status).toBe(429);
    expect(busy.body.error.code).toBe('rate_limited');
    // The refused start cost nothing: one unit is still there.
    const [counter] = await h.database.db
      .select()
      .from(usageCounters)
      .where(and(eq(usageCounters.workspaceId, team.id), eq(usageCounters.family, 'research')));
    expect(counter?.used).toBe(10);
  });
});
