import type { ParseBudget } from '../ingest-limits.js';
import { MAX_PENDING_CHARS, paragraphNodes, tidy, type ParsedNode } from './node.js';

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const TABLE_ROW = /^\s*\|(.*)\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
/** Lines read between two looks at the budget. */
const LINES_PER_STEP = 512;

/**
 * Markdown and plain text: `#` headings open sections, blank lines end paragraphs, and a pipe table's
 * rows become table-row nodes ("Column: value; ..." under the table's header). Plain text is the
 * same without headings or tables. Read from its lines as they are decoded, a batch at a time
 * (parsers/index.ts: the document is never one string), with the budget looked at every few hundred lines.
 */
export async function parseMarkdown(
  batches: AsyncIterable<readonly string[]>,
  budget: ParseBudget,
): Promise<ParsedNode[]> {
  const nodes: ParsedNode[] = [];
  let heading = '';
  let paragraph: string[] = [];
  let pending = 0;
  let header: string[] | null = null;
  const flush = () => {
    budget.add(nodes, paragraphNodes(paragraph.join(' '), heading, null));
    paragraph = [];
    pending = 0;
  };
  let count = 0;
  for await (const batch of batches)
    for (const line of batch) {
      if (++count % LINES_PER_STEP === 0) await budget.step();
      budget.addText(line.length);
      const h = HEADING.exec(line);
      const row = TABLE_ROW.exec(line);
      if (h) {
        flush();
        header = null;
        heading = tidy(h[2] ?? '');
        if (heading) budget.add(nodes, [{ kind: 'section', heading, text: heading, page: null }]);
      } else if (row) {
        flush();
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
  flush();
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
