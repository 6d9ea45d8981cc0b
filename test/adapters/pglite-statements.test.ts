import { and, eq, sql } from 'drizzle-orm';
import { integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocol } from '@electric-sql/pglite';
import type { PgliteHandle } from '../../platform/db/pglite.js';
import { openEmptyDatabase } from '../support/harness.js';
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
const preparedStatements = async () =>
  (await queryRows<{ statement: string }>(handle.db, sql`select statement from pg_prepared_statements`)).map(
    (r) => r.statement,
  );

beforeAll(async () => {
  handle = await openEmptyDatabase();
  await handle.client.exec(
    `create table named_things (id uuid primary key, label text not null, meta jsonb, n integer, at timestamptz not null)`,
  );
  await handle.db
    .insert(things)
    .values({ id: ID, label: 'one', meta: { a: [1, 'two'], b: null }, n: null, at: new Date('2026-01-02T03:04:05Z') });
});
afterAll(() => handle.close());

describe('named statements on PGlite', () => {
  it('binds text parameters in exactly the bytes PGlite\u2019s own serializer writes', () => {
    for (const values of [
      [],
      ['optimizer', '2026-11', ID],
      [null, '', 'zoë – 東京 🚀', null],
      ['x'.repeat(5000)],
      ['\u007f\u0080', '\u0000'],
    ]) {
      expect(bindText('named_7', values)).toEqual(protocol.serialize.bind({ statement: 'named_7', values }));
      expect(bindText('named_é', values)).toEqual(protocol.serialize.bind({ statement: 'named_é', values }));
      // With the Execute and Sync after it in the same buffer, byte for byte.
      const then = new Uint8Array([...protocol.serialize.execute({}), ...protocol.serialize.sync()]);
      expect(bindText('named_7', values, then)).toEqual(
        new Uint8Array([...protocol.serialize.bind({ statement: 'named_7', values }), ...then]),
      );
    }
  });

  it('reads every result exactly as PGlite\u2019s own query reads it (rows off the wire, not through its parser)', async () => {
    await handle.client.exec(
      `create table named_wide (id integer primary key, label text, note text, amount numeric, flag boolean, at timestamptz, tags text[], doc jsonb)`,
    );
    const cases: [string, unknown[]][] = [
      // Many rows, long and non-ASCII text, nulls, arrays, json: more than one flush of output.
      [
        `insert into named_wide select g, 'label ' || g, case when g % 3 = 0 then null else repeat('zoë 東京 ', g % 40) end, g * 1.5, g % 2 = 0, '2026-01-02T03:04:05Z'::timestamptz + g * interval '1 hour', array['a', 'b' || g], jsonb_build_object('g', g, 'name', 'n' || g) from generate_series(1, $1::int) g`,
        [300],
      ],
      ['select * from named_wide where id <= $1 order by id', [300]],
      ['select * from named_wide where id = $1', [-1]],
      ['update named_wide set note = $1 where id <= $2', ['short', 5]],
      ['update named_wide set note = $1 where id = $2 returning id, note', ['東京 🚀', 7]],
      ['delete from named_wide where id > $1', [290]],
      [
        'select count(*)::int as n, max(note) as longest from named_wide where note is not null and $1::text is not null',
        ['x'],
      ],
    ];
    for (const [text, params] of cases) {
      for (const rowMode of ['object', 'array'] as const) {
        const mutates = !text.startsWith('select');
        if (mutates && rowMode === 'array') continue;
        handle.statements.register(text);
        // A statement that changes rows runs PGlite's way first, in a transaction rolled back, then the
        // named way on the same table state: the same command, counts and returned rows.
        if (mutates) {
          const plain = await handle.client.transaction(async (tx) => {
            const result = await tx.query(text, params, { rowMode });
            await tx.rollback();
            return result;
          });
          const named = await handle.statements.query(text, params, { rowMode });
          expect(named).toEqual(plain);
        } else {
          const named = await handle.statements.query(text, params, { rowMode });
          expect(named).toEqual(await handle.client.query(text, params, { rowMode }));
        }
      }
    }
  });

  it('runs the named reads asked for in one turn back to back, each with its own answer or its own error', async () => {
    const text = 'select id, n from named_batch where id = $1::int';
    await handle.client.exec(
      `create table named_batch (id integer primary key, n integer not null); insert into named_batch select g, g * g from generate_series(1, 50) g`,
    );
    handle.statements.register(text);
    await handle.statements.query(text, [1], undefined); // parsed
    const ids = Array.from({ length: 50 }, (_, i) => i + 1);
    const answers = await Promise.all(ids.map((id) => handle.statements.query(text, [id], undefined)));
    expect(answers.map((a) => a.rows)).toEqual(ids.map((id) => [{ id, n: id * id }]));
    // One bad parameter fails alone; the others in its turn still answer, and so does the next turn.
    const mixed = await Promise.allSettled([
      handle.statements.query(text, [2], undefined),
      handle.statements.query(text, ['two'], undefined),
      handle.statements.query(text, [3], undefined),
    ]);
    expect(mixed.map((m) => m.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(mixed[1]?.status === 'rejected' && (mixed[1].reason as { code?: string }).code).toBe('22P02');
    expect(mixed[2]?.status === 'fulfilled' && mixed[2].value.rows).toEqual([{ id: 3, n: 9 }]);
    // Reads asked for in the same turn as a transaction that changes their rows see it whole or not at all.
    const during = handle.db.transaction(async (tx) => {
      await tx.execute(sql`update named_batch set n = -n where id <= 10`);
      await tx.execute(sql`update named_batch set n = n - 1 where id <= 10`);
    });
    const reads = await Promise.all(ids.slice(0, 10).map((id) => handle.statements.query(text, [id], undefined)));
    await during;
    for (const [i, read] of reads.entries())
      expect([(i + 1) ** 2, -((i + 1) ** 2) - 1]).toContain((read.rows[0] as { n: number }).n);
    expect((await handle.statements.query(text, [4], undefined)).rows).toEqual([{ id: 4, n: -17 }]);
  });

  it('sees every PGlite operation take its locks through the two methods it counts (an upgrade that stops must fail here)', async () => {
    const taken: string[] = [];
    const spy = <K extends '_runExclusiveTransaction' | '_runExclusiveQuery'>(lock: K) => {
      const original = handle.client[lock].bind(handle.client);
      handle.client[lock] = (<T>(fn: () => Promise<T>) => {
        taken.push(lock);
        return original(fn);
      }) as PgliteHandle['client'][K];
      return () => (handle.client[lock] = original as PgliteHandle['client'][K]);
    };
    const restore = [spy('_runExclusiveTransaction'), spy('_runExclusiveQuery')];
    try {
      for (const [name, operation] of [
        ['query', () => handle.client.query('select 1')],
        ['exec', () => handle.client.exec('select 1')],
        ['transaction', () => handle.client.transaction((tx) => tx.query('select 1'))],
        ['describeQuery', () => handle.client.describeQuery('select $1::int')],
      ] as const) {
        taken.length = 0;
        await operation();
        expect(new Set(taken), name).toEqual(new Set(['_runExclusiveTransaction', '_runExclusiveQuery']));
      }
    } finally {
      restore.forEach((undo) => undo());
    }
  });

  it('never runs inside somebody else\u2019s transaction: a named read outside it waits, and sees only what was committed', async () => {
    const text = 'select label from named_things where id = $1';
    handle.statements.register(text);
    expect((await handle.statements.query(text, [ID], undefined)).rows).toEqual([{ label: 'one' }]);
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const transaction = handle.db
      .transaction(async (tx) => {
        await tx.update(things).set({ label: 'uncommitted' }).where(eq(things.id, ID));
        inside();
        await held;
        throw new Error('roll it back');
      })
      .catch((e: unknown) => e);
    await entered;
    let read: string | undefined;
    const reading = handle.statements
      .query(text, [ID], undefined)
      .then((r) => (read = (r.rows[0] as { label: string }).label));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(read).toBeUndefined(); // still waiting for the transaction
    release();
    await transaction;
    await reading;
    expect(read).toBe('one');
  });

  it('reads exactly what the unnamed query reads, through one statement parsed once', async () => {
    const read = prepared();
    const first = await read.execute({ id: ID, label: 'one' });
    const again = await read.execute({ id: ID, label: 'one' });
    expect(first).toEqual(await unnamed(ID, 'one'));
    expect(again).toEqual(first);
    expect(first).toEqual([
      { id: ID, label: 'one', meta: { a: [1, 'two'], b: null }, n: null, at: new Date('2026-01-02T03:04:05Z') },
    ]);
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
