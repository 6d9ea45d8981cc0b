import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';
import type { MemoryFileStore } from '../../platform/files/memory.js';
import { uploadFile } from './files.js';

const MB = 1024 * 1024;
let h: Harness;
let ws: SeededWorkspace;
let admin: string;

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
  admin = (await ws.keyFor(ws.admin, 'full_admin')).key;
});
afterAll(async () => h?.close());

/**
 * Text of exactly `size` bytes that the knowledge bank parses: a heading, a sentence, then blank lines
 * of 1 KB (spaces). Lines of a kilobyte, not empty ones: the accepted knowledge-bank file is ingested
 * in the background while the file's other tests run, and 50 million empty lines would keep the
 * parser busy for far longer than the upload these tests are about.
 */
function textOfSize(size: number): Uint8Array {
  const bytes = new Uint8Array(size).fill(0x20);
  for (let at = 1023; at < size; at += 1024) bytes[at] = 0x0a;
  bytes.set(new TextEncoder().encode('# Limits\n\nA file of exactly the limit.\n'));
  return bytes;
}

const countFiles = async (purpose: string) => {
  const rows = await h.database.db.execute(
    sql`select count(*)::int as n from stored_files where workspace_id = ${ws.id} and purpose = ${purpose}`,
  );
  return (rows as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0;
};

describe.each([
  { label: 'platform library', path: '/library/files', limit: 25 * MB, purpose: 'library', created: 201 },
  { label: 'knowledge bank', path: '/knowledge-base', limit: 50 * MB, purpose: 'knowledge', created: 202 },
  { label: 'context-entry attachment', path: 'context', limit: 5 * MB, purpose: 'context_attachment', created: 201 },
])('$label uploads (limit $limit bytes)', ({ path, limit, purpose, created }) => {
  let target = path;
  beforeAll(async () => {
    if (path === 'context') {
      const entry = await h.request('POST', '/context-entries', {
        key: admin,
        body: { scope: 'workspace', title: 'Who we are', body: 'We sell data tooling to mid-market SaaS companies.' },
      });
      expect(entry.status).toBe(201);
      target = `/context-entries/${entry.body.data.id}/attachments`;
    }
  });

  it('accepts a file of exactly the limit', async () => {
    const before = await countFiles(purpose);
    const res = await uploadFile(h, target, admin, { bytes: textOfSize(limit), name: 'exact.md' });
    expect(res.status, JSON.stringify(res.body)).toBe(created);
    expect(await countFiles(purpose)).toBe(before + 1);
    const [row] = (
      (await h.database.db.execute(
        sql`select byte_size, content_type from stored_files where workspace_id = ${ws.id} and purpose = ${purpose} order by created_at desc limit 1`,
      )) as unknown as { rows: { byte_size: number; content_type: string }[] }
    ).rows;
    expect(row).toEqual({ byte_size: limit, content_type: 'text/markdown' });
  });

  it('refuses one byte over with 413 file_too_large, LIMIT_FILE_SIZE and the field name, keeping nothing', async () => {
    const before = await countFiles(purpose);
    const store = h.services.files as MemoryFileStore;
    const held = store.size;
    const res = await uploadFile(h, target, admin, { bytes: textOfSize(limit + 1), name: 'over.md' });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('file_too_large');
    expect(res.body.error.details).toMatchObject({ code: 'LIMIT_FILE_SIZE', field: 'file', max_bytes: limit });
    expect(await countFiles(purpose)).toBe(before);
    // The file went to the store as it arrived; the partial file was deleted when it passed the limit.
    expect(store.size).toBe(held);
  });

  it('refuses a file in another field with 400', async () => {
    const held = (h.services.files as MemoryFileStore).size;
    const res = await uploadFile(h, target, admin, { bytes: textOfSize(100), name: 'a.md' }, 'document');
    expect(res.status).toBe(400);
    expect((h.services.files as MemoryFileStore).size).toBe(held);
    expect(res.body.error.code).toBe('invalid_argument');
    expect(res.body.error.details).toMatchObject({ field: 'document', expected_field: 'file' });
  });
});

describe('typing by bytes', () => {
  it('reads the type from the bytes, not the name', async () => {
    const html = new TextEncoder().encode('<!doctype html><html><body><p>Hello</p></body></html>');
    const res = await uploadFile(h, '/library/files', admin, {
      bytes: html,
      name: 'report.pdf',
      type: 'application/pdf',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ filename: 'report.pdf', content_type: 'text/html', byte_size: html.length });
  });

  it('refuses a file the knowledge bank cannot parse with 400, naming its type', async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    const res = await uploadFile(h, '/knowledge-base', admin, { bytes: png, name: 'notes.md' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'file', content_type: 'image/png' });
  });

  it('refuses a request with no file in the field with 400', async () => {
    const res = await h.request('POST', '/knowledge-base', { key: admin, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toMatchObject({ field: 'file', problem: 'missing' });
  });
});
