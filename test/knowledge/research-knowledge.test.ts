import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalTransport } from '../../queues/transport/local.js';
import { loadRun } from '../../queues/run-store.js';
import { verifyAnswer } from '../../functions/agents/grounding.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { docxWithParagraphs, uploadFile } from './files.js';

/**
 * A research question answered from an uploaded document: the researcher
 * reaches the knowledge bank through the evidence sources' search (context.search, source knowledge),
 * quotes the node verbatim in a document_quote block, and the grounding verifier passes it. The quote,
 * its node and its document are read back with SQL of the test's own.
 */

const FACT = 'Quokka Freight renews only after a procurement review by their harbour council.';
const TITLE = 'Quokka Freight account plan';

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
});
afterAll(async () => h?.close());

const drain = () => (h.services.queue as LocalTransport).drain();
const rows = async <T>(text: string, params: unknown[] = []): Promise<T[]> =>
  (await h.pglite.client.query<T>(text, params)).rows;

async function untilEnded(runId: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await drain();
    const run = await loadRun(h.services.db, runId);
    if (run && ['complete', 'failed', 'canceled'].includes(run.status)) return;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not end`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function research(key: string, question: string) {
  const started = await h.request('POST', '/research', { key, body: { question, allow_questions: false } });
  expect(started.status, started.text).toBe(202);
  await untilEnded(started.body.data.research_id);
  return (await h.request('GET', `/research/${started.body.data.research_id}`, { key })).body.data;
}

describe('research answered from an uploaded document', () => {
  let documentId: string;

  beforeAll(async () => {
    const bytes = await docxWithParagraphs(TITLE, [
      'Quokka Freight ships refrigerated cargo along the east coast.',
      FACT,
      'Their champion is the head of fleet operations.',
    ]);
    const writer = (await ws.keyFor(ws.editor, 'internal_agent')).key;
    const upload = await uploadFile(h, '/knowledge-base', writer, { bytes, name: 'quokka.docx' }, 'file', {
      title: TITLE,
    });
    expect(upload.status, JSON.stringify(upload.body)).toBe(202);
    documentId = upload.body.data.id;
    await untilEnded(upload.body.data.run_id);
  }, 60_000);

  it('quotes the node in a document_quote block the verifier passed, naming the document and node', async () => {
    const job = await research(
      ws.editor.key,
      'What does the harbour council procurement review mean for Quokka Freight renewals?',
    );
    expect(job.status).toBe('complete');
    expect(job.answer.grounding.verified).toBe(true);
    const quotes = job.answer.content_blocks.filter((b: { kind: string }) => b.kind === 'document_quote');
    const quote = quotes.find((b: { text: string }) => b.text === FACT);
    expect(quote, JSON.stringify(quotes)).toMatchObject({
      stance: 'supports',
      source: { document_group_id: documentId },
    });
    // Every document quote is verbatim in the node it names, of a document titled as cited, in this workspace.
    for (const q of quotes) {
      const [node] = await rows<{ text: string; title: string; workspace_id: string }>(
        `select n.text, g.title, g.workspace_id from knowledge_nodes n join document_groups g on g.id = n.document_group_id
         where n.document_group_id = $1 and n.node_key = $2`,
        [q.source.document_group_id, q.source.node_key],
      );
      expect(node?.text).toContain(q.text);
      expect(node).toMatchObject({ title: q.source.document_title, workspace_id: ws.id });
    }
    const [factNode] = await rows<{ text: string }>(
      'select text from knowledge_nodes where document_group_id = $1 and node_key = $2',
      [documentId, quote.source.node_key],
    );
    expect(factNode?.text).toBe(FACT);
    expect(quote.source.document_title).toBe(TITLE);
    // The verifier checked each document quote against its node and removed none.
    expect(job.answer.grounding.quotes.removed).toBe(0);
    expect(job.answer.grounding.quotes.verified).toBeGreaterThanOrEqual(quotes.length);
    expect(job.answer.text).toContain(FACT);
    expect(job.answer.text).toContain(TITLE);
  }, 120_000);

  it("never quotes another workspace's document", async () => {
    const job = await research(
      other.editor.key,
      'What does the harbour council procurement review mean for Quokka Freight renewals?',
    );
    expect(job.status).toBe('complete');
    expect(job.answer.content_blocks.filter((b: { kind: string }) => b.kind === 'document_quote')).toEqual([]);
    expect(job.answer.text).not.toContain('harbour council.');
  }, 120_000);
});

describe('memory recalled by agents', () => {
  const RELEVANT = 'Quokka Freight asked for invoices in Australian dollars from next quarter.';
  const UNRELATED = 'The offsite dinner is booked at the harbour restaurant.';

  it('starts the run with the relevant memory only, and ask lists the memory_quote blocks the verifier passed', async () => {
    const writer = (await ws.keyFor(ws.editor, 'internal_agent')).key;
    const remembered: Record<string, string> = {};
    for (const text of [RELEVANT, UNRELATED]) {
      const res = await h.request('POST', '/memory', { key: writer, body: { text, company_name: 'Quokka Freight' } });
      expect(res.status, res.text).toBe(200);
      remembered[text] = res.body.data.evidenceId;
    }
    const res = await h.request('POST', '/ask', {
      key: writer,
      body: { query: 'Which currency do Quokka Freight invoices use?' },
    });
    expect(res.status, res.text).toBe(200);
    const data = res.body.data;
    expect(data.status).toBe('complete');
    // The run's system message holds the relevant memory with its id, not the unrelated one.
    const [run] = await rows<{ system: string; blocks: any[]; verified: boolean }>(
      `select state->'messages'->0->>'content' as system, state->'answer'->'content_blocks' as blocks,
              (state->'answer'->'grounding'->>'verified')::boolean as verified
       from runs where id = $1 and workspace_id = $2`,
      [data.run_id, ws.id],
    );
    expect(run!.system).toContain(`[memory_id ${remembered[RELEVANT]}] “${RELEVANT}”`);
    expect(run!.system).not.toContain(UNRELATED);
    // The answer quotes it in a memory_quote block, verified, and ask lists that block with the evidence id.
    expect(run!.verified).toBe(true);
    const block = run!.blocks.find((b) => b.kind === 'memory_quote');
    expect(block).toMatchObject({ text: RELEVANT, source: { memory_id: remembered[RELEVANT] } });
    expect(data.memory).toEqual([
      { id: remembered[RELEVANT], block_id: block.id, text: RELEVANT, source: 'web', company_name: 'Quokka Freight' },
    ]);
    const [row] = await rows<{ text: string }>('select text from memory_evidence where id = $1 and workspace_id = $2', [
      remembered[RELEVANT],
      ws.id,
    ]);
    expect(row?.text).toBe(RELEVANT);
    expect(data.answer).toContain(RELEVANT);
  }, 120_000);

  it('has the verifier remove a memory quote that is not verbatim or not of this workspace', async () => {
    const [memory] = await rows<{ id: string }>('select id from memory_evidence where workspace_id = $1 limit 1', [
      ws.id,
    ]);
    const check = (workspaceId: string, text: string) =>
      verifyAnswer(
        {
          text: 'From memory.',
          content_blocks: [{ kind: 'memory_quote', text, source: { memory_id: memory!.id }, stance: 'context' }],
          follow_ups: [],
        },
        {
          db: h.services.db,
          workspaceId,
          rerun: () => Promise.reject(new Error('no query to re-run')),
        },
      );
    expect((await check(ws.id, RELEVANT)).grounding.quotes).toMatchObject({ checked: 1, verified: 1, removed: 0 });
    expect((await check(ws.id, 'Quokka Freight pays in euros.')).grounding.quotes.removed).toBe(1);
    expect((await check(other.id, RELEVANT)).grounding.quotes.removed).toBe(1);
  });
});
