import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { LocalTransport } from '../../queues/transport/local.js';
import { loadRun } from '../../queues/run-store.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import { docxWithTable, HTML_WITH_SCRIPT, multiPagePdf, uploadFile } from './files.js';

let h: Harness;
let ws: SeededWorkspace;
let other: SeededWorkspace;
let writer: string;
let reader: string;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
  other = await h.seedWorkspace();
  writer = (await ws.keyFor(ws.editor, 'internal_agent')).key;
  reader = ws.editor.key;
});
afterAll(async () => h?.close());

const rows = async <T>(query: ReturnType<typeof sql>): Promise<T[]> =>
  ((await h.database.db.execute(query)) as unknown as { rows: T[] }).rows;

/** Upload, then drive the local queue until the ingest run ends; the document as read back. */
async function ingest(bytes: Uint8Array, name: string, key = writer) {
  const res = await uploadFile(h, '/knowledge-base', key, { bytes, name });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const runId: string = res.body.data.run_id;
  const deadline = Date.now() + 60_000;
  for (;;) {
    await (h.services.queue as LocalTransport).drain();
    const run = await loadRun(h.services.db, runId);
    if (run && ['complete', 'failed', 'canceled'].includes(run.status)) break;
    if (Date.now() > deadline) throw new Error(`ingest run ${runId} did not end`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return (await h.request('GET', `/knowledge-base/${res.body.data.id}`, { key: reader })).body.data;
}

const nodesOf = (groupId: string) =>
  rows<{ node_key: string; kind: string; page: number | null; heading: string; text: string }>(
    sql`select node_key, kind, page, heading, text from knowledge_nodes where document_group_id = ${groupId} order by position`,
  );

describe('documents become knowledge', () => {
  let pdfDoc: { id: string };

  it('parses a multi-page PDF into paragraphs with their pages, embeds every node, and reports progress on the run', async () => {
    const bytes = await multiPagePdf([
      ['Onboarding handbook for new customers.', 'Every workspace gets a named success manager.'],
      ['Renewals are reviewed ninety days before the term ends.'],
      ['Support answers within four business hours.'],
    ]);
    const doc = await ingest(bytes, 'handbook.pdf');
    pdfDoc = doc;
    expect(doc).toMatchObject({
      status: 'ready',
      format: 'pdf',
      content_type: 'application/pdf',
      title: 'handbook.pdf',
    });
    const nodes = await nodesOf(doc.id);
    expect(nodes.map((n) => [n.page, n.text])).toEqual([
      [1, 'Onboarding handbook for new customers.'],
      [1, 'Every workspace gets a named success manager.'],
      [2, 'Renewals are reviewed ninety days before the term ends.'],
      [3, 'Support answers within four business hours.'],
    ]);
    const [vectors] = await rows<{ n: number }>(
      sql`select count(*)::int as n from knowledge_node_vectors where document_group_id = ${doc.id} and embedder = ${h.services.embedder.id}`,
    );
    expect(vectors?.n).toBe(4);
    expect(doc).toMatchObject({ node_count: 4, embedded_count: 4 });
    const events = await rows<{ type: string; data: Record<string, unknown> }>(
      sql`select type, data from run_events where run_id = ${doc.run_id}::uuid order by seq`,
    );
    expect(events.filter((e) => e.type === 'ingest.progress').at(0)?.data).toEqual({
      phase: 'parse',
      pages_done: 3,
      pages: 3,
    });
    expect(events.find((e) => e.type === 'ingest.completed')?.data).toEqual({ nodes: 4, embedded: 4 });
  });

  it('gives the same document the same node keys', async () => {
    const bytes = await multiPagePdf([
      ['Onboarding handbook for new customers.', 'Every workspace gets a named success manager.'],
      ['Renewals are reviewed ninety days before the term ends.'],
      ['Support answers within four business hours.'],
    ]);
    const again = await ingest(bytes, 'handbook-copy.pdf');
    expect((await nodesOf(again.id)).map((n) => n.node_key)).toEqual((await nodesOf(pdfDoc.id)).map((n) => n.node_key));
  });

  it('parses a DOCX with a table into a section, a paragraph and table rows', async () => {
    const doc = await ingest(await docxWithTable(), 'pricing.docx');
    expect(doc).toMatchObject({ status: 'ready', format: 'docx' });
    const nodes = await nodesOf(doc.id);
    expect(nodes.map((n) => [n.kind, n.heading, n.text])).toEqual([
      ['section', 'Pricing guide', 'Pricing guide'],
      ['paragraph', 'Pricing guide', 'Enterprise plans include single sign-on and audit logs.'],
      ['table_row', 'Pricing guide', 'Plan: Team; Seats: 10; Price: $500'],
      ['table_row', 'Pricing guide', 'Plan: Enterprise; Seats: 100; Price: $9000'],
    ]);
  });

  it('keeps the text of HTML and drops its scripts, styles and attributes', async () => {
    const doc = await ingest(new TextEncoder().encode(HTML_WITH_SCRIPT), 'policy.html');
    expect(doc).toMatchObject({ status: 'ready', format: 'html' });
    const nodes = await nodesOf(doc.id);
    expect(nodes.map((n) => n.text)).toEqual(
      ['Security policy', 'Customer data is encrypted at rest with AES-256.', 'Backups run every night .'].map((t) =>
        t.replace(' .', '.'),
      ),
    );
    const all = nodes.map((n) => n.text).join(' ');
    for (const banned of ['alert', 'cookie', 'script', 'onclick', 'color:red']) expect(all).not.toContain(banned);
    const widget = await h.request('GET', `/knowledge-base/${doc.id}/node/${nodes[1]?.node_key}/widget`, {
      key: reader,
    });
    expect(widget.status).toBe(200);
    expect(widget.headers.get('content-type')).toMatch(/^application\/json/);
    expect(widget.body.data).toEqual({
      document_group_id: doc.id,
      node_key: nodes[1]?.node_key,
      document_title: 'policy.html',
      kind: 'paragraph',
      heading: 'Security policy',
      page: null,
      text: 'Customer data is encrypted at rest with AES-256.',
      cite: { kind: 'doc', ref: `${doc.id}/${nodes[1]?.node_key}`, label: 'policy.html' },
    });
  });

  it('parses CSV rows and Markdown sections', async () => {
    const csv = await ingest(
      new TextEncoder().encode('account,plan,seats\nAcme,Enterprise,120\nGlobex,Team,12\n'),
      'seats.txt',
    );
    expect(csv.format).toBe('csv');
    expect((await nodesOf(csv.id)).map((n) => n.text)).toEqual([
      'account: Acme; plan: Enterprise; seats: 120',
      'account: Globex; plan: Team; seats: 12',
    ]);
    const md = await ingest(
      new TextEncoder().encode(
        '# Playbook\n\nLead with the migration story.\n\n## Objections\n\nPrice is the usual one.\n',
      ),
      'p.bin',
    );
    expect(md.format).toBe('markdown');
    expect((await nodesOf(md.id)).map((n) => [n.kind, n.heading, n.text])).toEqual([
      ['section', 'Playbook', 'Playbook'],
      ['paragraph', 'Playbook', 'Lead with the migration story.'],
      ['section', 'Objections', 'Objections'],
      ['paragraph', 'Objections', 'Price is the usual one.'],
    ]);
  });

  it('searches nodes by meaning and by words, naming document and node', async () => {
    const semantic = await h.request('POST', '/knowledge-base/search', {
      key: reader,
      body: { query: 'how fast does support answer', mode: 'semantic', limit: 3 },
    });
    expect(semantic.status).toBe(200);
    expect(semantic.body.data.matches[0]).toMatchObject({
      text: 'Support answers within four business hours.',
      page: 3,
    });
    const keyword = await h.request('POST', '/knowledge-base/search', {
      key: reader,
      body: { query: 'encrypted', mode: 'keyword' },
    });
    expect(keyword.body.data.matches.map((m: { text: string }) => m.text)).toEqual([
      'Customer data is encrypted at rest with AES-256.',
    ]);
  });

  it('is one of the sources the knowledge operations search (hybrid search with source_type knowledge)', async () => {
    const res = await h.request('POST', '/search/hybrid', {
      key: ws.admin.key,
      body: { query: 'encrypted', mode: 'keyword', source_type: 'knowledge' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.sources_searched).toEqual(['knowledge']);
    const [hit] = res.body.data.results;
    expect(hit).toMatchObject({ source: 'knowledge', origin: 'knowledge/paragraph' });
    expect(hit.snippets).toEqual(['Customer data is encrypted at rest with AES-256.']);
    const [groupId, nodeKey] = hit.id.split('/');
    const [node] = await rows<{ text: string; workspace_id: string }>(
      sql`select text, workspace_id from knowledge_nodes where document_group_id = ${groupId} and node_key = ${nodeKey}`,
    );
    expect(node).toEqual({ text: 'Customer data is encrypted at rest with AES-256.', workspace_id: ws.id });
    const foreign = await h.request('POST', '/search/hybrid', {
      key: other.admin.key,
      body: { query: 'encrypted', mode: 'keyword', source_type: 'knowledge' },
    });
    expect(foreign.body.data.results).toEqual([]);
  });

  it('pins a node for the member: listed, first in search, unpinned by key', async () => {
    const [node] = await rows<{ node_key: string }>(
      sql`select node_key from knowledge_nodes where document_group_id = ${pdfDoc.id} and text like 'Renewals%'`,
    );
    const pin = await h.request('POST', '/pins', {
      key: writer,
      body: { document_group_id: pdfDoc.id, node_key: node?.node_key },
    });
    expect(pin.status, pin.text).toBe(201);
    expect(pin.body.data).toMatchObject({
      document_group_id: pdfDoc.id,
      node_key: node?.node_key,
      document_title: 'handbook.pdf',
    });
    const listed = await h.request('GET', '/pins', { key: writer });
    expect(listed.body.data.pins.map((p: { node_key: string }) => p.node_key)).toEqual([node?.node_key]);
    const search = await h.request('POST', '/knowledge-base/search', {
      key: writer,
      body: { query: 'support hours renewals', mode: 'hybrid', limit: 5 },
    });
    expect(search.body.data.matches[0]).toMatchObject({ node_key: node?.node_key, pinned: true });
    const del = await h.request('DELETE', `/pins/${pdfDoc.id}/${node?.node_key}`, { key: writer });
    expect(del.status).toBe(200);
    expect((await h.request('DELETE', `/pins/${pdfDoc.id}/${node?.node_key}`, { key: writer })).status).toBe(404);
  });

  it('answers another workspace 404 for every id', async () => {
    const key = other.admin.key;
    const [node] = await nodesOf(pdfDoc.id);
    const otherKey = (await other.keyFor(other.admin, 'full_admin')).key;
    for (const [method, path, body] of [
      ['GET', `/knowledge-base/${pdfDoc.id}`],
      ['GET', `/knowledge-base/${pdfDoc.id}/nodes`],
      ['GET', `/knowledge-base/${pdfDoc.id}/node/${node?.node_key}/widget`],
      ['DELETE', `/knowledge-base/${pdfDoc.id}`],
      ['POST', '/pins', { document_group_id: pdfDoc.id, node_key: node?.node_key }],
      ['DELETE', `/pins/${pdfDoc.id}/${node?.node_key}`],
    ] as const) {
      const res = await h.request(method, path, { key: otherKey, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const search = await h.request('POST', '/knowledge-base/search', {
      key,
      body: { query: 'support', mode: 'keyword' },
    });
    expect(search.body.data.matches).toEqual([]);
  });
});
