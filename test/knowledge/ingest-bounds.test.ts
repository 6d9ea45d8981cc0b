import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { INGEST_LIMITS } from '../../functions/knowledge/ingest-limits.js';
import type { LocalTransport } from '../../queues/transport/local.js';
import { loadRun } from '../../queues/run-store.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import {
  docxDeclaredZipBomb,
  docxLyingZipBomb,
  docxParagraphBomb,
  manySections,
  minimalDocx,
  pdfFlateBomb,
} from '../support/bombs.js';
import { uploadFile } from './files.js';

/**
 * Documents past an ingest limit (functions/knowledge/ingest-limits.ts): each fails on its own with
 * the limit's code and a message naming the limit, its run ends `failed` (nothing left to resume at
 * the next start), and a document uploaded beside it is ingested as usual.
 */

let h: Harness;
let ws: SeededWorkspace;
let writer: string;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
  writer = (await ws.keyFor(ws.editor, 'internal_agent')).key;
});
afterAll(async () => h?.close());

const rows = async <T>(query: ReturnType<typeof sql>): Promise<T[]> =>
  ((await h.database.db.execute(query)) as unknown as { rows: T[] }).rows;

async function upload(bytes: Uint8Array, name: string): Promise<{ id: string; run_id: string }> {
  const res = await uploadFile(h, '/knowledge-base', writer, { bytes, name });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.data;
}

/** Drive the local queue until every run named has ended; the documents as read back. */
async function settle(docs: readonly { id: string; run_id: string }[]) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    await (h.services.queue as LocalTransport).drain();
    const runs = await Promise.all(docs.map((d) => loadRun(h.services.db, d.run_id)));
    if (runs.every((r) => r && ['complete', 'failed', 'canceled'].includes(r.status))) break;
    if (Date.now() > deadline) throw new Error('an ingest run did not end');
    await new Promise((r) => setTimeout(r, 50));
  }
  return Promise.all(
    docs.map(async (d) => (await h.request('GET', `/knowledge-base/${d.id}`, { key: ws.editor.key })).body.data),
  );
}

/** The bomb's document failed with `code` and its run ended failed with nothing left queued for it. */
async function expectRefused(doc: { id: string; run_id: string; status: string; error: string | null }, code: string) {
  expect(doc.status).toBe('failed');
  const run = await loadRun(h.services.db, doc.run_id);
  expect(run?.status).toBe('failed');
  expect(run?.error?.code).toBe(code);
  expect(doc.error).toBe(run?.error?.message);
  const [queued] = await rows<{ n: number }>(
    sql`select count(*)::int as n from queue_deliveries where body->>'run_id' = ${doc.run_id}`,
  );
  expect(queued?.n).toBe(0);
  const [nodes] = await rows<{ n: number }>(
    sql`select count(*)::int as n from knowledge_nodes where document_group_id = ${doc.id}`,
  );
  expect(nodes?.n).toBe(0);
}

describe('ingest limits', () => {
  it('refuses a DOCX whose zip declares more than the limit, without inflating it, beside a document that is ingested', async () => {
    const [bomb, fine] = await settle([
      await upload(docxDeclaredZipBomb(), 'declared-bomb.docx'),
      await upload(minimalDocx(3), 'fine.docx'),
    ]);
    await expectRefused(bomb, 'decompressed_size_exceeded');
    expect(bomb.error).toContain('128 MiB');
    expect(fine).toMatchObject({ status: 'ready', node_count: 3 });
  });

  it('refuses a DOCX zip bomb whose declared sizes lie, once what it inflates to passes the limit', async () => {
    const bytes = docxLyingZipBomb();
    expect(bytes.length).toBeLessThan(1024 * 1024);
    const [bomb] = await settle([await upload(bytes, 'lying-bomb.docx')]);
    await expectRefused(bomb, 'decompressed_size_exceeded');
    expect(bomb.error).toContain('128 MiB');
  });

  it('refuses the reported DOCX: 60 KB that inflate to 616,800 paragraphs of XML', async () => {
    const bytes = docxParagraphBomb();
    expect(bytes.length).toBeLessThan(128 * 1024);
    const [bomb] = await settle([await upload(bytes, 'paragraph-bomb.docx')]);
    await expectRefused(bomb, 'decompressed_size_exceeded');
    expect(bomb.error).toContain('XML parts inflate to more than 8 MiB');
  });

  it('refuses a PDF flate bomb before pdf.js reads it, beside a PDF made the same way that is ingested', async () => {
    const bytes = await pdfFlateBomb(130);
    expect(bytes.length).toBeLessThan(1024 * 1024);
    const [bomb, fine] = await settle([
      await upload(bytes, 'flate-bomb.pdf'),
      await upload(await pdfFlateBomb(0), 'fine.pdf'),
    ]);
    await expectRefused(bomb, 'decompressed_size_exceeded');
    expect(bomb.error).toContain('128 MiB');
    expect(fine).toMatchObject({ status: 'ready', node_count: 1 });
  });

  it('refuses a document of more nodes than the limit before writing any', async () => {
    const [over] = await settle([await upload(manySections(INGEST_LIMITS.maxNodes + 1), 'over.md')]);
    await expectRefused(over, 'too_many_nodes');
    expect(over.error).toContain('50,000');
  });
});

describe('stopping the process during an ingest', () => {
  let own: Harness;
  afterAll(async () => own?.close());

  it('stops the running parse at its next yield point and leaves the run to go on at the next start', async () => {
    own = await createHarness();
    const seeded = await own.seedWorkspace();
    const key = (await seeded.keyFor(seeded.editor, 'internal_agent')).key;
    // About 20 MB of 2,000-character paragraphs: seconds of parsing and writing, never done before the stop.
    const paragraph = `${'Renewals are reviewed ninety days before the term ends. '.repeat(35)}\n\n`;
    const bytes = new TextEncoder().encode(paragraph.repeat(Math.ceil((20 * 1024 * 1024) / paragraph.length)));
    const res = await uploadFile(own, '/knowledge-base', key, { bytes, name: 'long.txt' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const runId: string = res.body.data.run_id;
    const queue = own.services.queue as LocalTransport;
    void queue.drain().catch(() => undefined);
    for (;;) {
      const run = await loadRun(own.services.db, runId);
      if (run?.stage === 'parse' && run.leaseToken) break;
      expect(run?.status).not.toBe('complete');
      await new Promise((r) => setTimeout(r, 5));
    }
    own.services.engine.stop();
    await queue.close();
    const run = await loadRun(own.services.db, runId);
    expect(run).toMatchObject({ status: 'running', stage: 'parse', leaseToken: null });
    const events = (
      (await own.database.db.execute(
        sql`select type, data from run_events where run_id = ${runId}::uuid order by seq`,
      )) as unknown as { rows: { type: string; data: { error?: { code: string } } }[] }
    ).rows;
    expect(events.at(-1)).toMatchObject({ type: 'stage.retrying', data: { error: { code: 'service_unavailable' } } });
    expect(events.map((e) => e.type)).not.toContain('ingest.parsed');
    const doc = (await own.request('GET', `/knowledge-base/${res.body.data.id}`, { key: seeded.editor.key })).body.data;
    expect(doc.status).toBe('processing');
  });
});
