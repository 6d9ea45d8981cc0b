import { Pool, neonConfig } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import * as schema from '../../schema/index.js';
import type { AppConfig } from '../config.js';
import type { Database, DatabaseHandle } from './port.js';

export interface NeonOptions {
  connectionString: string;
  /**
   * Where the driver's WebSocket goes instead of Neon's proxy: a string gets `?address=host:port`
   * appended by the driver, a function builds the whole address. Never with a protocol (the driver
   * picks ws:// or wss://). Unset in production.
   */
  wsProxy?: string | ((host: string, port: number | string) => string);
  /** WebSocket implementation for runtimes without a global one (Node 20). */
  webSocketConstructor?: unknown;
  useSecureWebSocket?: boolean;
}

/**
 * Neon over WebSockets (the Pool driver), not neon-http: the run engine needs interactive
 * transactions for its compare-and-set commits, which the HTTP driver cannot do. In Workers a pool
 * must not outlive its request, so the worker opens one per request and closes it in waitUntil.
 */
export interface NeonHandle extends DatabaseHandle {
  readonly driver: 'neon';
  readonly pool: Pool;
}

/**
 * The driver options that point it at a local WebSocket relay (NEON_WS_PROXY, `host:port`): plain
 * `ws://`, no TLS pipelining, no pipelined connect, as a local Postgres-wire server needs.
 */
export function localProxyOptions(proxy: string | undefined): Pick<NeonOptions, 'wsProxy' | 'useSecureWebSocket'> {
  if (!proxy) return {};
  return { wsProxy: (host, port) => `${proxy}/v2?address=${host}:${port}`, useSecureWebSocket: false };
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
  const pool = new Pool({ connectionString: options.connectionString });
  const db = drizzle({ client: pool, schema }) as unknown as Database;
  return {
    db,
    pool,
    driver: 'neon',
    async close() {
      await pool.end();
    },
  };
}

/**
 * The driver options a validated configuration asks for: the one place the worker, `npm start` and
 * the admin CLI turn DATABASE_URL and NEON_WS_PROXY into a Neon pool. With NEON_WS_PROXY (a local
 * WebSocket relay in front of a Postgres wire server; config refuses it in production) the socket is
 * plain ws:// and the Neon-proxy-only pipelining is off.
 */
export function neonOptionsFromConfig(
  config: Pick<AppConfig, 'DATABASE_URL' | 'NEON_WS_PROXY'> & { DATABASE_URL: string },
): NeonOptions {
  return {
    connectionString: config.DATABASE_URL,
    ...(config.NEON_WS_PROXY ? { wsProxy: config.NEON_WS_PROXY, useSecureWebSocket: false } : {}),
  };
}

/** Open the configured Neon database (see neonOptionsFromConfig); `runtime` adds what the host lacks. */
export function openConfiguredNeon(
  config: Pick<AppConfig, 'DATABASE_URL' | 'NEON_WS_PROXY'> & { DATABASE_URL: string },
  runtime: Pick<NeonOptions, 'webSocketConstructor'> = {},
): NeonHandle {
  return openNeon({ ...neonOptionsFromConfig(config), ...runtime });
}
