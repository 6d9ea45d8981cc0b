import { ParseBudget, type IngestLimits } from '../ingest-limits.js';
import { parseCsv } from './csv.js';
import { parseDocx } from './docx.js';
import type { DocxToHtml } from './docx-html.js';
import { parseHtml } from './html.js';
import { parseMarkdown } from './markdown.js';
import { withNodeKeys, type KeyedNode } from './node.js';
import { parsePdf } from './pdf.js';
import type { DocumentFormat } from './sniff.js';

export type { DocumentFormat, SniffedType } from './sniff.js';
export { DOCUMENT_FORMATS, sniffType } from './sniff.js';
export type { KeyedNode, ParsedNode } from './node.js';
export { type DocxToHtml, inProcessDocxToHtml } from './docx-html.js';

export interface ParseOptions {
  /** The caller will not use the bytes again, so a parser may take them without a copy (they may be empty afterwards). */
  handOver?: boolean;
  /** Stops the parse at its next step (the run was canceled, the server is stopping). */
  signal?: AbortSignal;
  /** Tighter limits than INGEST_LIMITS (tests). */
  limits?: Partial<IngestLimits>;
  /** Where a DOCX becomes HTML: in this thread unless the runtime gives a worker thread (services.docxToHtml). */
  docxToHtml?: DocxToHtml;
}

/**
 * A document's nodes with their stable keys, in reading order, within the ingest limits
 * (ingest-limits.ts): past one, this throws an IngestLimitError naming it. Long work yields to the
 * event loop as it goes.
 */
export async function parseDocument(
  format: DocumentFormat,
  bytes: Uint8Array,
  onPage?: (page: number, pages: number) => void | Promise<void>,
  options: ParseOptions = {},
): Promise<KeyedNode[]> {
  const budget = new ParseBudget({ signal: options.signal, limits: options.limits });
  return withNodeKeys(await parse(format, bytes, budget, onPage, options), budget);
}

async function parse(
  format: DocumentFormat,
  bytes: Uint8Array,
  budget: ParseBudget,
  onPage: ((page: number, pages: number) => void | Promise<void>) | undefined,
  options: ParseOptions,
) {
  switch (format) {
    case 'pdf':
      return parsePdf(bytes, budget, onPage, options);
    case 'docx':
      return parseDocx(bytes, budget, options.docxToHtml);
    case 'html':
      return parseHtml(await utf8(bytes, budget), budget);
    case 'csv':
      return parseCsv(await utf8(bytes, budget), budget);
    case 'markdown':
    case 'text':
      return parseMarkdown(await utf8(bytes, budget), budget);
  }
}

/** Bytes decoded between two looks at the budget. */
const DECODE_BYTES = 1024 * 1024;

/** UTF-8 text, decoded a megabyte at a time (a character cut between two is completed by the next). */
async function utf8(bytes: Uint8Array, budget: ParseBudget): Promise<string> {
  const decoder = new TextDecoder();
  const parts: string[] = [];
  for (let at = 0; at < bytes.length; at += DECODE_BYTES) {
    await budget.step();
    parts.push(decoder.decode(bytes.subarray(at, at + DECODE_BYTES), { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}
