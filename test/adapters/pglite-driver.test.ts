import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PgliteHandle } from '../../platform/db/pglite.js';
import { openEmptyDatabase } from '../support/harness.js';
import { queryRows } from '../../platform/db/port.js';

/**
 * drizzle's PGlite driver sends its parsers with every query, which PGlite merges by copying its
 * whole parser table; platform/db/pglite.ts installs them on the client once instead. drizzle must
 * read exactly what it read before, in and out of transactions, and no query may carry parsers.
 */
let handle: PgliteHandle;
const seen: (object | undefined)[] = [];

beforeAll(async () => {
  handle = await openEmptyDatabase();
  const client = handle.client as PGlite;
  const record = <T extends { query: PGlite['query'] }>(target: T): T => {
    const query = target.query.bind(target);
    (target as { query: unknown }).query = (async (...args: Parameters<PGlite['query']>) => {
      seen.push(args[2]?.parsers);
      return query(...args);
    }) as PGlite['query'];
    return target;
  };
  record(client);
  const transaction = client.transaction.bind(client);
  client.transaction = (async (fn: Parameters<PGlite['transaction']>[0]) =>
    transaction(async (tx) => fn(record(tx)))) as PGlite['transaction'];
});
afterAll(() => handle.close());

const TYPED = sql`select '2026-01-02 03:04:05+00'::timestamptz as at, '2026-01-02 03:04:05'::timestamp as local, '2026-01-02'::date as day,
  interval '1 day 2 hours' as span, array['2026-01-02 03:04:05+00'::timestamptz] as ats, 1.50::numeric as amount, 7::int as n, true as flag`;

describe('the PGlite driver client', () => {
  it('reads dates, timestamps and intervals as text for drizzle, other types as PGlite parses them', async () => {
    const expected = {
      at: '2026-01-02 03:04:05+00',
      local: '2026-01-02 03:04:05',
      day: '2026-01-02',
      span: '1 day 02:00:00',
      ats: '{"2026-01-02 03:04:05+00"}',
      amount: '1.50',
      n: 7,
      flag: true,
    };
    expect(await queryRows(handle.db, TYPED)).toEqual([expected]);
    expect(await handle.db.transaction((tx) => queryRows(tx, TYPED))).toEqual([expected]);
  });

  it('sends no per-query parsers, inside a transaction or not', async () => {
    seen.length = 0;
    await queryRows(handle.db, sql`select 1`);
    await handle.db.transaction(async (tx) => {
      await queryRows(tx, sql`select 2`);
    });
    expect(seen).toHaveLength(2);
    expect(seen.every((parsers) => parsers === undefined)).toBe(true);
  });
});
