import { drizzle as drizzleNeon } from 'drizzle-orm/neon-serverless';
import { migrate as migrateNeon } from 'drizzle-orm/neon-serverless/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { MIGRATIONS_FOLDER } from './migrations-folder.js';
import type { NeonHandle } from './neon.js';
import type { PgliteHandle } from './pglite.js';

/**
 * Apply every pending migration of schema/migrations. Node-only (it reads the folder): the embedded
 * default runs it at start, `npm run admin -- db migrate` runs it against Neon before a deploy, and
 * the Worker never migrates.
 */
export async function migrateDatabase(handle: PgliteHandle | NeonHandle): Promise<void> {
  if (handle.driver === 'pglite') {
    await migratePglite(drizzlePglite({ client: handle.client }), { migrationsFolder: MIGRATIONS_FOLDER });
  } else {
    await migrateNeon(drizzleNeon({ client: handle.pool }), { migrationsFolder: MIGRATIONS_FOLDER });
  }
}
