import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrateDatabase } from '../platform/db/migrate.js';
import { openPglite } from '../platform/db/pglite.js';
import { createWorkspaceWithId } from '../functions/identity/members.js';
import { loadDemoCorpus } from '../functions/embedded/demo/load-corpus.js';
import { CORPUS_NOW, CORPUS_WORKSPACE_ID, CORPUS_WORKSPACE_NAME } from './support/corpus-fixture.js';

declare module 'vitest' {
  export interface ProvidedContext {
    templatePath: string;
    corpusTemplatePath: string;
  }
}

/**
 * Migrate one in-memory database once per test run and dump it; every test file loads that dump
 * (about 1 s) instead of creating and migrating its own (about 5 s).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const handle = await openPglite();
  await migrateDatabase(handle);
  const dump = await handle.client.dumpDataDir('none');
  await handle.close();
  const path = join(tmpdir(), `cip-test-template-${process.pid}.tar`);
  writeFileSync(path, Buffer.from(await dump.arrayBuffer()));
  project.provide('templatePath', path);

  // A second template: the same database plus the demo corpus in one workspace, for search tests.
  const corpus = await openPglite({ loadDataDir: new Blob([Buffer.from(await dump.arrayBuffer())]) });
  await createWorkspaceWithId(corpus.db, { id: CORPUS_WORKSPACE_ID, name: CORPUS_WORKSPACE_NAME });
  await loadDemoCorpus(corpus.db, CORPUS_WORKSPACE_ID, { scale: 1, now: CORPUS_NOW });
  const corpusDump = await corpus.client.dumpDataDir('none');
  await corpus.close();
  const corpusPath = join(tmpdir(), `cip-test-corpus-template-${process.pid}.tar`);
  writeFileSync(corpusPath, Buffer.from(await corpusDump.arrayBuffer()));
  project.provide('corpusTemplatePath', corpusPath);

  return () => {
    rmSync(path, { force: true });
    rmSync(corpusPath, { force: true });
  };
}
