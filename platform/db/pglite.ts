import { PGlite, types, type Transaction } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { drizzle } from 'drizzle-orm/pglite';
import * as schema from '../../schema/index.js';
import { NamedStatements } from './pglite-statements.js';
import { declarePacing, EMBEDDED_PACING } from './pacing.js';
import type { Database, DatabaseHandle } from './port.js';

export interface PgliteHandle extends DatabaseHandle {
  readonly driver: 'pglite';
  readonly client: PGlite;
  /** The statements the code prepared by name (see pglite-statements.ts). */
  readonly statements: NamedStatements;
}

export interface PgliteOptions {
  /** A data folder; omitted means in memory. */
  dataDir?: string;
  /** Start from a dumped data directory (the migrated test template). */
  loadDataDir?: Blob | File;
  /** Called with every statement drizzle sends (benchmarks count statements at the port). */
  onQuery?: (sql: string) => void;
}

export async function openPglite(options: PgliteOptions = {}): Promise<PgliteHandle> {
  const client = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    extensions: { vector, pg_trgm },
  });
  return wrapPglite(client, options.onQuery);
}

/**
 * The parsers drizzle's PGlite driver passes with every query: dates, timestamps, intervals and
 * their arrays left as text, for drizzle's own column mapping to read.
 */
const DRIZZLE_PARSERS: Record<number, (value: string) => unknown> = Object.fromEntries(
  [types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182].map((oid) => [
    oid,
    (value: string) => value,
  ]),
);

type QueryOptions = Parameters<PGlite['query']>[2];
const withoutParsers = (options: QueryOptions): QueryOptions =>
  options?.parsers ? { ...options, parsers: undefined } : options;

/** Whether a statement goes through its named statement (not for PGlite's blob or typed-parameter queries). */
const viaNamed = (statements: NamedStatements, text: string, options: QueryOptions): boolean =>
  statements.has(text) && !options?.blob && !options?.paramTypes;

/** A transaction's client whose queries leave the per-query parsers out (see driverClient). */
function driverTransaction(tx: Transaction, statements: NamedStatements): Transaction {
  // Made once per transaction, as driverClient's: drizzle reads `query` for every statement.
  const query = (text: string, params?: unknown[], options?: QueryOptions) => {
    const bare = withoutParsers(options);
    return viaNamed(statements, text, bare)
      ? statements.queryIn(tx, text, params ?? [], bare)
      : tx.query(text, params, bare);
  };
  return new Proxy(tx, {
    get(target, property, receiver) {
      if (property === 'query') return query;
      return Reflect.get(target, property, receiver);
    },
  });
}

/**
 * The client drizzle talks to. PGlite merges per-query parsers by copying its whole parser table
 * (every array type it knows) on each query, ~110 µs of a ~250 µs statement here; so drizzle's
 * parsers are installed on the client once and left out of each query, and drizzle reads exactly
 * what it read before. Raw queries on this client read dates and timestamps as text too.
 * Properties are read at call time, so a test that swaps the client's methods still sees its swap.
 */
function driverClient(client: PGlite, statements: NamedStatements): PGlite {
  client.parsers = { ...client.parsers, ...DRIZZLE_PARSERS };
  // Made once, not on every property read: drizzle reads `query` for every statement.
  const query = (text: string, params?: unknown[], options?: QueryOptions) => {
    const bare = withoutParsers(options);
    return viaNamed(statements, text, bare)
      ? statements.query(text, params ?? [], bare)
      : client.query(text, params, bare);
  };
  const transaction = <R>(fn: (tx: Transaction) => Promise<R>) =>
    client.transaction((tx) => fn(driverTransaction(tx, statements)));
  return new Proxy(client, {
    get(target, property) {
      if (property === 'query') return query;
      if (property === 'transaction') return transaction;
      const value: unknown = Reflect.get(target, property, target);
      // PGlite's private members check `this`: its methods run on the client itself, not the proxy.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * drizzle's PGlite session drops the name of a prepared query; this keeps it, so the statement is
 * a named one here as on Neon's pool. A query first prepared inside a transaction (whose session
 * drizzle makes anew) is not seen, and runs as PGlite runs any query.
 */
interface SessionWithPrepare {
  prepareQuery(query: { sql: string }, fields: unknown, name: string | undefined, ...rest: unknown[]): unknown;
}
function keepStatementNames(db: unknown, statements: NamedStatements): void {
  const session = (db as { session?: SessionWithPrepare }).session;
  if (!session || typeof session.prepareQuery !== 'function')
    throw new Error('drizzle changed: its PGlite session has no prepareQuery');
  const prepare = session.prepareQuery.bind(session);
  session.prepareQuery = (query, fields, name, ...rest) => {
    if (name) statements.register(query.sql);
    return prepare(query, fields, name, ...rest);
  };
}

export function wrapPglite(client: PGlite, onQuery?: (sql: string) => void): PgliteHandle {
  const statements = new NamedStatements(client);
  const db = drizzle({
    client: driverClient(client, statements),
    schema,
    ...(onQuery ? { logger: { logQuery: (query: string) => onQuery(query) } } : {}),
  }) as unknown as Database;
  keepStatementNames(db, statements);
  declarePacing(db, EMBEDDED_PACING);
  return {
    db,
    client,
    statements,
    driver: 'pglite',
    async close() {
      if (!client.closed) await client.close();
    },
  };
}
