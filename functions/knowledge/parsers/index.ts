import { parseCsv } from './csv.js';
import { parseDocx } from './docx.js';
import { parseHtml } from './html.js';
import { parseMarkdown } from './markdown.js';
import { withNodeKeys, type KeyedNode } from './node.js';
import { parsePdf } from './pdf.js';
import type { DocumentFormat } from './sniff.js';

export type { DocumentFormat, SniffedType } from './sniff.js';
export { DOCUMENT_FORMATS, sniffType } from './sniff.js';
export type { KeyedNode, ParsedNode } from './node.js';

/**
 * A document's nodes with their stable keys, in reading order. `handOver`: the caller will not use
 * the bytes again, so a parser may take them without a copy (they may be empty afterwards).
 */
export async function parseDocument(
  format: DocumentFormat,
  bytes: Uint8Array,
  onPage?: (page: number, pages: number) => void | Promise<void>,
  options: { handOver?: boolean } = {},
): Promise<KeyedNode[]> {
  switch (format) {
    case 'pdf':
      return withNodeKeys(await parsePdf(bytes, onPage, options));
    case 'docx':
      return withNodeKeys(await parseDocx(bytes));
    case 'html':
      return withNodeKeys(parseHtml(utf8(bytes)));
    case 'csv':
      return withNodeKeys(parseCsv(utf8(bytes)));
    case 'markdown':
    case 'text':
      return withNodeKeys(parseMarkdown(utf8(bytes)));
  }
}

const utf8 = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
