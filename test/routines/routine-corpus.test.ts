import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledTick } from '../../functions/scheduled-tick.js';
import { ManualClock } from '../../platform/clock.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { CORPUS_NOW } from '../support/corpus-fixture.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * A routine on the demo corpus with the local model: its scheduled fire researches, commits a
 * document whose every digit verifies against the run's own queries, and the document publishes.
 */

const clock = new ManualClock(CORPUS_NOW);
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase(), clock });
  ws = await h.corpusWorkspace();
}, 120_000);
afterAll(async () => {
  await h.close();
  await h.database.close();
});

describe('a routine fire through the local model', () => {
  it('writes a verified document that auto-promotes, and tells the chat where the findings went', async () => {
    const { key } = await ws.keyFor(ws.admin, 'full_admin');
    const created = await h.request('POST', '/routines', {
      key,
      body: {
        name: 'Negotiation watch',
        prompt: 'Which deals over $50K are in negotiation?',
        cron: '0 7 * * *',
        timezone: 'UTC',
      },
    });
    expect(created.status, created.text).toBe(201);
    const next = new Date(created.body.data.next_run_at);
    clock.set(new Date(next.getTime() + 5_000));
    await runScheduledTick(h.services, clock.now());
    await (h.services.queue as LocalTransport).drain();

    const routine = (await h.request('GET', `/routines/${created.body.data.id}`, { key })).body.data;
    expect(routine.last_fire.scheduled_for).toBe(next.toISOString());
    const run = (await h.request('GET', `/chat/runs/${routine.last_fire.run_id}`, { key })).body.data;
    expect(run).toMatchObject({ status: 'complete', trigger: 'routine' });
    expect(run.answer.text).toContain('saved as a published document');
    expect(run.outputs).toEqual([expect.objectContaining({ kind: 'document', outcome: 'published', version: 1 })]);

    const docs = (await h.request('GET', '/artifacts', { key })).body.data.artifacts;
    expect(docs).toHaveLength(1);
    const doc = (await h.request('GET', `/artifacts/${docs[0].id}`, { key })).body.data;
    expect(doc).toMatchObject({
      title: 'Which deals over $50K are in negotiation?',
      status: 'published',
      current_version: 1,
      routine_id: routine.id,
    });
    expect(doc.current.grounding).toMatchObject({
      verified: true,
      numbers: { unverified: [] },
      tables: { removed: 0 },
      metrics: { removed: 0 },
    });
    expect(doc.current.grounding.numbers.checked).toBeGreaterThan(0);
    expect(doc.current.markdown).toMatch(/\$\d/);
    const chats = (await h.request('GET', '/chats', { key, query: { routine_id: routine.id } })).body.data.chats;
    expect(chats[0].name).toBe(`Negotiation watch - ${next.toISOString().slice(0, 10)}`);
  });
});
