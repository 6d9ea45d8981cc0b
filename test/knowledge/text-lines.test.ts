import { describe, expect, it } from 'vitest';
import { ParseBudget } from '../../functions/knowledge/ingest-limits.js';
import { DECODE_BYTES, parseDocument, utf8Lines } from '../../functions/knowledge/parsers/index.js';

/**
 * Text and Markdown are read line by line as they are decoded, a piece (DECODE_BYTES) at a time, never as
 * one string. The lines must be exactly those of the whole text, whatever falls on a piece's edge: a line,
 * a multi-byte character, the two halves of a \r\n.
 */
const MB = 1024 * 1024;
const PIECE = DECODE_BYTES;
const encoder = new TextEncoder();

/** The lines of the whole text, as a reader of one string gives them (the last one after the last ending). */
const wholeLines = (text: string) => text.split(/\r\n?|\n/);

async function linesOf(text: string): Promise<string[]> {
  const out: string[] = [];
  for await (const batch of utf8Lines(encoder.encode(text), new ParseBudget())) out.push(...batch);
  return out;
}

/** `filler` bytes of ASCII, then `edge`: whatever `edge` starts with sits on the first piece's last byte. */
const atEdge = (edge: string, filler = PIECE - 1) => `${'x'.repeat(filler)}${edge}`;

describe('the lines of UTF-8 text, decoded a piece at a time', () => {
  it.each([
    ['\\r\\n split across the edge', atEdge('\r\nnext line\nlast')],
    ['\\r at the edge, then a new line', atEdge('\rnext\n')],
    ['\\n as the first byte of the second piece', atEdge('\nsecond', PIECE)],
    ['\\r\\n as the first bytes of the second piece', atEdge('\r\nsecond', PIECE)],
    ['a line longer than several pieces', `head\n${'y'.repeat(3 * PIECE + 17)}\ntail`],
    ['a multi-byte character across the edge', atEdge('é€😀 and on\nend')],
    ['blank lines and a trailing ending', atEdge('a\n\n\r\n\rb\n')],
    ['empty text', ''],
  ])('%s: exactly the lines of the whole text', async (_label, text) => {
    expect(await linesOf(text)).toEqual(wholeLines(text));
  });

  it('gives a large text the same nodes as its lines read from one string', async () => {
    // Paragraphs long enough to be a node each in a large document (short ones are gathered).
    const paragraph = (i: number) => `Paragraph ${i}: renewal pricing onboarding ${'security '.repeat(120)}é`;
    const text = Array.from({ length: 4_000 }, (_, i) => (i % 500 === 0 ? `# Part ${i}` : paragraph(i))).join(
      '\r\n\r\n',
    );
    expect(encoder.encode(text).length).toBeGreaterThan(3 * MB);
    const nodes = await parseDocument('text', encoder.encode(text));
    expect(nodes.filter((n) => n.kind === 'section')).toHaveLength(8);
    expect(nodes.filter((n) => n.kind !== 'section').map((n) => n.text)).toEqual(
      Array.from({ length: 4_000 }, (_, i) => i)
        .filter((i) => i % 500 !== 0)
        .map((i) => paragraph(i).replace(/\s+/g, ' ').trim()),
    );
  });
});
