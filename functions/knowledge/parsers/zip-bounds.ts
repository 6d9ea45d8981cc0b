import { decompressedSizeExceeded, IngestLimitError, mib, type ParseBudget } from '../ingest-limits.js';
import { inflateCounted } from './inflate.js';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_END = 0x06064b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const SATURATED_16 = 0xffff;
const SATURATED_32 = 0xffffffff;
const STORED = 0;
const DEFLATED = 8;

interface ZipEntry {
  method: number;
  compressedSize: number;
  declaredSize: number;
  localOffset: number;
}

/**
 * A zip's (a DOCX's) inflated size, checked before a reader such as mammoth inflates it: first the
 * sizes its central directory declares (refused at once, nothing inflated, when they pass the
 * limit), then the actual sizes, each entry inflated and counted and stopped the moment the total
 * passes the limit, since declared sizes can lie. Entries whose content is markup (starts with `<`)
 * also count against the markup limit: that is what the reader parses into memory. The entries
 * measured are the ones a reader takes from the central directory, at the offsets it would read.
 * A zip this cannot read is left to the reader, which refuses it on its own.
 */
export async function checkZipInflation(bytes: Uint8Array, budget: ParseBudget): Promise<void> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(view);
  if (!entries) return;
  const { maxDecompressedBytes, maxMarkupBytes } = budget.limits;
  const declared = entries.reduce((sum, e) => sum + e.declaredSize, 0);
  if (declared > maxDecompressedBytes) throw decompressedSizeExceeded(budget.limits, 'zipped parts');
  let total = 0;
  let markup = 0;
  for (const entry of entries) {
    await budget.step();
    const data = entryData(view, entry);
    if (!data) continue;
    let size: number;
    let head: Uint8Array;
    if (entry.method === STORED) {
      size = data.length;
      head = data.subarray(0, 64);
    } else if (entry.method === DEFLATED) {
      // Markup stops at whichever limit comes first; anything else at the total's.
      const left = maxDecompressedBytes - total;
      const measured = await inflateCounted(
        data,
        'deflate-raw',
        (first) => (isMarkup(first) ? Math.min(left, maxMarkupBytes - markup) : left),
        budget,
      );
      size = measured.bytes;
      head = measured.head;
    } else continue;
    if (isMarkup(head)) {
      markup += size;
      if (markup > maxMarkupBytes) throw markupExceeded(maxMarkupBytes);
    }
    total += size;
    if (total > maxDecompressedBytes) throw decompressedSizeExceeded(budget.limits, 'zipped parts');
  }
}

const markupExceeded = (limit: number) =>
  new IngestLimitError(
    'decompressed_size_exceeded',
    `The document's XML parts inflate to more than ${mib(limit)}, the most one document may (a compression bomb, or a document too long for one upload: split it).`,
    limit,
  );

/** The central directory's entries, or null when the bytes are not a zip this can read. */
function centralDirectory(view: DataView): ZipEntry[] | null {
  const end = findEnd(view);
  if (end < 0) return null;
  let count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  if (count === SATURATED_16 || offset === SATURATED_32) {
    const locator = end - 20;
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR) return null;
    const zip64End = Number(view.getBigUint64(locator + 8, true));
    if (zip64End + 56 > view.byteLength || view.getUint32(zip64End, true) !== ZIP64_END) return null;
    count = Number(view.getBigUint64(zip64End + 32, true));
    offset = Number(view.getBigUint64(zip64End + 48, true));
  }
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== CENTRAL_ENTRY) return null;
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    if (at + 46 + nameLength + extraLength > view.byteLength) return null;
    const entry: ZipEntry = {
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      declaredSize: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    };
    readZip64Extra(view, at + 46 + nameLength, extraLength, entry);
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The end-of-central-directory record, searched backwards over the longest comment a zip may have. */
function findEnd(view: DataView): number {
  const last = view.byteLength - 22;
  for (let at = last; at >= 0 && at >= last - SATURATED_16; at--)
    if (view.getUint32(at, true) === END_OF_CENTRAL_DIRECTORY) return at;
  return -1;
}

/** Sizes and offset too large for 32 bits are in the zip64 extra field, in this order, when saturated. */
function readZip64Extra(view: DataView, from: number, length: number, entry: ZipEntry): void {
  for (let at = from; at + 4 <= from + length; ) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        if (field + 8 > at + 4 + size) return null;
        const value = Number(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (entry.declaredSize === SATURATED_32) entry.declaredSize = next() ?? entry.declaredSize;
      if (entry.compressedSize === SATURATED_32) entry.compressedSize = next() ?? entry.compressedSize;
      if (entry.localOffset === SATURATED_32) entry.localOffset = next() ?? entry.localOffset;
      return;
    }
    at += 4 + size;
  }
}

/** An entry's compressed bytes: after its local header, as long as the central directory says. */
function entryData(view: DataView, entry: ZipEntry): Uint8Array | null {
  const at = entry.localOffset;
  if (at + 30 > view.byteLength || view.getUint32(at, true) !== LOCAL_HEADER) return null;
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = Math.min(view.byteLength, start + entry.compressedSize);
  if (start > end) return null;
  return new Uint8Array(view.buffer, view.byteOffset + start, end - start);
}

/** Starts with `<` after an optional byte-order mark and whitespace: XML a reader would parse. */
function isMarkup(head: Uint8Array): boolean {
  let at = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (at < head.length && (head[at] === 0x20 || head[at] === 0x09 || head[at] === 0x0a || head[at] === 0x0d)) at++;
  return head[at] === 0x3c;
}
