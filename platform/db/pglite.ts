import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { drizzle } from 'drizzle-orm/pglite';
import * as schema from '../../schema/index.js';
import type { Database, DatabaseHandle } from './port.js';

export interface PgliteHandle extends DatabaseHandle {
  readonly driver: 'pglite';
  readonly client: PGlite;
}

export interface PgliteOptions {
  /** A data folder; omitted means in memory. */
  dataDir?: string;
  /** Start from a dumped data directory (the migrated test template). */
  loadDataDir?: Blob | File;
  /** Called with every statement drizzle sends (benchmarks count statements at the port). */
  onQuery?: (sql: string) => void;
}

export async function openPglite(options: PgliteOptions = {}): Promise<PgliteHandle> {
  const client = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    extensions: { vector, pg_trgm },
  });
  return wrapPglite(client, options.onQuery);
}

export function wrapPglite(client: PGlite, onQuery?: (sql: string) => void): PgliteHandle {
  const db = drizzle({ client, schema, ...(onQuery ? { logger: { logQuery: (query: string) => onQuery(query) } } : {}) }) as unknown as Database;
  return {
    db,
    client,
    driver: 'pglite',
    async close() {
      if (!client.closed) await client.close();
    },
  };
}
