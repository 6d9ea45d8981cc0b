import { getDocumentProxy } from 'unpdf';
import { paragraphNodes, type ParsedNode } from './node.js';

interface TextItem {
  str: string;
  hasEOL?: boolean;
  /** [a, b, c, d, x, y]: where the text sits on the page. */
  transform?: number[];
  height?: number;
}

/** A gap between lines wider than this many line heights ends a paragraph. */
const PARAGRAPH_GAP = 1.6;

/**
 * A PDF, page by page (one page's text in memory at a time, each page released after): lines are
 * joined into paragraphs, a blank line or a page end closes one, and each node keeps its page.
 * `onPage` reports progress. PDF has no reliable headings, so its nodes are paragraphs.
 *
 * pdf.js needs the whole file in memory and transfers (detaches) the buffer it is given. By default
 * it gets a copy and the caller keeps its bytes; `handOver` gives it the caller's bytes instead (they
 * are empty afterwards), so a large file is in memory once, not twice.
 */
export async function parsePdf(
  bytes: Uint8Array,
  onPage?: (page: number, pages: number) => void | Promise<void>,
  options: { handOver?: boolean } = {},
): Promise<ParsedNode[]> {
  const pdf = await getDocumentProxy(options.handOver ? bytes : new Uint8Array(bytes));
  const nodes: ParsedNode[] = [];
  try {
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let paragraph = '';
      let lineEmpty = true;
      let lastY: number | null = null;
      for (const raw of content.items as TextItem[]) {
        if (typeof raw.str !== 'string') continue;
        const text = raw.str;
        const y = raw.transform?.[5];
        const height = raw.height || 10;
        const farBelow = y !== undefined && lastY !== null && text.trim() !== '' && lastY - y > height * PARAGRAPH_GAP;
        if ((text.trim() === '' && raw.hasEOL && lineEmpty) || farBelow) {
          // An empty line, or a gap wider than a line: the paragraph ends here.
          nodes.push(...paragraphNodes(paragraph, '', number));
          paragraph = '';
          if (!farBelow) continue;
        }
        if (y !== undefined && text.trim() !== '') lastY = y;
        paragraph += text;
        lineEmpty = false;
        if (raw.hasEOL) {
          paragraph += ' ';
          lineEmpty = true;
        }
      }
      nodes.push(...paragraphNodes(paragraph, '', number));
      page.cleanup();
      await onPage?.(number, pdf.numPages);
    }
  } finally {
    await pdf.destroy();
  }
  return nodes;
}
