import WebSocket from 'ws';
import type { AppConfig } from '../../platform/config.js';
import { acquireDataDirLock, type DataDirLock } from '../../platform/db/data-dir-lock.js';
import { migrateDatabase } from '../../platform/db/migrate.js';
import { openConfiguredNeon, type NeonHandle } from '../../platform/db/neon.js';
import { openPglite, type PgliteHandle } from '../../platform/db/pglite.js';
import { pgliteDataDir } from '../../platform/db/pglite-data-dir.js';
import { ensureVectorIndexes } from '../../platform/db/vector-indexes.js';

export interface NodeDatabase {
  handle: PgliteHandle | NeonHandle;
  /** Where the data lives, for messages. */
  location: string;
  close(): Promise<void>;
}

/**
 * Open the database a Node process works on: Neon when DATABASE_URL is set, else PGlite in DATA_DIR/db
 * under an exclusive lock (one process per folder). Migrations are applied before anything else,
 * then any vector index a store has grown into (a connector sync can take a workspace past the
 * threshold; the corpus loader builds its own after a load): a no-op below it or once built.
 */
export async function openNodeDatabase(config: AppConfig, purpose: string): Promise<NodeDatabase> {
  if (config.DATABASE_URL) {
    // The same options as the worker's (NEON_WS_PROXY included), plus `ws`: Node 20 has no global WebSocket.
    const handle = openConfiguredNeon(
      { ...config, DATABASE_URL: config.DATABASE_URL },
      { webSocketConstructor: WebSocket },
    );
    await migrateDatabase(handle);
    await ensureVectorIndexes(handle.db);
    return { handle, location: redactUrl(config.DATABASE_URL), close: () => handle.close() };
  }
  const lock: DataDirLock = acquireDataDirLock(config.DATA_DIR, purpose);
  try {
    const handle = await openPglite({ dataDir: pgliteDataDir(config.DATA_DIR) });
    await migrateDatabase(handle);
    await ensureVectorIndexes(handle.db);
    return {
      handle,
      location: config.DATA_DIR,
      close: async () => {
        try {
          await handle.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}

function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+)(:[^@/]*)?@/, '//$1:[MASKED]@');
}

/**
 * Caller SQL's own login where one is configured (SQL_QUERY_DATABASE_URL: the least-privilege role on a
 * managed PostgreSQL), opened per query and closed after it.
 */
export function sqlQueryConnectionOf(config: AppConfig): (() => NeonHandle) | undefined {
  const url = config.SQL_QUERY_DATABASE_URL;
  if (!url) return undefined;
  return () => openConfiguredNeon({ ...config, DATABASE_URL: url }, { webSocketConstructor: WebSocket });
}
