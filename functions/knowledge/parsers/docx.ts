import type { ParseBudget } from '../ingest-limits.js';
import { type DocxToHtml, inProcessDocxToHtml } from './docx-html.js';
import { parseHtml } from './html.js';
import type { ParsedNode } from './node.js';
import { checkZipInflation } from './zip-bounds.js';

/**
 * A Word document: its zip's inflated size is checked first (a zip bomb is refused before mammoth
 * inflates it), then mammoth turns it into semantic HTML (headings, paragraphs, tables), parsed as HTML.
 */
export async function parseDocx(
  bytes: Uint8Array,
  budget: ParseBudget,
  toHtml: DocxToHtml = inProcessDocxToHtml,
): Promise<ParsedNode[]> {
  await checkZipInflation(bytes, budget);
  // mammoth cannot be stopped once started; its work is bounded by the markup limit checked above.
  const html = await budget.race(toHtml(bytes));
  return parseHtml(html, budget);
}
