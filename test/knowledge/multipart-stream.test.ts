import { describe, expect, it } from 'vitest';
import { MultipartFormError, MultipartStreamReader } from '../../functions/http/multipart-stream.js';

/**
 * The streaming multipart reader the uploads go through (functions/http/multipart-stream.ts): a body
 * encoded by the platform's own FormData, re-cut into chunks of every size (a boundary split across
 * reads included), reads back field for field and byte for byte.
 */

async function encoded(form: FormData): Promise<{ bytes: Uint8Array; boundary: string }> {
  const request = new Request('http://test/', { method: 'POST', body: form });
  const boundary = /boundary=(.+)$/.exec(request.headers.get('content-type') ?? '')?.[1];
  if (!boundary) throw new Error('no boundary');
  return { bytes: new Uint8Array(await request.arrayBuffer()), boundary };
}

function chunked(bytes: Uint8Array, sizes: readonly number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const size = sizes[i++ % sizes.length] ?? 1;
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>, boundary: string) {
  const reader = new MultipartStreamReader(stream, boundary);
  const parts: { name: string; filename: string | null; bytes: Uint8Array }[] = [];
  for (let head = await reader.nextPart(); head; head = await reader.nextPart()) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of reader.body()) chunks.push(chunk.slice());
    parts.push({ ...head, bytes: new Uint8Array(Buffer.concat(chunks)) });
  }
  return parts;
}

describe('MultipartStreamReader', () => {
  // A file holding the boundary's own prefix and CRLFs: only a whole delimiter ends a part.
  const file = new Uint8Array(70_000).map((_, i) =>
    i % 97 === 0 ? 13 : i % 89 === 0 ? 10 : i % 45 === 0 ? 45 : i % 251,
  );
  const form = new FormData();
  form.append('title', 'Quarterly plan – draft');
  form.append('file', new Blob([file]), 'plan "v2".pdf');

  it.each([[[1]], [[2, 3, 5, 7]], [[37]], [[64]], [[1000]], [[4099]], [[65_536]], [[1_000_000]]])(
    'reads fields and the file back exactly with chunks of %j bytes',
    async (sizes) => {
      const { bytes, boundary } = await encoded(form);
      const parts = await readAll(chunked(bytes, sizes), boundary);
      expect(parts.map((p) => [p.name, p.filename])).toEqual([
        ['title', null],
        ['file', 'plan "v2".pdf'],
      ]);
      expect(new TextDecoder().decode(parts[0]!.bytes)).toBe('Quarterly plan – draft');
      expect(Buffer.compare(Buffer.from(parts[1]!.bytes), Buffer.from(file))).toBe(0);
    },
  );

  it('passes a file on in the chunks it arrived in, copying only the few bytes between two chunks', async () => {
    const { bytes, boundary } = await encoded(form);
    const arrived = new Set<ArrayBufferLike>();
    const source = chunked(bytes, [8192]).pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          arrived.add(chunk.buffer);
          controller.enqueue(chunk);
        },
      }),
    );
    const reader = new MultipartStreamReader(source, boundary);
    let copied = 0;
    let total = 0;
    for (let head = await reader.nextPart(); head; head = await reader.nextPart()) {
      for await (const chunk of reader.body()) {
        total += chunk.length;
        if (head.name === 'file' && !arrived.has(chunk.buffer)) copied += chunk.length;
      }
    }
    expect(total).toBeGreaterThan(file.length);
    // What is copied: the rest of the chunk the part's headers ended in (read before the body starts)
    // and the short tails between chunks. Before: every chunk was joined to the previous tail, the
    // whole file copied.
    expect(copied).toBeLessThan(2 * 8192);
  });

  it('skips a part whose body is not read', async () => {
    const { bytes, boundary } = await encoded(form);
    const reader = new MultipartStreamReader(chunked(bytes, [333]), boundary);
    expect((await reader.nextPart())?.name).toBe('title');
    expect((await reader.nextPart())?.name).toBe('file');
    expect(await reader.nextPart()).toBeNull();
  });

  it('refuses a body that ends before its closing boundary', async () => {
    const { bytes, boundary } = await encoded(form);
    await expect(readAll(chunked(bytes.slice(0, bytes.length - 10), [4096]), boundary)).rejects.toBeInstanceOf(
      MultipartFormError,
    );
  });
});
