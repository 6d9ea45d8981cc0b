import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../platform/db/port.js';
import { createHarness, type Harness } from '../support/harness.js';
import { onPostgresTier } from './tier-switch.js';
import { vectorFreeStatements } from './schema-without-vectors.js';

/** The vector store: the tables the tier leaves out whole, and the optional columns it drops. */
const VECTOR_TABLES = ['entity_centroids', 'knowledge_node_vectors', 'utterance_vectors'];
const VECTOR_COLUMNS = ['memory_evidence.embedding', 'themes.embedding', 'utterances.embedding'];

describe('the schema the PostgreSQL tier applies (pgvector is not packaged for PostgreSQL 15 here)', () => {
  const { statements, leftOut } = vectorFreeStatements();

  it('leaves out exactly the vector store: its tables, the optional vector columns and what reads them', () => {
    expect(statements.filter((text) => /\bvector\(\d+\)/.test(text))).toEqual([]);
    expect(statements.filter((text) => /CREATE EXTENSION[^;]*\bvector\b/i.test(text))).toEqual([]);
    expect(leftOut.filter((what) => what.startsWith('table ')).sort()).toEqual(VECTOR_TABLES.map((t) => `table ${t}`));
    expect(leftOut.filter((what) => what.startsWith('column ')).sort()).toEqual(
      VECTOR_COLUMNS.map((c) => `column ${c}`),
    );
    // Everything else is kept: every other table is created, pg_trgm included.
    expect(statements.some((text) => /CREATE EXTENSION IF NOT EXISTS pg_trgm/.test(text))).toBe(true);
    for (const table of ['runs', 'connections', 'oauth_refresh_tokens', 'usage_counters', 'routine_fires'])
      expect(statements.some((text) => text.startsWith(`CREATE TABLE "${table}"`))).toBe(true);
  });

  it('keeps a table whose vector column it drops well formed (no dangling comma) and rebuilds a dropped index anew', () => {
    const themes = statements.find((text) => text.startsWith('CREATE TABLE "themes"')) ?? '';
    expect(themes).not.toMatch(/embedding/);
    expect(themes).toMatch(/"created_at" timestamp with time zone DEFAULT now\(\) NOT NULL\n\);$/);
    const rebuilt = statements.filter((text) => text.startsWith('CREATE INDEX "utterances_external_vectors_idx"'));
    expect(rebuilt).toHaveLength(1);
    expect(rebuilt[0]).not.toMatch(/embedding/);
  });
});

describe.skipIf(!onPostgresTier())('the PostgreSQL tier itself', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('runs on PostgreSQL 15 through the Neon driver, in a database of its own, without the vector store', {
    tags: ['postgres'],
  }, async () => {
    expect(h.database.driver).toBe('neon');
    const [server] = await queryRows<{ version: number; database: string }>(
      h.database.db,
      sql`select current_setting('server_version_num')::int as version, current_database() as database`,
    );
    expect(Math.floor((server?.version ?? 0) / 10_000)).toBe(15);
    expect(server?.database).toMatch(/^cip_t_/);
    const missing = await queryRows<{ name: string }>(
      h.database.db,
      sql`select name from unnest(${`{${VECTOR_TABLES.join(',')}}`}::text[]) name where to_regclass(name) is null`,
    );
    expect(missing.map((row) => row.name).sort()).toEqual(VECTOR_TABLES);
  });

  it('holds several connections at once: a row locked in one transaction is busy for another', {
    tags: ['race'],
  }, async () => {
    const db = h.database.db;
    await db.execute(sql`create table tier_probe (id int primary key)`);
    await db.execute(sql`insert into tier_probe values (1)`);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holder = db.transaction(async (tx) => {
      await tx.execute(sql`select id from tier_probe where id = 1 for update`);
      locked();
      await held;
    });
    await isLocked;
    // Another connection of the pool, while the first holds the lock: NOWAIT fails at once (55P03).
    const other = db.transaction((tx) => tx.execute(sql`select id from tier_probe where id = 1 for update nowait`));
    await expect(other).rejects.toMatchObject({ cause: { code: '55P03' } });
    const [sessions] = await queryRows<{ n: number }>(
      db,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database()`,
    );
    expect(sessions?.n).toBeGreaterThanOrEqual(2);
    release();
    await holder;
  });
});
