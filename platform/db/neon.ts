import { Pool, neon, neonConfig } from '@neondatabase/serverless';
import { drizzle as drizzleHttp } from 'drizzle-orm/neon-http';
import { drizzle as drizzlePool } from 'drizzle-orm/neon-serverless';
import * as schema from '../../schema/index.js';
import type { AppConfig } from '../config.js';
import { declarePacing, SERVER_PACING } from './pacing.js';
import type { Database, DatabaseHandle } from './port.js';

/**
 * How statements reach Neon.
 *
 * - `websocket`: the Pool driver for everything. A connection costs 3 round trips to set up (2
 *   before the socket opens, 1 for the startup message), then 1 per statement. Right for a
 *   long-lived Node process (`npm start`, the admin CLI, migrations): its pool outlives requests.
 * - `http`: statements outside a transaction go over Neon's HTTP endpoint (`neon()` over fetch: one
 *   round trip per statement and no connection of ours to set up; a `db.batch([...])` is one round
 *   trip too, run by Neon as one non-interactive transaction). `db.transaction(fn)` still needs an
 *   interactive transaction (the run engine's compare-and-set commits, the limits' locks), so it
 *   opens the Pool on first use and runs there. This is the Worker's transport: a pool must not
 *   outlive its request in Workers, so a steady authenticated read costs the one statement it needs
 *   and only a request that opens a transaction pays a connection set-up.
 */
export type NeonTransport = 'websocket' | 'http';

export interface NeonOptions {
  connectionString: string;
  /**
   * Where the driver's WebSocket goes instead of Neon's proxy: a string gets `?address=host:port`
   * appended by the driver, a function builds the whole address. Never with a protocol (the driver
   * picks ws:// or wss://). Unset in production.
   */
  wsProxy?: string | ((host: string, port: number | string) => string);
  /**
   * Where the HTTP transport POSTs its statements instead of Neon's `https://api.<host>/sql`: a
   * local relay speaking the same protocol (edge/sql-over-http.ts). Unset in production.
   */
  fetchEndpoint?: string;
  /** WebSocket implementation for runtimes without a global one (Node 20). */
  webSocketConstructor?: unknown;
  useSecureWebSocket?: boolean;
  /** Default `websocket` (see NeonTransport). */
  transport?: NeonTransport;
}

/**
 * Neon's drivers behind the one Database port. `pool` is the WebSocket Pool (opened on first use
 * with the `http` transport: only transactions and migrations need it); in Workers the worker opens
 * a handle per request and closes it in waitUntil.
 */
export interface NeonHandle extends DatabaseHandle {
  readonly driver: 'neon';
  readonly transport: NeonTransport;
  readonly pool: Pool;
}

/**
 * The driver options that point it at a local relay (NEON_WS_PROXY, `host:port[/path]`): plain
 * `ws://` and `http://`, no TLS pipelining, no pipelined connect, as a local Postgres-wire server needs.
 */
export function localProxyOptions(
  proxy: string | undefined,
): Pick<NeonOptions, 'wsProxy' | 'useSecureWebSocket' | 'fetchEndpoint'> {
  if (!proxy) return {};
  return {
    wsProxy: (host, port) => `${proxy}/v2?address=${host}:${port}`,
    useSecureWebSocket: false,
    fetchEndpoint: `http://${proxy}/sql`,
  };
}

export function openNeon(options: NeonOptions): NeonHandle {
  if (options.wsProxy) neonConfig.wsProxy = options.wsProxy;
  if (options.webSocketConstructor) neonConfig.webSocketConstructor = options.webSocketConstructor as typeof WebSocket;
  if (options.useSecureWebSocket !== undefined) {
    neonConfig.useSecureWebSocket = options.useSecureWebSocket;
    // Both pipelining tricks assume Neon's own proxy (TLS inside the WebSocket, the startup sent before
    // the server's answer); a plain local relay to a Postgres wire server understands neither.
    neonConfig.pipelineTLS = false;
    neonConfig.pipelineConnect = false;
  }
  // The driver reads the endpoint from its global configuration only (like wsProxy): one per process.
  const fetchEndpoint = options.fetchEndpoint;
  if (fetchEndpoint) neonConfig.fetchEndpoint = () => fetchEndpoint;
  const transport = options.transport ?? 'websocket';

  let pool: Pool | undefined;
  let pooledDb: Database | undefined;
  const openPool = (): Pool => {
    pool ??= new Pool({ connectionString: options.connectionString });
    return pool;
  };
  const pooled = (): Database => {
    if (!pooledDb) {
      pooledDb = drizzlePool({ client: openPool(), schema }) as unknown as Database;
      declarePacing(pooledDb, SERVER_PACING);
    }
    return pooledDb;
  };

  let db: Database;
  if (transport === 'http') {
    const http = drizzleHttp({ client: neon(options.connectionString), schema });
    db = http as unknown as Database;
    // neon-http refuses interactive transactions; they run on the Pool, opened by the first one.
    // A statement a callback runs on `db` instead of its `tx` goes over HTTP, outside the
    // transaction, as it would on another pooled connection.
    const transaction: Database['transaction'] = (run, config) => pooled().transaction(run, config);
    Object.defineProperty(db, 'transaction', { value: transaction });
    declarePacing(db, SERVER_PACING);
  } else {
    db = pooled();
  }

  return {
    db,
    driver: 'neon',
    transport,
    get pool() {
      return openPool();
    },
    async close() {
      await pool?.end();
    },
  };
}

/**
 * The driver options a validated configuration asks for: the one place the worker, `npm start` and
 * the admin CLI turn DATABASE_URL and NEON_WS_PROXY into Neon options. With NEON_WS_PROXY (a local
 * relay in front of a Postgres wire server; config refuses it in production) the socket is plain
 * ws://, the Neon-proxy-only pipelining is off, and HTTP statements go to `http://<proxy>/sql`.
 */
export function neonOptionsFromConfig(
  config: Pick<AppConfig, 'DATABASE_URL' | 'NEON_WS_PROXY'> & { DATABASE_URL: string },
): NeonOptions {
  return {
    connectionString: config.DATABASE_URL,
    ...(config.NEON_WS_PROXY
      ? {
          wsProxy: config.NEON_WS_PROXY,
          useSecureWebSocket: false,
          fetchEndpoint: `http://${config.NEON_WS_PROXY}/sql`,
        }
      : {}),
  };
}

/**
 * Open the configured Neon database (see neonOptionsFromConfig); `runtime` adds what the host lacks
 * and the transport it wants (the worker: `http`; Node processes keep the default Pool).
 */
export function openConfiguredNeon(
  config: Pick<AppConfig, 'DATABASE_URL' | 'NEON_WS_PROXY'> & { DATABASE_URL: string },
  runtime: Pick<NeonOptions, 'webSocketConstructor' | 'transport'> = {},
): NeonHandle {
  return openNeon({ ...neonOptionsFromConfig(config), ...runtime });
}
