import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { expect } from 'vitest';
import type { SearchResponse } from '../../functions/search/response.js';
import type { ManualClock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/port.js';
import type { Harness, TestResponse } from './harness.js';

/**
 * POST /search/query for the search tests. The clock moves two minutes before each call, so the
 * 10/min per-user budget never bites (the limit has its own test).
 */
export function searchClient(h: Harness, clock: ManualClock, defaultKey: () => string) {
  const search = async (body: unknown, key = defaultKey()): Promise<TestResponse<any>> => {
    await clock.advance(120_000);
    return h.request('POST', '/search/query', { key, body });
  };
  const ok = async (
    body: unknown,
    key?: string,
  ): Promise<SearchResponse & { job?: { job_id: string; status: string; poll?: string } }> => {
    const res = await search(body, key);
    expect(res.status, res.text.slice(0, 800)).toBe(200);
    expect(res.body.data.success).toBe(true);
    return res.body.data;
  };
  /** A 400 invalid_argument whose details name `field`. */
  const rejects = async (
    body: unknown,
    field: string,
    key?: string,
  ): Promise<{ field: string; problem: string; code?: string }> => {
    const res = await search(body, key);
    expect(res.status, res.text.slice(0, 800)).toBe(400);
    expect(res.body.error.code).toBe('invalid_argument');
    const problem = res.body.error.details.fields.find((p: { field: string }) => p.field === field);
    expect(problem, `no problem named ${field} in ${res.text.slice(0, 800)}`).toBeDefined();
    return problem;
  };
  return { search, ok, rejects };
}

const dialect = new PgDialect();

/** A database whose raw reads throw when their SQL matches `fails` (a store that is down). */
export function failingDb(base: Database, fails: (text: string) => boolean): Database {
  const guard = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, prop) {
        if (prop === 'execute') {
          return async (query: SQL) => {
            if (fails(dialect.sqlToQuery(query).sql)) throw new Error('simulated read failure');
            return (t as unknown as { execute(q: SQL): Promise<unknown> }).execute(query);
          };
        }
        if (prop === 'transaction') {
          return (fn: (tx: unknown) => Promise<unknown>, config?: unknown) =>
            (
              t as unknown as { transaction(f: (tx: object) => Promise<unknown>, c?: unknown): Promise<unknown> }
            ).transaction((tx) => fn(guard(tx)), config);
        }
        const value = Reflect.get(t, prop, t) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
      },
    });
  return guard(base);
}
