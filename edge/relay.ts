import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { FrontendRewriter } from './pg-frontend.js';
import { SqlOverHttpExecutor, serveSqlOverHttp } from './sql-over-http.js';

/**
 * What the relay has seen since the last reset. Counted connections are the worker's; the `/uncounted`
 * path is for the test tier's own SQL checks and the stack's set-up, which must not move the budget.
 */
export interface RelayCounters {
  /** WebSocket connections opened (each costs the driver a set-up of 3 round trips). */
  connectionsOpened: number;
  /** Connections still open. */
  connectionsOpen: number;
  /**
   * Database round trips past any connection set-up: Sync + simple Query messages on the WebSockets,
   * plus one for each SQL-over-HTTP request (a batch of statements is one request).
   */
  queries: number;
  /** Parse messages (prepared statements, named or unnamed) on the WebSockets. */
  parses: number;
  /** SQL-over-HTTP requests (`POST …/sql`, the worker's `http` transport): one round trip each. */
  httpRequests: number;
  /** Statements those requests carried (a batch carries several). */
  httpStatements: number;
  /** HTTP connections the counted requests arrived on (the runtime keeps them alive between requests). */
  httpConnectionsOpened: number;
  /** SQL-over-HTTP requests not answered yet. */
  httpInFlight: number;
}

export interface RelayOptions {
  /** pglite-socket's TCP address. */
  target: { host: string; port: number };
  /** One-way delay added to every chunk in both directions and to the WebSocket upgrade, in ms. */
  oneWayDelayMs?: number;
}

export interface Relay {
  readonly port: number;
  counters(): RelayCounters;
  resetCounters(): void;
  setOneWayDelay(ms: number): void;
  /** Resolves when no counted connection is open and no counted SQL-over-HTTP request is in flight. */
  whenIdle(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The Neon driver's WebSocket → TCP relay to pglite-socket (what Neon's own proxy does in
 * production), with per-connection statement names, a hang-up on Terminate, an injectable one-way
 * delay and counters. The driver dials `ws://<NEON_WS_PROXY>/v2?address=host:port`; the address is
 * ignored: every connection goes to the one target. The same port serves Neon's SQL-over-HTTP
 * endpoint (`POST <NEON_WS_PROXY>/sql`, edge/sql-over-http.ts) for the worker's `http` transport,
 * each request one round trip in the counters and delayed once each way.
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  let oneWayDelayMs = options.oneWayDelayMs ?? 0;
  let nextConnectionId = 1;
  const counters: RelayCounters = {
    connectionsOpened: 0,
    connectionsOpen: 0,
    queries: 0,
    parses: 0,
    httpRequests: 0,
    httpStatements: 0,
    httpConnectionsOpened: 0,
    httpInFlight: 0,
  };
  const idleWaiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  const isIdle = () => counters.connectionsOpen === 0 && counters.httpInFlight === 0;
  const wakeIfIdle = () => {
    if (isIdle()) for (const wake of [...idleWaiters]) wake();
  };

  /** Deliver in order after the current delay (equal timeouts fire in the order they were set). */
  const later = (fn: () => void, delayed = true) =>
    delayed && oneWayDelayMs > 0 ? void setTimeout(fn, oneWayDelayMs) : fn();
  const oneWay = () => new Promise<void>((resolve) => later(resolve));

  // The relay's own Postgres connections for SQL over HTTP, through its `/internal` path.
  let executor: SqlOverHttpExecutor | undefined;
  const httpSockets = new WeakSet<object>();
  const http: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (!path.endsWith('/sql') || !executor) return void res.writeHead(426).end('WebSocket, or POST /sql');
    const counted = !path.startsWith('/uncounted');
    if (counted) {
      counters.queries += 1;
      counters.httpRequests += 1;
      counters.httpInFlight += 1;
      if (!httpSockets.has(req.socket)) {
        httpSockets.add(req.socket);
        counters.httpConnectionsOpened += 1;
      }
    }
    serveSqlOverHttp(req, res, executor, {
      onStatements: (n) => {
        if (counted) counters.httpStatements += n;
      },
      delay: oneWay,
    })
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end('relay error');
      })
      .finally(() => {
        if (!counted) return;
        counters.httpInFlight -= 1;
        wakeIfIdle();
      });
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    const url = req.url ?? '';
    const internal = url.startsWith('/internal');
    const counted = !internal && !url.startsWith('/uncounted');
    // The TCP handshake and the HTTP upgrade: two round trips before the socket opens.
    const accept = () => wss.handleUpgrade(req, socket, head, (ws) => relayConnection(ws, counted, !internal));
    if (oneWayDelayMs > 0 && !internal) setTimeout(accept, 4 * oneWayDelayMs);
    else accept();
  });

  function relayConnection(ws: WebSocket, counted: boolean, delayed: boolean): void {
    const rewriter = new FrontendRewriter(nextConnectionId++);
    if (counted) {
      counters.connectionsOpened += 1;
      counters.connectionsOpen += 1;
    }
    const tcp = connect(options.target.port, options.target.host);
    tcp.setNoDelay(true);
    sockets.add(tcp);
    let closed = false;
    const finish = () => {
      if (closed) return;
      closed = true;
      sockets.delete(tcp);
      tcp.destroy();
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close();
      if (counted) {
        counters.connectionsOpen -= 1;
        wakeIfIdle();
      }
    };
    // Bytes the client sends before the TCP side is up are queued by the socket itself.
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      const chunk = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
      const { out, terminated, counts } = rewriter.feed(chunk);
      if (counted) {
        counters.queries += counts.queries;
        counters.parses += counts.parses;
      }
      later(() => {
        if (out.length > 0 && !closed) tcp.write(out);
        // Real Postgres hangs up after Terminate; the Neon driver waits for that.
        if (terminated) finish();
      }, delayed);
    });
    tcp.on('data', (chunk) => later(() => ws.readyState === ws.OPEN && ws.send(chunk), delayed));
    ws.on('close', () => later(finish, delayed));
    ws.on('error', finish);
    tcp.on('close', () => later(finish, delayed));
    tcp.on('error', finish);
  }

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('relay: no port');
  executor = new SqlOverHttpExecutor(`127.0.0.1:${address.port}/internal`);

  return {
    port: address.port,
    counters: () => ({ ...counters }),
    resetCounters() {
      counters.connectionsOpened = 0;
      counters.queries = 0;
      counters.parses = 0;
      counters.httpRequests = 0;
      counters.httpStatements = 0;
      counters.httpConnectionsOpened = 0;
    },
    setOneWayDelay(ms) {
      oneWayDelayMs = ms;
    },
    whenIdle(timeoutMs) {
      if (isIdle()) return Promise.resolve(true);
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          idleWaiters.delete(wake);
          resolve(true);
        };
        const timer = setTimeout(() => {
          idleWaiters.delete(wake);
          resolve(false);
        }, timeoutMs);
        idleWaiters.add(wake);
      });
    },
    async close() {
      await executor?.close();
      for (const socket of sockets) socket.destroy();
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
