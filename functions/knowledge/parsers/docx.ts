import mammoth from 'mammoth';
import { parseHtml } from './html.js';
import type { ParsedNode } from './node.js';

/** A Word document: mammoth turns it into semantic HTML (headings, paragraphs, tables), parsed as HTML. */
export async function parseDocx(bytes: Uint8Array): Promise<ParsedNode[]> {
  const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  // mammoth's Node build reads `buffer`, its browser build (what a Worker bundles) `arrayBuffer`:
  // both get the same bytes, so one call works on either runtime.
  const input = { arrayBuffer, buffer: arrayBuffer } as unknown as Parameters<typeof mammoth.convertToHtml>[0];
  const { value } = await mammoth.convertToHtml(input);
  return parseHtml(value);
}
