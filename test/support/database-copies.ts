import { accessSync, constants, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite, type PgliteHandle } from '../../platform/db/pglite.js';

/**
 * Where a test run keeps its template data directories and the copies each test file opens: a RAM
 * disk where the system has one (Linux's /dev/shm), so PGlite's reads and writes of a copy never
 * wait on a disk; the system's temporary folder otherwise.
 */
export function scratchBase(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/**
 * A fresh database for one test file: a copy of a template data directory, opened in place and
 * removed when it is closed. Copying the folder and opening it costs about a third of the CPU of
 * loading the same database from a dump into memory (the untar into PGlite's in-memory file system
 * dominates that), which every file of the suite pays once.
 */
export async function openDatabaseCopy(
  templateDir: string,
  copiesDir: string,
  options: { onQuery?: (sql: string) => void } = {},
): Promise<PgliteHandle> {
  const dir = mkdtempSync(join(copiesDir, 'db-'));
  cpSync(templateDir, dir, { recursive: true });
  const handle = await openPglite({ dataDir: dir, ...options }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    ...handle,
    async close() {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
