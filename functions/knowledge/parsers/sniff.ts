import { fileTypeFromBuffer } from 'file-type';

/** The formats the knowledge bank parses. */
export const DOCUMENT_FORMATS = ['pdf', 'docx', 'html', 'csv', 'markdown', 'text'] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

export interface SniffedType {
  /** The media type read from the bytes. */
  contentType: string;
  /** How the knowledge bank parses it; null when it cannot (an image, an archive, binary data). */
  format: DocumentFormat | null;
}

const HTML_START =
  /^\s*(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html|head|body|meta|title|h[1-6]|p|div|table|article)\b/i;

/**
 * A file's type from its bytes, never from its name: binary formats by their signature (file-type),
 * then text (valid UTF-8 without NUL) as HTML, CSV or Markdown/plain text by its content. `bytes`
 * may be the file's first bytes only (`totalBytes` long in all): a streamed upload keeps its head.
 */
export async function sniffType(bytes: Uint8Array, totalBytes = bytes.length): Promise<SniffedType> {
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) {
    if (detected.ext === 'pdf') return { contentType: 'application/pdf', format: 'pdf' };
    if (detected.ext === 'docx') return { contentType: detected.mime, format: 'docx' };
    return { contentType: detected.mime, format: null };
  }
  // `bytes` may itself be the head of a longer file (an upload is typed by its first bytes).
  const head = decodeText(bytes.subarray(0, 64 * 1024), totalBytes > Math.min(bytes.length, 64 * 1024));
  if (head === null) return { contentType: 'application/octet-stream', format: null };
  if (HTML_START.test(head)) return { contentType: 'text/html', format: 'html' };
  if (looksLikeCsv(head)) return { contentType: 'text/csv', format: 'csv' };
  if (/^#{1,6}\s|^\s*\|.*\|\s*$/m.test(head)) return { contentType: 'text/markdown', format: 'markdown' };
  return { contentType: 'text/plain', format: 'text' };
}

/** UTF-8 text (a cut multi-byte character at the end of a prefix forgiven), or null for binary. */
function decodeText(bytes: Uint8Array, isPrefix: boolean): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(isPrefix ? trimPartialChar(bytes) : bytes);
  } catch {
    return null;
  }
}

function trimPartialChar(bytes: Uint8Array): Uint8Array {
  let end = bytes.length;
  // Step back over continuation bytes to the last lead byte, and drop that unfinished character.
  for (let back = 0; back < 4 && end > 0; back++) {
    const b = bytes[end - 1] as number;
    if ((b & 0xc0) === 0x80) end--;
    else {
      if (b >= 0xc0) end--;
      break;
    }
  }
  return bytes.subarray(0, end);
}

/** A sentence's end, and the words of a line's first cell that make it prose rather than a value. */
const SENTENCE_END = /[.!?]["')\]]*$/;
const PROSE_FIRST_CELL_WORDS = 4;

/**
 * At least two lines, each with the same (non-zero) number of commas outside quotes, that are not
 * prose: lines that each end a sentence and open with a clause of several words before their first
 * comma are text that happens to hold one comma a line (a transcript, a log), not a table.
 */
function looksLikeCsv(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(0, 10);
  if (lines.length < 2) return false;
  // The last line of a prefix may be cut short: judge the complete ones.
  const judged = lines.length > 2 ? lines.slice(0, -1) : lines;
  const counts = judged.map((l) => l.replace(/"[^"]*"/g, '').split(',').length - 1);
  if (counts[0] === undefined || counts[0] === 0 || !counts.every((c) => c === counts[0])) return false;
  return !judged.every((l) => SENTENCE_END.test(l.trim()) && wordsBeforeComma(l) >= PROSE_FIRST_CELL_WORDS);
}

const wordsBeforeComma = (line: string): number =>
  (line.split(',')[0] ?? '').trim().split(/\s+/).filter(Boolean).length;
