import type { FileStore } from './port.js';

/** Files in this process's memory: tests, and a Worker deployed without a bucket (lost on restart). */
export class MemoryFileStore implements FileStore {
  readonly kind = 'memory' as const;
  readonly #files = new Map<string, Uint8Array>();

  async put(key: string, bytes: Uint8Array): Promise<void> {
    this.#files.set(key, bytes);
  }

  async putStream(key: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
    const parts: Uint8Array[] = [];
    let length = 0;
    for await (const chunk of chunks) {
      parts.push(chunk.slice());
      length += chunk.length;
    }
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.length;
    }
    this.#files.set(key, bytes);
  }

  async get(key: string): Promise<Uint8Array | null> {
    // A copy: the caller owns what it gets and may detach it, and the store keeps its own.
    return this.#files.get(key)?.slice() ?? null;
  }

  async delete(key: string): Promise<void> {
    this.#files.delete(key);
  }

  /** How many files are held (tests check a refused upload left nothing behind). */
  get size(): number {
    return this.#files.size;
  }
}
