import mammoth from 'mammoth';
import { parseHtml } from './html.js';
import type { ParsedNode } from './node.js';

/** A Word document: mammoth turns it into semantic HTML (headings, paragraphs, tables), parsed as HTML. */
export async function parseDocx(bytes: Uint8Array): Promise<ParsedNode[]> {
  const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const { value } = await mammoth.convertToHtml({ arrayBuffer });
  return parseHtml(value);
}
