import { Pool, neonConfig } from '@neondatabase/serverless';
import { drizzle } from 'drizzle-orm/neon-serverless';
import * as schema from '../../schema/index.js';
import type { Database, DatabaseHandle } from './port.js';

export interface NeonOptions {
  connectionString: string;
  /**
   * Where the driver's WebSocket goes instead of Neon's proxy (tests run a local proxy to a
   * Postgres wire server); unset in production.
   */
  wsProxy?: (host: string, port: number | string) => string;
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
