/**
 * Files the service serves as they are, read from what is installed beside it: the API reference's
 * renderer (Scalar's standalone browser bundle), served by this service so the reference works
 * offline and under a `script-src` that names no CDN, and the guides (docs/guides/*.md) the reference
 * and the console link. Adapters: the installed package and the repository's docs on Node
 * (installed.ts); none on a Worker, whose bundle carries neither (the reference then falls back to the
 * server-rendered page, and a guide names its place in the repository instead).
 */
export type AssetName = 'api-reference.js' | `guides/${string}.md`;

export interface StaticAssets {
  /** The file's bytes, or null when this runtime has no copy of it. */
  read(name: AssetName): Promise<Uint8Array | null>;
}

/** A runtime without the files (a Worker, a test that wants the fallback). */
export const noStaticAssets: StaticAssets = { read: () => Promise.resolve(null) };
