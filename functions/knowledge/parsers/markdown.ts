import type { ParseBudget } from '../ingest-limits.js';
import { MAX_PENDING_CHARS, paragraphNodes, tidy, type ParsedNode } from './node.js';

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const TABLE_ROW = /^\s*\|(.*)\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
/** Lines read between two looks at the budget. */
const LINES_PER_STEP = 512;
/** Gathered short paragraphs make a node once they hold this many characters. */
export const GATHERED_NODE_CHARS = 1_000;

export interface MarkdownOptions {
  /**
   * Gather consecutive short paragraphs under one heading into nodes of about GATHERED_NODE_CHARS
   * (parsers/index.ts turns it on for large documents): a node per one-line paragraph is too fine a
   * grain to quote or search, and would take a legitimate log or transcript of many short lines past
   * the node limit that exists to stop bombs.
   */
  gatherShortParagraphs?: boolean;
}

/**
 * Markdown and plain text: `#` headings open sections, blank lines end paragraphs, and a pipe table's
 * rows become table-row nodes ("Column: value; ..." under the table's header). Plain text is the
 * same without headings or tables. Read from its lines as they are decoded, a batch at a time
 * (parsers/index.ts: the document is never one string), with the budget looked at every few hundred lines.
 */
export async function parseMarkdown(
  batches: AsyncIterable<readonly string[]>,
  budget: ParseBudget,
  options: MarkdownOptions = {},
): Promise<ParsedNode[]> {
  const nodes: ParsedNode[] = [];
  let heading = '';
  let paragraph: string[] = [];
  let pending = 0;
  let header: string[] | null = null;
  // Short paragraphs gathered for one node (gatherShortParagraphs), tidied, under `heading`.
  let gathered: string[] = [];
  let gatheredChars = 0;
  const emitGathered = () => {
    if (gathered.length > 0) budget.add(nodes, paragraphNodes(gathered.join(' '), heading, null));
    gathered = [];
    gatheredChars = 0;
  };
  const flush = () => {
    const text = paragraph.join(' ');
    paragraph = [];
    pending = 0;
    if (!options.gatherShortParagraphs) {
      budget.add(nodes, paragraphNodes(text, heading, null));
      return;
    }
    const clean = tidy(text);
    if (!clean) return;
    if (clean.length >= GATHERED_NODE_CHARS) {
      emitGathered();
      budget.add(nodes, paragraphNodes(clean, heading, null));
      return;
    }
    gathered.push(clean);
    gatheredChars += clean.length + 1;
    if (gatheredChars >= GATHERED_NODE_CHARS) emitGathered();
  };
  // Headings and table rows end what was gathered: a node never spans a heading or a table.
  const endParagraphs = () => {
    flush();
    emitGathered();
  };
  let count = 0;
  for await (const batch of batches)
    for (const line of batch) {
      if (++count % LINES_PER_STEP === 0) await budget.step();
      budget.addText(line.length);
      const h = HEADING.exec(line);
      const row = TABLE_ROW.exec(line);
      if (h) {
        endParagraphs();
        header = null;
        heading = tidy(h[2] ?? '');
        if (heading) budget.add(nodes, [{ kind: 'section', heading, text: heading, page: null }]);
      } else if (row) {
        endParagraphs();
        if (TABLE_RULE.test(line)) continue;
        const cells = (row[1] ?? '').split('|').map(tidy);
        if (!header) header = cells;
        else budget.add(nodes, [{ kind: 'table_row', heading, text: rowText(header, cells), page: null }]);
      } else if (line.trim() === '') {
        flush();
        header = null;
      } else {
        header = null;
        paragraph.push(line);
        pending += line.length;
        if (pending > MAX_PENDING_CHARS) flush();
      }
    }
  endParagraphs();
  return nodes;
}

/** A table row as text a reader (and a quote) can use on its own: "Plan: Pro; Seats: 40". */
export function rowText(header: readonly string[], cells: readonly string[]): string {
  return cells
    .map((cell, i) => {
      const name = header[i] ?? '';
      return name && name !== cell ? `${name}: ${cell}` : cell;
    })
    .filter((part) => part.trim() !== '')
    .join('; ');
}
