import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { FrontendRewriter } from './pg-frontend.js';

/**
 * What the relay has seen since the last reset. Counted connections are the worker's; the `/uncounted`
 * path is for the test tier's own SQL checks and the stack's set-up, which must not move the budget.
 */
export interface RelayCounters {
  /** WebSocket connections opened (each costs the driver a set-up of 3 round trips). */
  connectionsOpened: number;
  /** Connections still open. */
  connectionsOpen: number;
  /** Sync + simple Query messages: database round trips once a connection is up. */
  queries: number;
  /** Parse messages (prepared statements, named or unnamed). */
  parses: number;
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
  /** Resolves when no counted connection is open (the worker closes its pool after the response). */
  whenIdle(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The Neon driver's WebSocket → TCP relay to pglite-socket (what Neon's own proxy does in
 * production), with per-connection statement names, a hang-up on Terminate, an injectable one-way
 * delay and counters. The driver dials `ws://<NEON_WS_PROXY>/v2?address=host:port`; the address is
 * ignored: every connection goes to the one target.
 */
export async function startRelay(options: RelayOptions): Promise<Relay> {
  let oneWayDelayMs = options.oneWayDelayMs ?? 0;
  let nextConnectionId = 1;
  const counters: RelayCounters = { connectionsOpened: 0, connectionsOpen: 0, queries: 0, parses: 0 };
  const idleWaiters = new Set<() => void>();
  const sockets = new Set<Socket>();

  /** Deliver in order after the current delay (equal timeouts fire in the order they were set). */
  const later = (fn: () => void) => (oneWayDelayMs > 0 ? void setTimeout(fn, oneWayDelayMs) : fn());

  const http: Server = createServer((_req, res) => res.writeHead(426).end('WebSocket only'));
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    const counted = !(req.url ?? '').startsWith('/uncounted');
    // The TCP handshake and the HTTP upgrade: two round trips before the socket opens.
    const accept = () => wss.handleUpgrade(req, socket, head, (ws) => relayConnection(ws, counted));
    if (oneWayDelayMs > 0) setTimeout(accept, 4 * oneWayDelayMs);
    else accept();
  });

  function relayConnection(ws: WebSocket, counted: boolean): void {
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
        if (counters.connectionsOpen === 0) for (const wake of [...idleWaiters]) wake();
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
      });
    });
    tcp.on('data', (chunk) => later(() => ws.readyState === ws.OPEN && ws.send(chunk)));
    ws.on('close', () => later(finish));
    ws.on('error', finish);
    tcp.on('close', () => later(finish));
    tcp.on('error', finish);
  }

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('relay: no port');

  return {
    port: address.port,
    counters: () => ({ ...counters }),
    resetCounters() {
      counters.connectionsOpened = 0;
      counters.queries = 0;
      counters.parses = 0;
    },
    setOneWayDelay(ms) {
      oneWayDelayMs = ms;
    },
    whenIdle(timeoutMs) {
      if (counters.connectionsOpen === 0) return Promise.resolve(true);
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
      for (const socket of sockets) socket.destroy();
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
