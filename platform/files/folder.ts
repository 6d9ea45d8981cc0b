import { mkdir, open, readFile, rm, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { FileStore } from './port.js';

const SAFE_KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

/**
 * Files in a folder (the embedded default: `<DATA_DIR>/files`). A key is `<workspace>/<file>`, both
 * uuids, so it maps to a path inside the folder and nothing else; a file is written under a temporary
 * name and renamed, so a crash never leaves half a file under its key.
 */
export class FolderFileStore implements FileStore {
  readonly kind = 'folder' as const;
  readonly #root: string;

  constructor(root: string) {
    this.#root = resolve(root);
  }

  #path(key: string): string {
    if (!SAFE_KEY.test(key)) throw new Error(`not a file store key: ${key}`);
    return join(this.#root, key);
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.partial`;
    await writeFile(partial, bytes);
    await rename(partial, path);
  }

  async putStream(key: string, chunks: AsyncIterable<Uint8Array>): Promise<void> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.partial`;
    const handle = await open(partial, 'w');
    try {
      for await (const chunk of chunks) await handle.write(chunk);
      await handle.close();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(partial, { force: true });
      throw error;
    }
    await rename(partial, path);
  }

  async get(key: string): Promise<Uint8Array | null> {
    try {
      // A view of the buffer read, not a copy: a copy doubled a 50 MB file in memory. A plain
      // Uint8Array (not a Buffer) over exactly the bytes read, as pdf.js wants its data.
      const read = await readFile(this.#path(key));
      return new Uint8Array(read.buffer, read.byteOffset, read.byteLength);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.#path(key), { force: true });
  }
}
