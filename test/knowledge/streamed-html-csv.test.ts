import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { IngestLimitError, ParseBudget } from '../../functions/knowledge/ingest-limits.js';
import { MAX_UNENDED_CSV_CHARS, parseCsv } from '../../functions/knowledge/parsers/csv.js';
import { parseHtml } from '../../functions/knowledge/parsers/html.js';
import { DECODE_BYTES, parseDocument, utf8Pieces } from '../../functions/knowledge/parsers/index.js';

/**
 * HTML and CSV are read from their pieces as they are decoded (DECODE_BYTES at a time), never as
 * one string: the nodes are exactly those of the whole text, whatever falls on a piece's edge (a
 * tag, an entity, a multi-byte character, a quoted field across lines), and a document past the
 * text limit is refused having read no further than the limit.
 */
const encoder = new TextEncoder();
const MB = 1024 * 1024;

/** The pieces of `bytes`, counting how many the parser has pulled. */
function counted(bytes: Uint8Array, budget: ParseBudget) {
  const seen = { pieces: 0 };
  async function* pieces() {
    for await (const piece of utf8Pieces(bytes, budget)) {
      seen.pieces++;
      yield piece;
    }
  }
  return { seen, pieces: pieces() };
}

const htmlDocument = (sections: number) =>
  Array.from(
    { length: sections },
    (_, s) =>
      `<h2>Part ${s} &amp; more</h2>${Array.from({ length: 40 }, (_, p) => `<p>Paragraph ${s}.${p}: caf\u00e9 pricing &lt;renewal&gt; \u20ac ${'onboarding '.repeat(s % 7)}</p>`).join('')}<table><tr><th>Plan</th><th>Seats</th></tr><tr><td>Pro ${s}</td><td>${s * 3}</td></tr></table>`,
  ).join('\n');

describe('HTML read from its decoded pieces', () => {
  it('gives the nodes of the whole string, with tags, entities and characters cut at the pieces edges', async () => {
    const html = htmlDocument(900);
    const bytes = encoder.encode(html);
    expect(bytes.length).toBeGreaterThan(4 * DECODE_BYTES);
    const streamed = await parseDocument('html', bytes);
    const whole = await parseHtml(html, new ParseBudget());
    const shape = (nodes: readonly { kind: string; heading: string; text: string; page: number | null }[]) =>
      nodes.map(({ kind, heading, text, page }) => ({ kind, heading, text, page }));
    expect(shape(streamed)).toEqual(shape(whole));
    expect(streamed.filter((n) => n.kind === 'section')).toHaveLength(900);
    expect(streamed.find((n) => n.text.startsWith('Paragraph 3.1:'))?.text).toBe(
      'Paragraph 3.1: caf\u00e9 pricing <renewal> \u20ac onboarding onboarding onboarding',
    );
  });

  it('refuses HTML past the text limit having read no further than it', async () => {
    const bytes = encoder.encode(htmlDocument(8_000));
    expect(bytes.length).toBeGreaterThan(8 * MB);
    const budget = new ParseBudget({ limits: { maxTextChars: MB } });
    const { seen, pieces } = counted(bytes, budget);
    const error = await parseHtml(pieces, budget).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestLimitError);
    expect((error as IngestLimitError).code).toBe('document_too_large');
    expect(seen.pieces).toBeLessThanOrEqual(MB / DECODE_BYTES + 1);
  });
});

describe('CSV read from its decoded pieces', () => {
  const csv = (rows: number) =>
    `id,note,price\n${Array.from({ length: rows }, (_, i) => `${i},"line one\nline ""two"", caf\u00e9 ${i}",${i % 97}.5`).join('\n')}\n`;

  it('gives the rows of the whole string, a quoted field across lines and pieces kept whole', async () => {
    const text = csv(40_000);
    expect(encoder.encode(text).length).toBeGreaterThan(4 * DECODE_BYTES);
    const nodes = await parseDocument('csv', encoder.encode(text));
    const rows = (parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][]).slice(1);
    expect(nodes).toHaveLength(rows.length);
    expect(nodes.map((n) => n.text)).toEqual(
      rows.map(([id, note, price]) => `id: ${id}; note: ${note?.replace(/\s+/g, ' ')}; price: ${price}`),
    );
  });

  it('refuses a CSV past the text limit having read no further than it', async () => {
    const bytes = encoder.encode(csv(250_000));
    expect(bytes.length).toBeGreaterThan(8 * MB);
    const budget = new ParseBudget({ limits: { maxTextChars: MB } });
    const { seen, pieces } = counted(bytes, budget);
    const error = await parseCsv(pieces, budget).catch((e: unknown) => e);
    expect((error as IngestLimitError).code).toBe('document_too_large');
    expect(seen.pieces).toBeLessThanOrEqual(MB / DECODE_BYTES + 2);
  });

  it('refuses a row that never ends (an unclosed quote) instead of holding the rest of the file', async () => {
    const bytes = encoder.encode(`a,b\n1,"open ${'never closed\n'.repeat(500_000)}`);
    expect(bytes.length).toBeGreaterThan(MAX_UNENDED_CSV_CHARS + DECODE_BYTES);
    const budget = new ParseBudget();
    const { seen, pieces } = counted(bytes, budget);
    await expect(parseCsv(pieces, budget)).rejects.toThrow(/without ending \(an unclosed quote\?\)/);
    expect(seen.pieces).toBeLessThanOrEqual(MAX_UNENDED_CSV_CHARS / DECODE_BYTES + 2);
  });
});
