import { afterAll, describe, expect, it } from 'vitest';
import { inProcessDocxToHtml, parseDocument } from '../../functions/knowledge/parsers/index.js';
import { docxThreadPool } from '../../functions/knowledge/parsers/docx-thread.js';
import { minimalDocx } from '../support/bombs.js';
import { docxWithTable } from './files.js';

/**
 * The DOCX conversion on worker threads (the Node entry's; docx-thread.ts) gives what the in-process
 * conversion gives, queues past its threads, and a failure fails that document only. That it keeps the
 * event loop free is the ingest-responsiveness bench's figure, not a timed assertion.
 */
const pool = docxThreadPool(1);
afterAll(() => pool.close());

describe('DOCX to HTML on worker threads', () => {
  it('converts as the in-process conversion does, and parses to the same nodes', { timeout: 60_000 }, async () => {
    const table = await docxWithTable();
    expect(await pool.toHtml(table)).toBe(await inProcessDocxToHtml(table));
    const bytes = minimalDocx(50);
    const threaded = await parseDocument('docx', bytes.slice(), undefined, { docxToHtml: pool.toHtml });
    expect(threaded).toHaveLength(50);
    expect(threaded).toEqual(await parseDocument('docx', bytes.slice()));
  });

  it('queues documents past its one thread, in order, and a broken one fails alone', { timeout: 60_000 }, async () => {
    const documents = [minimalDocx(3), new Uint8Array([1, 2, 3]), minimalDocx(5)];
    const results = await Promise.allSettled(documents.map((d) => pool.toHtml(d)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[0]).toEqual({ status: 'fulfilled', value: await inProcessDocxToHtml(minimalDocx(3)) });
    expect(results[2]).toEqual({ status: 'fulfilled', value: await inProcessDocxToHtml(minimalDocx(5)) });
  });

  it('leaves the caller its bytes whole', { timeout: 60_000 }, async () => {
    const bytes = minimalDocx(3);
    const copy = bytes.slice();
    await pool.toHtml(bytes);
    expect(bytes).toEqual(copy);
  });
});
