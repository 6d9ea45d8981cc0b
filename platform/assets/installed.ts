import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { AssetName, StaticAssets } from './port.js';

/** Where each package asset lives in the installed packages (resolved by Node, so hoisting does not matter). */
const PACKAGE_PATHS: Record<'api-reference.js', string> = {
  'api-reference.js': '@scalar/api-reference/browser/standalone.js',
};

/** The repository's docs folder, which `npm start` runs beside. */
const DOCS_DIR = new URL('../../docs/', import.meta.url);

/** The file an asset is read from: a package's file, or a page under docs/ (callers name only known pages). */
function assetPath(name: AssetName, resolve: (id: string) => string): string {
  return name === 'api-reference.js' ? resolve(PACKAGE_PATHS[name]) : fileURLToPath(new URL(name, DOCS_DIR));
}

/**
 * The assets from node_modules and the repository's docs (npm start, tests). Read once and kept: the
 * renderer is 3.5 MB, and neither changes while the process runs.
 */
export function installedStaticAssets(): StaticAssets {
  const require = createRequire(import.meta.url);
  const cache = new Map<AssetName, Promise<Uint8Array | null>>();
  return {
    read(name) {
      let bytes = cache.get(name);
      if (!bytes) {
        bytes = readFile(assetPath(name, (id) => require.resolve(id))).then(
          (b) => new Uint8Array(b),
          () => null,
        );
        cache.set(name, bytes);
      }
      return bytes;
    },
  };
}
