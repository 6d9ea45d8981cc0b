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

const TEXT_KINDS: Record<string, { contentType: string; format: DocumentFormat }> = {
  txt: { contentType: 'text/plain', format: 'text' },
  text: { contentType: 'text/plain', format: 'text' },
  md: { contentType: 'text/markdown', format: 'markdown' },
  markdown: { contentType: 'text/markdown', format: 'markdown' },
  csv: { contentType: 'text/csv', format: 'csv' },
  html: { contentType: 'text/html', format: 'html' },
  htm: { contentType: 'text/html', format: 'html' },
};

/** The text kind a file name states (`notes.txt`, `export.csv`), if it states one. */
function statedTextKind(filename: string | undefined) {
  const ext = /\.([A-Za-z]{2,8})$/.exec(filename ?? '')?.[1]?.toLowerCase();
  return ext ? TEXT_KINDS[ext] : undefined;
}

/**
 * A file's type from its bytes: binary formats by their signature (file-type), never by their
 * name, so a name cannot make a binary file pass as another. Text (valid UTF-8 without NUL) is then
 * the kind its name states (`.txt`, `.md`, `.csv`, `.html`) when it states one: among text kinds the
 * sender knows best, and content alone misreads prose whose lines each hold one comma as a CSV
 * table. Text that opens as HTML is HTML whatever its name; other text without a stated kind is read
 * as CSV or Markdown/plain text by its content.
 * `bytes` may be the file's first bytes only (`totalBytes` long in all): a streamed upload keeps its head.
 */
export async function sniffType(bytes: Uint8Array, totalBytes = bytes.length, filename?: string): Promise<SniffedType> {
  const detected = await fileTypeFromBuffer(bytes);
  if (detected) {
    if (detected.ext === 'pdf') return { contentType: 'application/pdf', format: 'pdf' };
    if (detected.ext === 'docx') return { contentType: detected.mime, format: 'docx' };
    return { contentType: detected.mime, format: null };
  }
  // `bytes` may itself be the head of a longer file (an upload is typed by its first bytes).
  const head = decodeText(bytes.subarray(0, 64 * 1024), totalBytes > Math.min(bytes.length, 64 * 1024));
  if (head === null) return { contentType: 'application/octet-stream', format: null };
  // Markup is read as HTML whatever the name (its scripts, styles and attributes dropped by the parser).
  if (HTML_START.test(head)) return { contentType: 'text/html', format: 'html' };
  const stated = statedTextKind(filename);
  if (stated) return stated;
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

/** At least two lines, each with the same (non-zero) number of commas outside quotes. */
function looksLikeCsv(text: string): boolean {
  const lines = text
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .slice(0, 10);
  if (lines.length < 2) return false;
  // The last line of a prefix may be cut short: judge the complete ones.
  const judged = lines.length > 2 ? lines.slice(0, -1) : lines;
  const counts = judged.map((l) => l.replace(/"[^"]*"/g, '').split(',').length - 1);
  return counts[0] !== undefined && counts[0] > 0 && counts.every((c) => c === counts[0]);
}
