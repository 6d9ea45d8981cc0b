/** The most bytes a request body may have anywhere a handler reads it whole (1 MiB). */
export const MAX_BODY_BYTES = 1_048_576;

/**
 * A request's body, read as it arrives and given up the moment it passes `maxBytes` (then undefined), so
 * a body past the limit is never held whole; one that declares a Content-Length past it is refused unread.
 */
export async function readBytesWithin(
  request: Request,
  maxBytes: number = MAX_BODY_BYTES,
): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get('content-length') ?? '0') > maxBytes) return undefined;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      // Not awaited: on one branch of a cloned (teed) body, cancel settles only once the other branch is
      // cancelled too, which the request's own reader may never do.
      reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(read.value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** The body as UTF-8 text within the same limit (readBytesWithin); the limit counts bytes, not UTF-16 units. */
export async function readTextWithin(request: Request, maxBytes: number = MAX_BODY_BYTES): Promise<string | undefined> {
  const bytes = await readBytesWithin(request, maxBytes);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
}
