/**
 * Files the service serves as they are, read from what is installed beside it: the API reference's
 * renderer (Scalar's standalone browser bundle), served by this service so the reference works
 * offline and under a `script-src` that names no CDN. Adapters: the installed package on Node
 * (installed.ts); none on a Worker, whose bundle carries no node_modules (the reference then falls
 * back to the server-rendered page).
 */
export type AssetName = 'api-reference.js';

export interface StaticAssets {
  /** The file's bytes, or null when this runtime has no copy of it. */
  read(name: AssetName): Promise<Uint8Array | null>;
}

/** A runtime without the files (a Worker, a test that wants the fallback). */
export const noStaticAssets: StaticAssets = { read: () => Promise.resolve(null) };
