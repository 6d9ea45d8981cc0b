import type { FileStore } from './port.js';

/** The part of Cloudflare's R2 bucket binding the store uses (declared here: no workers-types import). */
export interface R2BucketBinding {
  put(key: string, value: Uint8Array, options?: { httpMetadata?: { contentType?: string } }): Promise<unknown>;
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
  delete(key: string): Promise<void>;
}

/** Files in an R2 bucket (production on Workers: the `FILES` binding in wrangler.toml). */
export class R2FileStore implements FileStore {
  readonly kind = 'r2' as const;

  constructor(private readonly bucket: R2BucketBinding) {}

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.bucket.put(key, bytes, { httpMetadata: { contentType } });
  }

  async get(key: string): Promise<Uint8Array | null> {
    const object = await this.bucket.get(key);
    return object ? new Uint8Array(await object.arrayBuffer()) : null;
  }

  async delete(key: string): Promise<void> {
    await this.bucket.delete(key);
  }
}
