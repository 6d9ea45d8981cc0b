import { getDocumentProxy } from 'unpdf';
import { IngestLimitError, type ParseBudget } from '../ingest-limits.js';
import { MAX_PENDING_CHARS, paragraphNodes, pendingCut, type ParsedNode } from './node.js';
import { checkPdfInflation } from './pdf-bounds.js';

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
 * Bounded: the file's compressed streams are measured first (checkPdfInflation), its pages counted,
 * and each page's text is read as pdf.js streams it, a chunk at a time, with the budget looked at
 * between chunks (the event loop runs there, and a page of endless text is stopped mid-page).
 *
 * pdf.js needs the whole file in memory and transfers (detaches) the buffer it is given. By default
 * it gets a copy and the caller keeps its bytes; `handOver` gives it the caller's bytes instead (they
 * are empty afterwards), so a large file is in memory once, not twice.
 */
export async function parsePdf(
  bytes: Uint8Array,
  budget: ParseBudget,
  onPage?: (page: number, pages: number) => void | Promise<void>,
  options: { handOver?: boolean } = {},
): Promise<ParsedNode[]> {
  await checkPdfInflation(bytes, budget);
  const pdf = await budget.race(getDocumentProxy(options.handOver ? bytes : new Uint8Array(bytes)));
  const nodes: ParsedNode[] = [];
  let finished = false;
  try {
    if (pdf.numPages > budget.limits.maxPdfPages)
      throw new IngestLimitError(
        'document_too_large',
        `The PDF has ${pdf.numPages.toLocaleString('en-US')} pages; one document may have at most ${budget.limits.maxPdfPages.toLocaleString('en-US')}.`,
        budget.limits.maxPdfPages,
      );
    for (let number = 1; number <= pdf.numPages; number++) {
      await budget.step();
      const page = await budget.race(pdf.getPage(number));
      let paragraph = '';
      let lineEmpty = true;
      let lastY: number | null = null;
      const reader = page.streamTextContent().getReader() as ReadableStreamDefaultReader<{ items: unknown[] }>;
      try {
        for (;;) {
          const { value, done } = await budget.race(reader.read());
          if (done) break;
          for (const raw of value.items as TextItem[]) {
            if (typeof raw.str !== 'string') continue;
            const text = raw.str;
            budget.addText(text.length);
            const y = raw.transform?.[5];
            const height = raw.height || 10;
            const farBelow =
              y !== undefined && lastY !== null && text.trim() !== '' && lastY - y > height * PARAGRAPH_GAP;
            if ((text.trim() === '' && raw.hasEOL && lineEmpty) || farBelow) {
              // An empty line, or a gap wider than a line: the paragraph ends here.
              budget.add(nodes, paragraphNodes(paragraph, '', number));
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
            if (paragraph.length > MAX_PENDING_CHARS) {
              const cut = pendingCut(paragraph);
              budget.add(nodes, paragraphNodes(paragraph.slice(0, cut), '', number));
              paragraph = paragraph.slice(cut);
            }
          }
          await budget.step();
        }
      } catch (error) {
        // pdf.js stops the page's task at its next check; its reason must be an error.
        await reader.cancel(error instanceof Error ? error : new Error(String(error))).catch(() => undefined);
        throw error;
      }
      budget.add(nodes, paragraphNodes(paragraph, '', number));
      page.cleanup();
      await onPage?.(number, pdf.numPages);
    }
    finished = true;
  } finally {
    // A parse stopped by a limit does not wait for pdf.js to wind down the page it was on.
    const destroyed = pdf.destroy().catch(() => undefined);
    if (finished) await destroyed;
  }
  return nodes;
}
