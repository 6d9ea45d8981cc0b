import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { queryRows } from '../../platform/db/port.js';
import { openPglite } from '../../platform/db/pglite.js';
import { DATABASE_FOLDER, pgliteDataDir } from '../../platform/db/pglite-data-dir.js';

/**
 * PGlite's data lives in DATA_DIR/db, so the server's own files beside it (secrets.json, uploads) are
 * outside anything the database can read, even as its superuser; a DATA_DIR of the old layout (the
 * database at its top) is moved in without losing a row.
 */
const made: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'cip-data-dir-'));
  made.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SECRET = '{"oauth_signing_secret":"not-for-sql"}';
/**
 * Put a database in `dir`: a copy of the run's migrated template (test/global-setup.ts), which is
 * what PGlite's initdb would write there plus the migrations, without an initdb's seconds of CPU.
 */
const databaseIn = (dir: string) => cpSync(inject('templateDir'), dir, { recursive: true });
/** What `pg_read_file` answers for each path (null: refused or missing), with one open of the database. */
const readAttempts = async (dataDir: string, paths: readonly string[]) => {
  const handle = await openPglite({ dataDir });
  try {
    const answers: (string | null)[] = [];
    for (const path of paths)
      answers.push(
        await queryRows<{ f: string }>(handle.db, sql`select pg_read_file(${path}) as f`).then(
          ([row]) => row?.f ?? null,
          () => null,
        ),
      );
    return answers;
  } finally {
    await handle.close();
  }
};

describe('the PGlite data folder', () => {
  it('keeps secrets.json and uploads out of reach of SQL, even the superuser’s', { timeout: 120_000 }, async () => {
    const root = tempDir();
    writeFileSync(join(root, 'secrets.json'), SECRET);
    const dir = pgliteDataDir(root);
    expect(dir).toBe(join(root, DATABASE_FOLDER));
    databaseIn(dir);
    expect(await readAttempts(dir, ['secrets.json', '../secrets.json', join(root, 'secrets.json')])).toEqual([
      null,
      null,
      null,
    ]);
    // The same read reaches the file when the database is opened on DATA_DIR itself (the old layout).
    databaseIn(root);
    expect(await readAttempts(root, ['secrets.json'])).toEqual([SECRET]);
  });

  it('moves a DATA_DIR of the old layout into db/, keeping its rows and the server’s files', {
    timeout: 120_000,
  }, async () => {
    const root = tempDir();
    databaseIn(root);
    const old = await openPglite({ dataDir: root });
    await old.db.execute(sql`create table kept (v text)`);
    await old.db.execute(sql`insert into kept values ('still here')`);
    await old.close();
    writeFileSync(join(root, 'secrets.json'), SECRET);
    mkdirSync(join(root, 'files'));
    writeFileSync(join(root, 'files', 'upload.txt'), 'bytes');

    const dir = pgliteDataDir(root);
    expect(existsSync(join(root, 'PG_VERSION'))).toBe(false);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    expect(readFileSync(join(root, 'secrets.json'), 'utf8')).toBe(SECRET);
    expect(readFileSync(join(root, 'files', 'upload.txt'), 'utf8')).toBe('bytes');
    const reopened = await openPglite({ dataDir: dir });
    try {
      expect(await queryRows(reopened.db, sql`select v from kept`)).toEqual([{ v: 'still here' }]);
    } finally {
      await reopened.close();
    }
    // A second start finds the new layout and moves nothing.
    expect(pgliteDataDir(root)).toBe(dir);
  });
});
