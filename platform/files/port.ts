/**
 * The file store: uploaded files' bytes, by key. Keys are chosen by the service
 * (`<workspace id>/<file id>`), never by a client, so a key names one workspace's file only.
 * Adapters: R2 on Workers (r2.ts), a folder under DATA_DIR for the embedded default (folder.ts),
 * memory for tests and a Worker without a bucket (memory.ts).
 */
export interface FileStore {
  /** Which adapter this is (shown in logs and the setup status). */
  readonly kind: 'r2' | 'folder' | 'memory';
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Write a file from its chunks as they arrive (an upload streamed from the request: never whole in
   * memory, except in the memory store). If the chunks throw (the upload passed its limit, the client
   * went away), the write is abandoned, nothing is left under the key, and the error is rethrown.
   */
  putStream(key: string, chunks: AsyncIterable<Uint8Array>): Promise<void>;
  /**
   * The file's bytes, or null when there is none under this key. The caller owns what it gets (no
   * other holder shares the buffer), so it may hand the bytes to a parser that takes (detaches) them.
   */
  get(key: string): Promise<Uint8Array | null>;
  delete(key: string): Promise<void>;
}

/** The key of a workspace's file: the workspace id first, so a listing or a purge is per tenant. */
export const fileKey = (workspaceId: string, fileId: string): string => `${workspaceId}/${fileId}`;
