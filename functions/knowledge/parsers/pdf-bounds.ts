import { decompressedSizeExceeded, type ParseBudget } from '../ingest-limits.js';
import { inflateCounted } from './inflate.js';

/** Nested zlib layers followed in one stream (a filter chain of FlateDecode twice or more). */
const MAX_LAYERS = 4;
/** How far before `stream` its dictionary is looked for. */
const DICT_WINDOW = 4096;

const STREAM = /stream(\r\n|\n|\r)/g;
const LENGTH = /\/Length\s+(\d+)(?:\s+(\d+)\s+R)?/;
const INTEGER_OBJECT = /(\d+)\s+(\d+)\s+obj\s*(\d+)\s*endobj/g;

/**
 * A PDF's compressed streams, inflated and counted before pdf.js reads the file: pdf.js inflates a
 * stream whole into memory as it reads it and cannot be stopped meanwhile, so a flate bomb is refused
 * here, the moment the total passes the limit, without being inflated whole. Every stream whose data
 * is zlib (whatever its dictionary calls it) counts, each nested layer too; its length is the
 * dictionary's /Length (direct, or an integer object), else up to `endstream`. Encrypted streams do
 * not inflate here and are left to the page, text and time limits.
 */
export async function checkPdfInflation(bytes: Uint8Array, budget: ParseBudget): Promise<void> {
  // windows-1252 decodes every byte to one character, so offsets in the text are offsets in the bytes.
  const text = new TextDecoder('windows-1252').decode(bytes);
  const lengths = integerObjects(text);
  const limit = budget.limits.maxDecompressedBytes;
  let total = 0;
  STREAM.lastIndex = 0;
  for (let match = STREAM.exec(text); match; match = STREAM.exec(text)) {
    await budget.step();
    const start = match.index + match[0].length;
    const dict = dictionaryBefore(text, match.index);
    if (dict === null) continue;
    const end = streamEnd(text, dict, start, lengths);
    let data = bytes.subarray(start, end);
    for (let layer = 0; layer < MAX_LAYERS && looksLikeZlib(data); layer++) {
      const measured = await inflateCounted(data, 'deflate', limit - total, budget);
      if (measured.exceeded) throw decompressedSizeExceeded(budget.limits, 'compressed streams');
      total += measured.bytes;
      if (!looksLikeZlib(measured.head)) break;
      // Another zlib layer inside: inflate it again, keeping the output this time, to measure the next.
      const inner = await inflateCounted(data, 'deflate', limit - total, budget, true);
      if (!inner.output) break;
      data = inner.output;
    }
  }
}

/** The stream's dictionary (`<< ... >>` just before `stream`), or null when `stream` is not a stream keyword. */
function dictionaryBefore(text: string, at: number): string | null {
  let end = at;
  while (end > 0 && /\s/.test(text[end - 1] ?? '')) end--;
  if (text.slice(end - 2, end) !== '>>') return null;
  const from = Math.max(0, end - DICT_WINDOW);
  const obj = text.lastIndexOf('obj', end);
  return text.slice(obj >= from ? obj : from, end);
}

function streamEnd(text: string, dict: string, start: number, lengths: Map<string, number>): number {
  const length = LENGTH.exec(dict);
  if (length) {
    const value = length[2] === undefined ? Number(length[1]) : lengths.get(`${length[1]} ${length[2]}`);
    if (value !== undefined && start + value <= text.length) return start + value;
  }
  const end = text.indexOf('endstream', start);
  return end < 0 ? text.length : end;
}

/** Objects holding one integer (`12 0 obj 3456 endobj`): where an indirect /Length is. */
function integerObjects(text: string): Map<string, number> {
  const found = new Map<string, number>();
  INTEGER_OBJECT.lastIndex = 0;
  for (let match = INTEGER_OBJECT.exec(text); match; match = INTEGER_OBJECT.exec(text))
    found.set(`${match[1]} ${match[2]}`, Number(match[3]));
  return found;
}

/** A zlib header: deflate with a window of at most 32 KiB, and a check value that holds. */
function looksLikeZlib(data: Uint8Array): boolean {
  const [cmf, flg] = data;
  if (cmf === undefined || flg === undefined) return false;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && ((cmf << 8) | flg) % 31 === 0;
}
