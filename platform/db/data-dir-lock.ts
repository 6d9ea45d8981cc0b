import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * PGlite lets two processes open one data folder at once, silently corrupting it. One process per
 * DATA_DIR is enforced here with an exclusive lock file holding the owner's pid; a lock left by a
 * dead process is taken over.
 */
/** The lock purpose the server (`npm start`) takes; the admin CLI recognises a running server by it. */
export const SERVER_LOCK_PURPOSE = 'npm start';

export interface DataDirLock {
  path: string;
  release(): void;
}

interface LockOwner {
  pid: number;
  purpose: string;
  since: string;
}

export class DataDirInUseError extends Error {
  override name = 'DataDirInUseError';
  constructor(
    readonly dataDir: string,
    readonly owner: LockOwner,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by process ${owner.pid} (${owner.purpose}, since ${owner.since}). ` +
        'Stop that process first, or point DATA_DIR at another folder.',
    );
  }
}

export function acquireDataDirLock(dataDir: string, purpose: string): DataDirLock {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, '.cip.lock');
  const me: LockOwner = { pid: process.pid, purpose, since: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      let released = false;
      return {
        path,
        release() {
          if (released) return;
          released = true;
          try {
            const owner = readOwner(path);
            if (owner?.pid === process.pid) unlinkSync(path);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const owner = readOwner(path);
      if (owner && owner.pid !== process.pid && isAlive(owner.pid)) throw new DataDirInUseError(dataDir, owner);
      // Stale lock from a process that died without cleaning up: take it over.
      unlinkSync(path);
    }
  }
  throw new Error(`could not lock ${path}`);
}

/** Who holds the lock right now, if a live process does. */
export function dataDirOwner(dataDir: string): LockOwner | null {
  const owner = readOwner(join(resolve(dataDir), '.cip.lock'));
  return owner && isAlive(owner.pid) ? owner : null;
}

function readOwner(path: string): LockOwner | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockOwner>;
    return typeof parsed.pid === 'number'
      ? { pid: parsed.pid, purpose: String(parsed.purpose ?? 'unknown'), since: String(parsed.since ?? '') }
      : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
