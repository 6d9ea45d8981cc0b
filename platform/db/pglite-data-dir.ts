import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The folder under DATA_DIR that holds the database itself. */
export const DATABASE_FOLDER = 'db';
/** Beside the database, never inside it: what the server keeps for itself (secrets, uploads, the lock). */
const SERVER_ENTRIES = new Set(['secrets.json', 'files', '.cip.lock', DATABASE_FOLDER]);
const MOVING = `${DATABASE_FOLDER}.moving`;

/**
 * Where PGlite keeps its data for a DATA_DIR: `<DATA_DIR>/db`. The database's file functions (and the
 * WebAssembly file system PGlite mounts) reach only that folder, so the server's own files beside it
 * (secrets.json, uploaded files) are out of the database's reach whatever SQL runs in it.
 *
 * A DATA_DIR from before this layout holds the database at its top (PG_VERSION there): its database
 * entries are moved into a staging folder that is renamed to `db` once complete, so a start cut short
 * resumes the move at the next one and never opens half a database.
 */
export function pgliteDataDir(dataDir: string): string {
  const root = resolve(dataDir);
  const target = join(root, DATABASE_FOLDER);
  const staging = join(root, MOVING);
  if (existsSync(join(root, 'PG_VERSION')) || existsSync(staging)) {
    mkdirSync(staging, { recursive: true });
    for (const entry of readdirSync(root))
      if (!SERVER_ENTRIES.has(entry) && entry !== MOVING) renameSync(join(root, entry), join(staging, entry));
    renameSync(staging, target);
  }
  mkdirSync(target, { recursive: true });
  return target;
}
