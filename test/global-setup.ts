import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { createWorkspaceWithId } from '../functions/identity/members.js';
import { loadDemoCorpus } from '../functions/embedded/demo/load-corpus.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID, CORPUS_WORKSPACE_NAME } from './support/corpus-fixture.js';
import { scratchBase } from './support/database-copies.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A database as PGlite's initdb leaves it, before any migration. */
    emptyTemplateDir: string;
    /** The migrated database's data directory, which each test file copies. */
    templateDir: string;
    /** The same plus the demo corpus in workspace CORPUS_WORKSPACE_ID. */
    corpusTemplateDir: string;
    /** Where the test files' copies live while open (removed with the run). */
    databaseCopiesDir: string;
  }
}

/**
 * Create and migrate one database once per test run in a data directory; every test file opens a
 * copy of that directory (about a second) instead of creating and migrating its own (about 5 s).
 * The database as initdb left it is kept for the tests of migrations and drivers, and a third
 * template adds the demo corpus, for search and answer tests.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const root = mkdtempSync(join(scratchBase(), 'cip-test-'));
  const emptyTemplateDir = join(root, 'empty-template');
  await (await openPglite({ dataDir: emptyTemplateDir })).close();

  const templateDir = join(root, 'template');
  cpSync(emptyTemplateDir, templateDir, { recursive: true });
  const handle = await openPglite({ dataDir: templateDir });
  await migrateDatabase(handle);
  await handle.close();

  const corpusTemplateDir = join(root, 'corpus-template');
  cpSync(templateDir, corpusTemplateDir, { recursive: true });
  const corpus = await openPglite({ dataDir: corpusTemplateDir });
  await createWorkspaceWithId(corpus.db, { id: CORPUS_WORKSPACE_ID, name: CORPUS_WORKSPACE_NAME });
  await loadDemoCorpus(corpus.db, CORPUS_WORKSPACE_ID, { scale: 1, now: CORPUS_NOW });
  await corpus.close();

  const databaseCopiesDir = join(root, 'copies');
  mkdirSync(databaseCopiesDir);
  project.provide('emptyTemplateDir', emptyTemplateDir);
  project.provide('templateDir', templateDir);
  project.provide('corpusTemplateDir', corpusTemplateDir);
  project.provide('databaseCopiesDir', databaseCopiesDir);
  return () => rmSync(root, { recursive: true, force: true });
}
