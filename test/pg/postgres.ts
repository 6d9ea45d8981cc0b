import { createConnection } from 'node:net';
import { Client } from '@neondatabase/serverless';
import WebSocket from 'ws';
import { startRelay, type Relay } from '../../edge/relay.js';
import { localProxyOptions, openNeon, type NeonHandle, type NeonTransport } from '../../platform/db/neon.js';
import { randomBase62 } from '../../platform/ids.js';

/**
 * The PostgreSQL tier (`npm run test:pg`, vitest.pg.config.ts): the race tests on Debian's
 * PostgreSQL 15 with a real pool of connections, through the production driver. The Neon driver
 * speaks the Postgres wire protocol over a WebSocket; here it dials the edge relay (edge/relay.ts,
 * what Neon's own proxy does in production), which relays every connection to the local server's
 * TCP port. Each test file gets a database of its own, copied from the migrated template.
 */

/** `.ci/run` sets REQUIRE_PG_TESTS=1: an unreachable server then fails the tier instead of skipping it. */
export const postgresTierRequired = (): boolean => process.env.REQUIRE_PG_TESTS === '1';

/**
 * A role that may create databases and a database it owns (`.ci/run` makes both). Override with
 * PG_TEST_URL; the host must be local (the relay goes to it in the clear).
 */
export const postgresTierUrl = (): URL =>
  new URL(process.env.PG_TEST_URL ?? 'postgres://cip_test:cip_test@127.0.0.1:5432/cip_test');

/**
 * How the tier's handles send statements outside a transaction: `websocket` (the Pool, as `npm
 * start` and the admin CLI do) or `http` (the worker's transport: SQL over HTTP, answered by the
 * relay on its own connections; transactions still on the Pool). PG_TEST_TRANSPORT, default websocket.
 */
export const postgresTierTransport = (): NeonTransport =>
  process.env.PG_TEST_TRANSPORT === 'http' ? 'http' : 'websocket';

/** Whether something accepts TCP connections at the tier's host and port (the skip decision). */
export function postgresReachable(url = postgresTierUrl(), timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port || 5432) });
    const done = (reachable: boolean) => {
      socket.destroy();
      resolve(reachable);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The relay this process's handles dial, started by the first and closed with the last. */
let relay: Promise<Relay> | undefined;
let relayUsers = 0;

async function acquireRelay(): Promise<Relay> {
  relayUsers += 1;
  if (!relay) {
    const url = postgresTierUrl();
    relay = startRelay({ target: { host: url.hostname, port: Number(url.port || 5432) } });
  }
  return relay;
}

async function releaseRelay(): Promise<void> {
  relayUsers -= 1;
  if (relayUsers > 0 || !relay) return;
  const closing = relay;
  relay = undefined;
  await (await closing).close();
}

const identifier = (name: string): string => {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  return `"${name}"`;
};

/** The tier's URL with another database. */
export function databaseUrl(database: string): string {
  const url = postgresTierUrl();
  url.pathname = `/${database}`;
  return url.toString();
}

/** One Neon client on `database` (default: the tier's own), through the relay, for set-up statements. */
export async function withClient<T>(database: string | undefined, run: (client: Client) => Promise<T>): Promise<T> {
  const proxy = await acquireRelay();
  const client = new Client({ connectionString: database ? databaseUrl(database) : postgresTierUrl().toString() });
  const config = client.neonConfig;
  config.webSocketConstructor = WebSocket as unknown as typeof globalThis.WebSocket;
  config.wsProxy = (host, port) => `127.0.0.1:${proxy.port}/v2?address=${host}:${port}`;
  config.useSecureWebSocket = false;
  config.pipelineConnect = false;
  config.pipelineTLS = false;
  try {
    await client.connect();
    return await run(client);
  } finally {
    await client.end().catch(() => {});
    await releaseRelay();
  }
}

/**
 * A new database with a name of this run's own (runs and files never collide), stamped with its
 * creation time in seconds (base 36) so a later run can drop what a killed one left behind.
 */
export function newDatabaseName(kind: 'tpl' | 't'): string {
  return `cip_${kind}_${Math.floor(Date.now() / 1000).toString(36)}_${randomBase62(8).toLowerCase()}`;
}

const TIER_DATABASE = /^cip_(?:tpl|t)_([0-9a-z]+)_[0-9a-z]+$/;

/** Drop the tier's databases created more than `olderThanMs` ago (left by a run that was killed). */
export async function dropAbandonedDatabases(olderThanMs: number): Promise<string[]> {
  const names = await withClient(undefined, async (client) => {
    const result = await client.query<{ datname: string }>(
      `select datname from pg_database where datname like 'cip\\_%' and datdba = (select oid from pg_roles where rolname = current_user)`,
    );
    return result.rows.map((row) => row.datname);
  });
  const cutoff = Date.now() - olderThanMs;
  const abandoned = names.filter((name) => {
    const stamp = TIER_DATABASE.exec(name)?.[1];
    return stamp !== undefined && Number.parseInt(stamp, 36) * 1000 < cutoff;
  });
  for (const name of abandoned) await dropDatabase(name);
  return abandoned;
}

export async function createDatabase(name: string, template?: string): Promise<void> {
  const from = template ? ` TEMPLATE ${identifier(template)}` : '';
  await withClient(undefined, (client) => client.query(`CREATE DATABASE ${identifier(name)}${from}`));
}

export async function dropDatabase(name: string): Promise<void> {
  await withClient(undefined, (client) => client.query(`DROP DATABASE IF EXISTS ${identifier(name)} WITH (FORCE)`));
}

/**
 * A fresh database for one test file, copied from the migrated template, opened with the Neon
 * driver's Pool (several real connections) as production opens it. Closing ends the pool and drops
 * the database.
 */
/** The login `.ci/start-postgres` makes for caller SQL, as an operator makes it on Neon (docs/operate/security.md). */
const QUERY_ROLE_LOGIN = { user: 'cip_query', password: 'cip_query' };

export interface PostgresTestDatabase extends NeonHandle {
  /** A connection to the same database as the least-privilege role, for POST /sql/query (SQL_QUERY_DATABASE_URL). */
  sqlQueryConnection: () => NeonHandle;
}

export async function openPostgresTestDatabase(template: string): Promise<PostgresTestDatabase> {
  const name = newDatabaseName('t');
  await createDatabase(name, template);
  const proxy = await acquireRelay();
  const handle = openNeon({
    connectionString: databaseUrl(name),
    ...localProxyOptions(`127.0.0.1:${proxy.port}`),
    webSocketConstructor: WebSocket,
    transport: postgresTierTransport(),
  });
  let closed = false;
  const queryRoleUrl = new URL(databaseUrl(name));
  queryRoleUrl.username = QUERY_ROLE_LOGIN.user;
  queryRoleUrl.password = QUERY_ROLE_LOGIN.password;
  return {
    sqlQueryConnection: () =>
      openNeon({
        connectionString: queryRoleUrl.toString(),
        ...localProxyOptions(`127.0.0.1:${proxy.port}`),
        webSocketConstructor: WebSocket,
        transport: 'websocket',
      }),
    db: handle.db,
    driver: handle.driver,
    transport: handle.transport,
    get pool() {
      return handle.pool;
    },
    async close() {
      if (closed) return;
      closed = true;
      await handle.close();
      await dropDatabase(name);
      await releaseRelay();
    },
  };
}
