import mammoth from 'mammoth';
import type { ParseBudget } from '../ingest-limits.js';
import { parseHtml } from './html.js';
import type { ParsedNode } from './node.js';
import { checkZipInflation } from './zip-bounds.js';

/** Images become empty <img> elements: their bytes are never read (nor inflated, nor turned into data URIs). */
const skipImages = mammoth.images.imgElement(async () => ({ src: '' }));

/**
 * A Word document: its zip's inflated size is checked first (a zip bomb is refused before mammoth
 * inflates it), then mammoth turns it into semantic HTML (headings, paragraphs, tables), parsed as HTML.
 */
export async function parseDocx(bytes: Uint8Array, budget: ParseBudget): Promise<ParsedNode[]> {
  await checkZipInflation(bytes, budget);
  const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  // mammoth's Node build reads `buffer`, its browser build (what a Worker bundles) `arrayBuffer`:
  // both get the same bytes, so one call works on either runtime.
  const input = { arrayBuffer, buffer: arrayBuffer } as unknown as Parameters<typeof mammoth.convertToHtml>[0];
  // mammoth cannot be stopped once started; its work is bounded by the markup limit checked above.
  const { value } = await budget.race(mammoth.convertToHtml(input, { convertImage: skipImages }));
  return parseHtml(value, budget);
}
