import { describe, expect, it } from 'vitest';
import { IngestLimitError, INGEST_LIMITS } from '../../functions/knowledge/ingest-limits.js';
import { GATHERED_NODE_CHARS } from '../../functions/knowledge/parsers/markdown.js';
import { MAX_NODE_CHARS } from '../../functions/knowledge/parsers/node.js';
import {
  GATHER_SHORT_PARAGRAPHS_FROM_BYTES,
  parseDocument,
  sniffType,
} from '../../functions/knowledge/parsers/index.js';
import { manySections } from '../support/bombs.js';

/**
 * The grain of a large text: a log or transcript of many short paragraphs is a legitimate document,
 * not a bomb. Its short paragraphs are gathered into nodes of about GATHERED_NODE_CHARS, so the node
 * limit only refuses what no reader could use (tens of thousands of headings, say), and a plain-text
 * file of prose whose lines each hold a comma is read as text, not as a CSV of one row per line.
 */
const encoder = new TextEncoder();

/** `count` one-line paragraphs separated by blank lines: about 60 characters each. */
const shortParagraphs = (count: number) =>
  Array.from({ length: count }, (_, i) => `Line ${i}: the customer asked about renewal pricing again.`).join('\n\n');

/** The soak's text: numbered sentences, one per line, each with one comma. */
const proseLines = (count: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      `Section ${i}. The customer raised pricing in meeting ${i}: they asked how pricing compares with last quarter, and the account team agreed to follow up.`,
  ).join('\n');

describe('the grain of a large text', () => {
  it('gathers a large text of more short paragraphs than the node limit into nodes under it, losing no text', async () => {
    const text = shortParagraphs(INGEST_LIMITS.maxNodes + 20_000);
    const bytes = encoder.encode(text);
    expect(bytes.length).toBeGreaterThan(GATHER_SHORT_PARAGRAPHS_FROM_BYTES);
    const nodes = await parseDocument('text', bytes);
    expect(nodes.length).toBeLessThan(INGEST_LIMITS.maxNodes / 10);
    for (const node of nodes) {
      expect(node.kind).toBe('paragraph');
      expect(node.text.length).toBeLessThanOrEqual(MAX_NODE_CHARS);
    }
    // Every node but the last holds about GATHERED_NODE_CHARS: whole paragraphs, in order.
    for (const node of nodes.slice(0, -1)) expect(node.text.length).toBeGreaterThanOrEqual(GATHERED_NODE_CHARS);
    expect(nodes.map((n) => n.text).join(' ')).toBe(text.replace(/\s+/g, ' ').trim());
    expect(nodes[0]?.text.startsWith('Line 0: the customer asked about renewal pricing again. Line 1:')).toBe(true);
  });

  it('never gathers across a heading or a table, and keeps a long paragraph a node of its own', async () => {
    const long = `A long paragraph ${'about onboarding '.repeat(80)}ends here.`;
    const text = [
      shortParagraphs(20_000),
      '# Pricing',
      'short one',
      'short two',
      long,
      'short three',
      '| Plan | Seats |\n| --- | --- |\n| Pro | 40 |',
      'after the table',
    ].join('\n\n');
    const nodes = await parseDocument('markdown', encoder.encode(text));
    const pricing = nodes.slice(nodes.findIndex((n) => n.kind === 'section'));
    expect(pricing.map((n) => [n.kind, n.text.slice(0, 24)])).toEqual([
      ['section', 'Pricing'],
      ['paragraph', 'short one short two'],
      ['paragraph', 'A long paragraph about o'],
      ['paragraph', 'short three'],
      ['table_row', 'Plan: Pro; Seats: 40'],
      ['paragraph', 'after the table'],
    ]);
    expect(pricing.every((n) => n.heading === 'Pricing')).toBe(true);
  });

  it('keeps a node per paragraph in a document of ordinary size', async () => {
    const nodes = await parseDocument('text', encoder.encode('one\n\ntwo\n\nthree\n'));
    expect(nodes.map((n) => n.text)).toEqual(['one', 'two', 'three']);
  });

  it('still refuses a document of more headings than the node limit', async () => {
    const error = await parseDocument('markdown', manySections(INGEST_LIMITS.maxNodes + 1)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(IngestLimitError);
    expect((error as IngestLimitError).code).toBe('too_many_nodes');
  });
});

describe('the kind of a text file', () => {
  const soakLike = encoder.encode(proseLines(70_000));

  it('reads prose whose lines each hold a comma as text, within the node limit', async () => {
    expect(await sniffType(soakLike.subarray(0, 4096), soakLike.length)).toEqual({
      contentType: 'text/plain',
      format: 'text',
    });
    const nodes = await parseDocument('text', soakLike);
    expect(nodes.length).toBeLessThan(INGEST_LIMITS.maxNodes / 5);
  });

  it('still reads a table as CSV: values, and rows of sentences in quotes', async () => {
    expect((await sniffType(encoder.encode('account,plan,seats\nAcme,Enterprise,120\nGlobex,Team,12\n'))).format).toBe(
      'csv',
    );
    const survey = [
      'What did you like most about onboarding,Score',
      '"The setup call was quick and the guide was clear.",9',
      '"Support answered within the hour.",8',
    ].join('\n');
    expect((await sniffType(encoder.encode(`${survey}\n`))).format).toBe('csv');
  });
});
