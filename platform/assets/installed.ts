import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { AssetName, StaticAssets } from './port.js';

/** Where each asset lives in the installed packages (resolved by Node, so hoisting does not matter). */
const PACKAGE_PATHS: Record<AssetName, string> = {
  'api-reference.js': '@scalar/api-reference/browser/standalone.js',
};

/**
 * The assets from node_modules (npm start, tests). Read once and kept: the renderer is 3.5 MB and
 * does not change while the process runs.
 */
export function installedStaticAssets(): StaticAssets {
  const require = createRequire(import.meta.url);
  const cache = new Map<AssetName, Promise<Uint8Array | null>>();
  return {
    read(name) {
      let bytes = cache.get(name);
      if (!bytes) {
        bytes = readFile(require.resolve(PACKAGE_PATHS[name])).then(
          (b) => new Uint8Array(b),
          () => null,
        );
        cache.set(name, bytes);
      }
      return bytes;
    },
  };
}
