import { describe, expect, it } from 'vitest';
import { IngestLimitError, INGEST_LIMITS, ParseAborted } from '../../functions/knowledge/ingest-limits.js';
import { parseDocument } from '../../functions/knowledge/parsers/index.js';
import { manyParagraphs, manySections, minimalDocx, pdfFlateBomb } from '../support/bombs.js';

/** The parsers within their limits, without the database: what each limit stops, and what it lets through. */

const text = (s: string) => new TextEncoder().encode(s);

async function refusal(work: Promise<unknown>): Promise<IngestLimitError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IngestLimitError);
  return error as IngestLimitError;
}

describe('parse limits', () => {
  it('takes a document of exactly the node limit and refuses one node more, in every text format', async () => {
    expect(await parseDocument('markdown', manySections(INGEST_LIMITS.maxNodes))).toHaveLength(INGEST_LIMITS.maxNodes);
    const limits = { maxNodes: 3 };
    const cases = [
      ['markdown', '# A\n\none\n\ntwo\n\nthree\n'],
      ['text', 'one\n\ntwo\n\nthree\n\nfour\n'],
      ['html', '<h1>A</h1><p>one</p><p>two</p><p>three</p>'],
      ['csv', 'a,b\n1,2\n3,4\n5,6\n7,8\n'],
    ] as const;
    for (const [format, source] of cases) {
      const error = await refusal(parseDocument(format, text(source), undefined, { limits }));
      expect(error.code, format).toBe('too_many_nodes');
      expect(error.limit).toBe(3);
    }
    expect(await parseDocument('csv', text('a,b\n1,2\n3,4\n5,6\n'), undefined, { limits })).toHaveLength(3);
  });

  it('refuses text past the character limit, and a parse past its time', async () => {
    const long = text(`${'word '.repeat(50_000)}\n`);
    expect((await refusal(parseDocument('text', long, undefined, { limits: { maxTextChars: 1000 } }))).code).toBe(
      'document_too_large',
    );
    const many = manyParagraphs(40_000);
    const late = await refusal(parseDocument('markdown', many, undefined, { limits: { maxParseMs: 0 } }));
    expect(late.code).toBe('parse_time_exceeded');
  });

  it('stops at its next step once its signal is aborted', async () => {
    const signal = AbortSignal.abort();
    await expect(parseDocument('markdown', manyParagraphs(10_000), undefined, { signal })).rejects.toBeInstanceOf(
      ParseAborted,
    );
  });

  it('cuts a paragraph without breaks into nodes as it reads, the same text in the same order', async () => {
    const words = Array.from({ length: 60_000 }, (_, i) => `w${i}`);
    const nodes = await parseDocument('text', text(words.join(' ')));
    expect(nodes.length).toBeGreaterThan(1);
    // Nodes are cut at whitespace while reading, then at MAX_NODE_CHARS (hard, without sentence ends): no character is lost or moved.
    expect(nodes.map((n) => n.text.replace(/ /g, '')).join('')).toBe(words.join(''));
  });

  it('parses a CSV in chunks without cutting a quoted field that spans lines', async () => {
    const body = Array.from({ length: 20_000 }, (_, i) => `${i},"line one\nline ""two"" of ${i}"`).join('\n');
    const nodes = await parseDocument('csv', text(`id,note\n${body}\n`));
    expect(nodes).toHaveLength(20_000);
    expect(nodes[12_345]?.text).toBe('id: 12345; note: line one line "two" of 12345');
  });

  it('reads the small siblings of the bombs (the bombs fail for their size, not their making)', async () => {
    expect((await parseDocument('docx', minimalDocx(3))).map((n) => n.text)).toEqual(
      Array.from({ length: 3 }, () => 'Renewals are reviewed early.'),
    );
    expect(await parseDocument('pdf', await pdfFlateBomb(0))).toHaveLength(1);
  });

  it('refuses a DOCX by its declared sizes, by what its markup inflates to, and by what all of it inflates to', async () => {
    const limits = { maxDecompressedBytes: 512 * 1024, maxMarkupBytes: 64 * 1024 };
    const refused = async (bytes: Uint8Array) =>
      (await refusal(parseDocument('docx', bytes, undefined, { limits }))).message;
    // Declared past the total: nothing needs inflating to know.
    expect(await refused(minimalDocx(3, { declaredDocumentSize: 600 * 1024 }))).toContain('more than 0.5 MiB');
    // XML declared small, inflating past the markup limit.
    expect(await refused(minimalDocx(2_000, { declaredDocumentSize: 100 }))).toContain(
      'XML parts inflate to more than 0.06 MiB',
    );
    // A picture declared small, inflating past the total.
    const picture = { name: 'word/media/a.png', data: new Uint8Array(600 * 1024), declaredSize: 100 };
    expect(await refused(minimalDocx(3, { media: picture }))).toContain('zipped parts inflate to more than');
    // Within both: read.
    expect(await parseDocument('docx', minimalDocx(500), undefined, { limits })).toHaveLength(500);
  });

  it('refuses a PDF whose flate stream inflates past the limit, counting each nested layer', async () => {
    const limits = { maxDecompressedBytes: 1024 * 1024 };
    for (const layers of [1, 2]) {
      const bomb = await pdfFlateBomb(2, layers);
      const error = await refusal(parseDocument('pdf', bomb, undefined, { limits }));
      expect(error.code, `${layers} layers`).toBe('decompressed_size_exceeded');
    }
    expect(await parseDocument('pdf', await pdfFlateBomb(0.5, 2), undefined, { limits })).not.toHaveLength(0);
  });
});
