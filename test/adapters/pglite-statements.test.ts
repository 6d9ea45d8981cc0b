import { and, eq, sql } from 'drizzle-orm';
import { integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocol } from '@electric-sql/pglite';
import { openPglite, type PgliteHandle } from '../../platform/db/pglite.js';
import { bindText } from '../../platform/db/pglite-statements.js';
import { queryRows } from '../../platform/db/port.js';

/**
 * A query the code prepares with a name (drizzle's `.prepare(name)`) is a named statement on
 * PGlite, as on Neon's pool: parsed once, then bound and executed. It must read exactly what the
 * unnamed path reads, in and out of transactions, fail as PGlite fails, and roll back with its
 * transaction.
 */
const things = pgTable('named_things', {
  id: uuid('id').primaryKey(),
  label: text('label').notNull(),
  meta: jsonb('meta').$type<Record<string, unknown>>(),
  n: integer('n'),
  at: timestamp('at', { withTimezone: true }).notNull(),
});

let handle: PgliteHandle;
const ID = '00000000-0000-4000-8000-000000000001';
const prepared = () =>
  handle.db
    .select()
    .from(things)
    .where(and(eq(things.id, sql.placeholder('id')), eq(things.label, sql.placeholder('label'))))
    .prepare('named_thing_read');
const unnamed = (id: string, label: string) =>
  handle.db
    .select()
    .from(things)
    .where(and(eq(things.id, id), eq(things.label, label)));
const preparedStatements = async () => (await queryRows<{ statement: string }>(handle.db, sql`select statement from pg_prepared_statements`)).map((r) => r.statement);

beforeAll(async () => {
  handle = await openPglite();
  await handle.client.exec(`create table named_things (id uuid primary key, label text not null, meta jsonb, n integer, at timestamptz not null)`);
  await handle.db.insert(things).values({ id: ID, label: 'one', meta: { a: [1, 'two'], b: null }, n: null, at: new Date('2026-01-02T03:04:05Z') });
});
afterAll(() => handle.close());

describe('named statements on PGlite', () => {
  it('binds text parameters in exactly the bytes PGlite\u2019s own serializer writes', () => {
    for (const values of [[], ['optimizer', '2026-11', ID], [null, '', 'zoë – 東京 🚀', null], ['x'.repeat(5000)]]) {
      expect(bindText('named_7', values)).toEqual(protocol.serialize.bind({ statement: 'named_7', values }));
    }
  });

  it('reads exactly what the unnamed query reads, through one statement parsed once', async () => {
    const read = prepared();
    const first = await read.execute({ id: ID, label: 'one' });
    const again = await read.execute({ id: ID, label: 'one' });
    expect(first).toEqual(await unnamed(ID, 'one'));
    expect(again).toEqual(first);
    expect(first).toEqual([{ id: ID, label: 'one', meta: { a: [1, 'two'], b: null }, n: null, at: new Date('2026-01-02T03:04:05Z') }]);
    expect(await read.execute({ id: ID, label: 'other' })).toEqual([]);
    const statements = await preparedStatements();
    expect(statements.filter((s) => s.includes('"named_things"'))).toHaveLength(1);
    // A query nobody named stays unnamed.
    await unnamed(ID, 'one');
    expect((await preparedStatements()).filter((s) => s.includes('"named_things"'))).toHaveLength(1);
  });

  it('runs inside a transaction and rolls back with it', async () => {
    const bump = (db: Pick<PgliteHandle['db'], 'update'>) =>
      db
        .update(things)
        .set({ n: sql`coalesce(${things.n}, 0) + 1` })
        .where(eq(things.id, sql.placeholder('id')))
        .returning({ n: things.n })
        .prepare('named_thing_bump');
    expect(await bump(handle.db).execute({ id: ID })).toEqual([{ n: 1 }]);
    const statementsBefore = (await preparedStatements()).length;
    const queryIn = handle.statements.queryIn.bind(handle.statements);
    let inside = 0;
    handle.statements.queryIn = (...args) => {
      inside++;
      return queryIn(...args);
    };
    await expect(
      handle.db.transaction(async (tx) => {
        // The same statement, prepared on the transaction: it runs as the named one, inside it.
        expect(await bump(tx).execute({ id: ID })).toEqual([{ n: 2 }]);
        throw new Error('roll it back');
      }),
    ).rejects.toThrow('roll it back');
    expect((await unnamed(ID, 'one'))[0]?.n).toBe(1);
    expect((await preparedStatements()).length).toBe(statementsBefore);
    expect(await handle.db.transaction((tx) => bump(tx).execute({ id: ID }))).toEqual([{ n: 2 }]);
    expect((await unnamed(ID, 'one'))[0]?.n).toBe(2);
    expect(inside).toBe(2);
  });

  it('fails as PGlite fails (the error code and the query kept), and the next call works', async () => {
    const read = prepared();
    const error = await read.execute({ id: 'not-a-uuid', label: 'one' }).then(
      () => null,
      (e: unknown) => e as { code?: string; cause?: { code?: string; query?: string } },
    );
    expect(error?.cause?.code ?? error?.code).toBe('22P02');
    expect(error?.cause?.query ?? '').toContain('named_things');
    expect(await read.execute({ id: ID, label: 'one' })).toHaveLength(1);
  });

  it('is parsed again when a table changes under a statement whose result shape follows it', async () => {
    const text = 'select * from named_things where id = $1';
    handle.statements.register(text);
    const before = await handle.statements.query(text, [ID], { rowMode: 'object' });
    await handle.client.exec('alter table named_things add column extra text');
    const after = await handle.statements.query(text, [ID], { rowMode: 'object' });
    expect(Object.keys(before.rows[0] as object)).not.toContain('extra');
    expect(after.rows[0]).toMatchObject({ id: ID, extra: null });
  });
});
