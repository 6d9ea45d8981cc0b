import { getDocumentProxy } from 'unpdf';
import { paragraphNodes, type ParsedNode } from './node.js';

interface TextItem {
  str: string;
  hasEOL?: boolean;
}

/**
 * A PDF, page by page (one page's text in memory at a time, each page released after): lines are
 * joined into paragraphs, a blank line or a page end closes one, and each node keeps its page.
 * `onPage` reports progress. PDF has no reliable headings, so its nodes are paragraphs.
 */
export async function parsePdf(
  bytes: Uint8Array,
  onPage?: (page: number, pages: number) => void | Promise<void>,
): Promise<ParsedNode[]> {
  // pdf.js may transfer (detach) the buffer it is given: hand it a copy, the caller keeps its bytes.
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const nodes: ParsedNode[] = [];
  try {
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let paragraph = '';
      let lineEmpty = true;
      for (const raw of content.items as TextItem[]) {
        if (typeof raw.str !== 'string') continue;
        const text = raw.str;
        if (text.trim() === '' && raw.hasEOL && lineEmpty) {
          // An empty line: the paragraph ends here.
          nodes.push(...paragraphNodes(paragraph, '', number));
          paragraph = '';
          continue;
        }
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
