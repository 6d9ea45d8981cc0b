import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { createHarness, openCorpusDatabase, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * A routine's `write_memory` (spec, Routine config): a fire with it remembers its verified answer
 * (source kg, run id set); a fire without it writes nothing to memory. Read back with SQL.
 */

let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ database: await openCorpusDatabase() });
  ws = await h.corpusWorkspace();
});
afterAll(async () => {
  await h.close();
  await h.database.close();
});

const drain = () => (h.services.queue as LocalTransport).drain();

async function fire(writeMemory: boolean): Promise<string> {
  const created = await h.request<any>('POST', '/routines', {
    key: ws.editor.key,
    body: {
      name: `Pricing digest ${writeMemory}`,
      prompt: 'What do customers say about renewal pricing?',
      cron: '0 9 * * 1',
      config: { write_memory: writeMemory, depth: 'quick', write_outputs: false },
    },
  });
  expect(created.status, created.text).toBe(201);
  const fired = await h.request<any>('POST', `/routines/${created.body.data.id}/run-now`, { key: ws.editor.key });
  expect(fired.status, fired.text).toBeLessThan(300);
  await drain();
  return fired.body.data.run_id as string;
}

describe('routine write_memory', () => {
  it('remembers the verified answer of a fire with write_memory, and nothing for one without', async () => {
    const withMemory = await fire(true);
    const without = await fire(false);
    const rows = (
      await h.pglite.client.query<{
        run_id: string;
        source: string;
        origin: string;
        text: string;
        answer: string;
        status: string;
      }>(
        `select m.run_id, m.source, m.origin, m.text, r.state->'answer'->>'text' as answer, r.status
           from memory_evidence m join runs r on r.id = m.run_id
          where m.workspace_id = $1 and m.run_id in ($2, $3)`,
        [ws.id, withMemory, without],
      )
    ).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ run_id: withMemory, source: 'kg', origin: 'run', status: 'complete' });
    expect(rows[0]!.answer.trim().startsWith(rows[0]!.text.slice(0, 200))).toBe(true);
  }, 120_000);
});
