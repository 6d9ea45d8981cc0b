import { paragraphNodes, tidy, type ParsedNode } from './node.js';

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const TABLE_ROW = /^\s*\|(.*)\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/**
 * Markdown and plain text: `#` headings open sections, blank lines end paragraphs, and a pipe table's
 * rows become table-row nodes ("Column: value; ..." under the table's header). Plain text is the
 * same without headings or tables.
 */
export function parseMarkdown(source: string): ParsedNode[] {
  const nodes: ParsedNode[] = [];
  let heading = '';
  let paragraph: string[] = [];
  let header: string[] | null = null;
  const flush = () => {
    nodes.push(...paragraphNodes(paragraph.join(' '), heading, null));
    paragraph = [];
  };
  for (const line of source.replace(/\r\n?/g, '\n').split('\n')) {
    const h = HEADING.exec(line);
    const row = TABLE_ROW.exec(line);
    if (h) {
      flush();
      header = null;
      heading = tidy(h[2] ?? '');
      if (heading) nodes.push({ kind: 'section', heading, text: heading, page: null });
    } else if (row) {
      flush();
      if (TABLE_RULE.test(line)) continue;
      const cells = (row[1] ?? '').split('|').map(tidy);
      if (!header) header = cells;
      else nodes.push({ kind: 'table_row', heading, text: rowText(header, cells), page: null });
    } else if (line.trim() === '') {
      flush();
      header = null;
    } else {
      header = null;
      paragraph.push(line);
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
