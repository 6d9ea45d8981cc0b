import type { FileStore } from './port.js';

/** The part of Cloudflare's R2 bucket binding the store uses (declared here: no workers-types import). */
export interface R2BucketBinding {
  put(key: string, value: Uint8Array, options?: { httpMetadata?: { contentType?: string } }): Promise<unknown>;
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
  delete(key: string): Promise<void>;
  createMultipartUpload(key: string): Promise<R2MultipartUploadBinding>;
}

export interface R2MultipartUploadBinding {
  uploadPart(partNumber: number, value: Uint8Array): Promise<{ partNumber: number; etag: string }>;
  complete(parts: { partNumber: number; etag: string }[]): Promise<unknown>;
  abort(): Promise<void>;
}

/**
 * Bytes per part of a streamed upload. R2's `put` takes a ReadableStream only of a known length (a
 * request body or a FixedLengthStream: "Provided readable stream must have a known length"), and a
 * multipart part's length is known only once it has all arrived; so a stream goes up as a multipart
 * upload of parts of this fixed size (R2 wants every part but the last at least 5 MiB and of one
 * size), one part in memory at a time. A file smaller than one part is a single put.
 */
export const R2_PART_BYTES = 8 * 1024 * 1024;

/** Files in an R2 bucket (production on Workers: the `FILES` binding in wrangler.toml). */
export class R2FileStore implements FileStore {
  readonly kind = 'r2' as const;

  constructor(private readonly bucket: R2BucketBinding) {}

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.bucket.put(key, bytes, { httpMetadata: { contentType } });
  }

  async putStream(key: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
    let part = new Uint8Array(R2_PART_BYTES);
    let filled = 0;
    let upload: R2MultipartUploadBinding | null = null;
    const done: { partNumber: number; etag: string }[] = [];
    try {
      for await (const chunk of chunks) {
        let at = 0;
        while (at < chunk.length) {
          const take = Math.min(chunk.length - at, R2_PART_BYTES - filled);
          part.set(chunk.subarray(at, at + take), filled);
          filled += take;
          at += take;
          if (filled === R2_PART_BYTES) {
            upload ??= await this.bucket.createMultipartUpload(key);
            done.push(await upload.uploadPart(done.length + 1, part));
            part = new Uint8Array(R2_PART_BYTES);
            filled = 0;
          }
        }
      }
      if (!upload) {
        await this.bucket.put(key, part.subarray(0, filled));
        return;
      }
      if (filled > 0) done.push(await upload.uploadPart(done.length + 1, part.subarray(0, filled)));
      await upload.complete(done);
    } catch (error) {
      await upload?.abort().catch(() => undefined);
      throw error;
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    const object = await this.bucket.get(key);
    return object ? new Uint8Array(await object.arrayBuffer()) : null;
  }

  async delete(key: string): Promise<void> {
    await this.bucket.delete(key);
  }
}
