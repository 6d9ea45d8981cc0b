import { IngestLimitError, ParseAborted, type ParseBudget } from '../ingest-limits.js';

/** Compressed bytes handed to the inflater at a time. */
const FEED_BYTES = 64 * 1024;
/** Bytes of the start of the output kept to tell what it is. */
const HEAD_BYTES = 64;

export interface Inflated {
  /** Bytes the data inflated to, counted up to just past `limit` (never further). */
  bytes: number;
  /** More than `limit`: inflating stopped there. */
  exceeded: boolean;
  /** The output's first bytes. */
  head: Uint8Array;
  /** The whole output, when asked for (`keep`) and within the limit. */
  output?: Uint8Array;
  /** The data did not inflate to its end (corrupt or truncated): `bytes` is what came out before that. */
  broken: boolean;
}

/**
 * Inflate `data` (zlib `deflate` or raw `deflate-raw`) and count what comes out, stopping the moment
 * it passes the limit (a number, or one chosen from the output's first bytes): a bomb is measured
 * without being inflated whole. Web streams, so it runs on
 * Node (where zlib works off the main thread) and Workers alike; the budget is looked at per chunk.
 */
export async function inflateCounted(
  data: Uint8Array,
  format: 'deflate' | 'deflate-raw',
  limitOf: number | ((head: Uint8Array) => number),
  budget: ParseBudget,
  keep = false,
): Promise<Inflated> {
  const stream = new DecompressionStream(format);
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const feeding = (async () => {
    for (let at = 0; at < data.length; at += FEED_BYTES) {
      await writer.ready;
      await writer.write(data.subarray(at, at + FEED_BYTES) as Uint8Array<ArrayBuffer>);
    }
    await writer.close();
  })().catch(() => undefined);
  const chunks: Uint8Array[] = [];
  const head = new Uint8Array(HEAD_BYTES);
  let headLength = 0;
  let bytes = 0;
  let limit = typeof limitOf === 'number' ? limitOf : Number.POSITIVE_INFINITY;
  let exceeded = false;
  let broken = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (headLength < HEAD_BYTES) {
        const take = value.subarray(0, HEAD_BYTES - headLength);
        head.set(take, headLength);
        headLength += take.length;
        // The limit may depend on what the output is: known from its first chunk.
        if (typeof limitOf === 'function') limit = limitOf(head.subarray(0, headLength));
      }
      bytes += value.length;
      if (bytes > limit) {
        exceeded = true;
        await reader.cancel(new Error('inflated past the limit')).catch(() => undefined);
        break;
      }
      if (keep) chunks.push(value);
      await budget.step();
    }
  } catch (error) {
    await reader.cancel(error).catch(() => undefined);
    if (error instanceof IngestLimitError || error instanceof ParseAborted) throw error;
    // Anything else is the inflater's: the data is corrupt or cut short past this point.
    broken = true;
  }
  await feeding;
  const result: Inflated = { bytes, exceeded, head: head.subarray(0, headLength), broken };
  if (keep && !exceeded) result.output = concat(chunks, bytes);
  return result;
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
