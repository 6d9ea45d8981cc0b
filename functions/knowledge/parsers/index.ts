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
      return parseHtml(utf8Pieces(bytes, budget), budget);
    case 'csv':
      return parseCsv(utf8Pieces(bytes, budget), budget);
    case 'markdown':
    case 'text':
      return parseMarkdown(utf8Lines(bytes, budget), budget, {
        gatherShortParagraphs: bytes.length > GATHER_SHORT_PARAGRAPHS_FROM_BYTES,
      });
  }
}

/**
 * Text and Markdown past this size gather consecutive short paragraphs into nodes (markdown.ts):
 * a node per short paragraph is kept where it is cheap, in documents of ordinary size; a large
 * one of many short lines (a log, a transcript) stays well inside the node limit.
 */
export const GATHER_SHORT_PARAGRAPHS_FROM_BYTES = 1024 * 1024;

/** Bytes decoded (and for text, split into lines) between two looks at the budget. */
export const DECODE_BYTES = 256 * 1024;

/**
 * UTF-8 text as decoded pieces of DECODE_BYTES at a time (a character cut between two is completed
 * by the next), for parsers that read a stream (HTML, CSV): the document is never one string.
 */
export async function* utf8Pieces(bytes: Uint8Array, budget: ParseBudget): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for (let at = 0; at < bytes.length; at += DECODE_BYTES) {
    await budget.step();
    const piece = decoder.decode(bytes.subarray(at, at + DECODE_BYTES), { stream: true });
    if (piece) yield piece;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/**
 * The lines of UTF-8 text (ended by \n, \r\n or \r; the last one after the last ending, empty or not),
 * decoded DECODE_BYTES at a time and handed on a batch at a time. Never the whole text as one
 * string: joining the decoded parts of a 50 MB file is one synchronous copy of all of it, long enough to
 * stall every other request in the process (bench/ingest-responsiveness.ts). A line cut between two
 * pieces is completed by the next; a \r\n cut between them counts once.
 */
export async function* utf8Lines(bytes: Uint8Array, budget: ParseBudget): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  const ending = /\r\n?|\n/g;
  let carry = '';
  let afterCr = false;
  for (let at = 0; at < bytes.length; at += DECODE_BYTES) {
    await budget.step();
    let text = decoder.decode(bytes.subarray(at, at + DECODE_BYTES), { stream: true });
    if (afterCr && text.startsWith('\n')) {
      text = text.slice(1);
      afterCr = false;
    }
    if (text.length > 0) afterCr = text.endsWith('\r');
    const batch: string[] = [];
    let from = 0;
    ending.lastIndex = 0;
    for (let match = ending.exec(text); match; match = ending.exec(text)) {
      batch.push(carry + text.slice(from, match.index));
      carry = '';
      from = ending.lastIndex;
    }
    carry += text.slice(from);
    if (batch.length > 0) yield batch;
  }
  yield [carry + decoder.decode()];
}
