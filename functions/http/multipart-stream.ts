/**
 * A multipart/form-data body read as it arrives, one part at a time, a part's body as a stream of
 * chunks: nothing of a part is held beyond the chunk in hand and a delimiter's length of tail (a
 * file goes to the file store as it arrives, functions/http/multipart-upload.ts). RFC 7578 framing:
 * parts are separated by CRLF "--boundary", the last followed by "--"; each part's headers end at an
 * empty line. Errors are MultipartFormError (the caller answers 400).
 */

export class MultipartFormError extends Error {}

export interface PartHead {
  /** The form field's name (Content-Disposition name). */
  name: string;
  /** The file name when the part is a file (Content-Disposition filename), else null. */
  filename: string | null;
}

const CRLF = new Uint8Array([13, 10]);
const HEADER_END = new Uint8Array([13, 10, 13, 10]);
const MAX_HEADER_BYTES = 16 * 1024;
const MAX_PREAMBLE_BYTES = 64 * 1024;

export class MultipartStreamReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #delimiter: Uint8Array;
  /** Bytes read from the stream and not yet consumed. */
  #buffer: Uint8Array;
  #done = false;
  /** A part's body is being (or still to be) read: nextPart() skips what is left of it first. */
  #inBody = false;
  #started = false;
  #finished = false;

  constructor(stream: ReadableStream<Uint8Array>, boundary: string) {
    this.#reader = stream.getReader();
    this.#delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
    // The body starts with "--boundary" (no CRLF before it): a CRLF in front makes every delimiter alike.
    this.#buffer = CRLF.slice();
  }

  /** The next part's head, or null after the closing delimiter. Skips the rest of the current part. */
  async nextPart(): Promise<PartHead | null> {
    if (this.#finished) return null;
    if (this.#inBody) for await (const _ of this.body()) void _;
    if (!this.#started) {
      await this.#skipPreamble();
      this.#started = true;
    }
    // The buffer starts with a delimiter; after it, "--" ends the body and CRLF starts a part.
    await this.#fill(this.#delimiter.length + 2);
    if (!startsWith(this.#buffer, this.#delimiter))
      throw new MultipartFormError('a part does not start with the boundary');
    const after = this.#buffer.subarray(this.#delimiter.length, this.#delimiter.length + 2);
    if (after[0] === 45 && after[1] === 45) {
      this.#finished = true;
      await this.#reader.cancel().catch(() => undefined);
      return null;
    }
    if (after[0] !== 13 || after[1] !== 10) throw new MultipartFormError('a boundary is not followed by a line end');
    this.#buffer = this.#buffer.subarray(this.#delimiter.length + 2);
    let end = indexOf(this.#buffer, HEADER_END, 0);
    while (end < 0) {
      if (this.#buffer.length > MAX_HEADER_BYTES) throw new MultipartFormError('the part headers are too long');
      if (!(await this.#read())) throw new MultipartFormError('the body ended inside part headers');
      end = indexOf(this.#buffer, HEADER_END, 0);
    }
    const head = parseHead(new TextDecoder().decode(this.#buffer.subarray(0, end)));
    this.#buffer = this.#buffer.subarray(end + HEADER_END.length);
    this.#inBody = true;
    return head;
  }

  /** The current part's body, chunk by chunk, up to (not including) the next delimiter. */
  async *body(): AsyncGenerator<Uint8Array> {
    if (!this.#inBody) return;
    for (;;) {
      const at = indexOf(this.#buffer, this.#delimiter, 0);
      if (at >= 0) {
        const chunk = this.#buffer.subarray(0, at);
        this.#buffer = this.#buffer.subarray(at);
        this.#inBody = false;
        if (chunk.length > 0) yield chunk;
        return;
      }
      // Keep a delimiter's length less one: the start of a delimiter cut between two reads.
      const safe = this.#buffer.length - (this.#delimiter.length - 1);
      if (safe > 0) {
        const chunk = this.#buffer.subarray(0, safe);
        this.#buffer = this.#buffer.subarray(safe);
        yield chunk;
      }
      // The next chunk is not joined to the tail kept above (that join copied every chunk of a file:
      // garbage as large as the upload, which the collector takes back late). Only the bytes where a
      // delimiter could straddle the two are joined and searched; the chunk itself passes on as it came.
      const next = await this.#next();
      if (!next) throw new MultipartFormError('the body ended inside a part');
      const tail = this.#buffer;
      const reach = this.#delimiter.length - 1;
      if (next.length < reach || indexOf(concat(tail, next.subarray(0, reach)), this.#delimiter, 0) >= 0) {
        // A delimiter starts in the tail (or the chunk is too short to tell): join them, rarely.
        this.#buffer = concat(tail, next);
        continue;
      }
      if (tail.length > 0) yield tail;
      this.#buffer = next;
    }
  }

  /** The next non-empty chunk of the stream as it came, or null at its end. */
  async #next(): Promise<Uint8Array | null> {
    while (!this.#done) {
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else if (value.length > 0) return value;
    }
    return null;
  }

  /** Stop reading (the request is refused): the rest of the body is not read. */
  async cancel(): Promise<void> {
    this.#finished = true;
    await this.#reader.cancel().catch(() => undefined);
  }

  async #skipPreamble(): Promise<void> {
    for (;;) {
      const at = indexOf(this.#buffer, this.#delimiter, 0);
      if (at >= 0) {
        this.#buffer = this.#buffer.subarray(at);
        return;
      }
      if (this.#buffer.length > MAX_PREAMBLE_BYTES) throw new MultipartFormError('no boundary found');
      if (!(await this.#read())) throw new MultipartFormError('no boundary found');
    }
  }

  async #fill(length: number): Promise<void> {
    while (this.#buffer.length < length)
      if (!(await this.#read())) throw new MultipartFormError('the body ended before its closing boundary');
  }

  /** One more chunk appended to the buffer; false at the end of the stream. */
  async #read(): Promise<boolean> {
    if (this.#done) return false;
    const { value, done } = await this.#reader.read();
    if (done) {
      this.#done = true;
      return false;
    }
    if (value.length > 0) this.#buffer = concat(this.#buffer, value);
    return true;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

function parseHead(text: string): PartHead {
  const disposition = text
    .split('\r\n')
    .find((line) => /^content-disposition\s*:/i.test(line))
    ?.replace(/^content-disposition\s*:\s*/i, '');
  if (!disposition || !/^form-data\b/i.test(disposition))
    throw new MultipartFormError('a part has no Content-Disposition: form-data header');
  const param = (key: string): string | null => {
    const match = new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition);
    if (match) return (match[1] ?? '').replace(/\\(.)/g, '$1');
    const bare = new RegExp(`;\\s*${key}=([^;\\s]+)`, 'i').exec(disposition);
    return bare ? (bare[1] ?? '') : null;
  };
  const name = param('name');
  if (name === null) throw new MultipartFormError('a part has no field name');
  // The HTML form encoding (and fetch's FormData) writes a quote in a name as %22.
  const filename = param('filename');
  return { name: name.replace(/%22/g, '"'), filename: filename === null ? null : filename.replace(/%22/g, '"') };
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

/** The first index of `pattern` in `bytes` at or after `from`, or -1 (scans for the first byte natively). */
function indexOf(bytes: Uint8Array, pattern: Uint8Array, from: number): number {
  const first = pattern[0] as number;
  const last = bytes.length - pattern.length;
  for (let i = bytes.indexOf(first, from); i >= 0 && i <= last; i = bytes.indexOf(first, i + 1)) {
    let j = 1;
    while (j < pattern.length && bytes[i + j] === pattern[j]) j++;
    if (j === pattern.length) return i;
  }
  return -1;
}
