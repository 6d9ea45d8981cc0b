import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

/**
 * How long a kept-alive connection may sit idle before the server closes it. Longer than any client
 * keeps an idle connection for reuse (undici and Node's agent take the server's `Keep-Alive: timeout`
 * hint less a second; load balancers idle at 60 s), so the client always lets go first: a server
 * that closes first races the client's next request on that socket, which then fails with a reset
 * ("fetch failed") instead of an HTTP answer. Node's default is 5 s.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Longer than the keep-alive idle, so an idle connection is never taken for a slow request's headers. */
export const HEADERS_TIMEOUT_MS = 66_000;
/** The whole request, body included: a large upload over a slow link still fits. */
export const REQUEST_TIMEOUT_MS = 300_000;
/** How long a graceful close lets requests in flight finish before their connections are cut. */
export const CLOSE_GRACE_MS = 10_000;

export interface NodeServer {
  server: Server;
  /** The port listened on (the one asked for, or the one given for port 0). */
  port: number;
  /**
   * Stop accepting connections, close the idle ones, let requests in flight finish (their
   * connections close once answered), and cut whatever is left after `graceMs`.
   */
  close(graceMs?: number): Promise<void>;
}

/** Serve `fetch` over HTTP/1.1 with the timeouts above; resolves once listening. */
export async function serveNode(options: {
  fetch: (request: Request) => Response | Promise<Response>;
  hostname: string;
  /** Unset or 0: a free port (tests, benches). */
  port?: number;
}): Promise<NodeServer> {
  const server = serve({
    fetch: options.fetch,
    hostname: options.hostname,
    port: options.port,
    serverOptions: { headersTimeout: HEADERS_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
  }) as Server;
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = REQUEST_TIMEOUT_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: (graceMs = CLOSE_GRACE_MS) => closeGracefully(server, graceMs),
  };
}

function closeGracefully(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    // A connection answering its last request becomes idle only after close() was called: sweep
    // the idle ones until every connection is gone, and cut the rest at the deadline.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}
