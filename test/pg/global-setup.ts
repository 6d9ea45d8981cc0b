import type { TestProject } from 'vitest/node';
import {
  createDatabase,
  dropAbandonedDatabases,
  dropDatabase,
  newDatabaseName,
  postgresTierUrl,
  withClient,
} from './postgres.js';
import { vectorFreeStatements } from './schema-without-vectors.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated template database each test file copies (test/pg/postgres.ts). */
    postgresTemplate: string;
  }
}

/**
 * Migrate one template database for the run (without the vector store: schema-without-vectors.ts)
 * and drop it at the end; each test file copies it with CREATE DATABASE … TEMPLATE.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const template = newDatabaseName('tpl');
  try {
    await createDatabase(template);
  } catch (error) {
    const where = postgresTierUrl();
    where.password = '***';
    throw new Error(`the PostgreSQL tier cannot create a database at ${where}: ${String(error)}`);
  }
  // No tier run lasts hours: older databases of the tier were left by a run that was killed.
  const abandoned = await dropAbandonedDatabases(3 * 3600_000);
  if (abandoned.length > 0) process.stderr.write(`pg tier: dropped abandoned databases ${abandoned.join(', ')}\n`);
  const { statements, leftOut } = vectorFreeStatements();
  try {
    await withClient(template, async (client) => {
      for (const statement of statements) await client.query(statement);
    });
  } catch (error) {
    await dropDatabase(template);
    throw error;
  }
  process.stderr.write(
    `pg tier: template ${template} migrated in ${Math.round(performance.now() - started)} ms; ` +
      `left out for want of pgvector: ${leftOut.filter((what) => !what.startsWith('statement')).join(', ')}\n`,
  );
  project.provide('postgresTemplate', template);
  return () => dropDatabase(template);
}
