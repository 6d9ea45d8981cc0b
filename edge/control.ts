import { createServer } from 'node:http';
import { closeServer, listen, sendJson } from './http-util.js';
import type { QStashStandin, QStashStandinCounters } from './qstash-standin.js';
import type { RedisStandin, RedisStandinCounters } from './redis-standin.js';
import type { Relay, RelayCounters } from './relay.js';

/** What `GET /counters` answers: every count since the last `POST /reset`. */
export interface StackCounters {
  relay: RelayCounters;
  redis: RedisStandinCounters;
  qstash: QStashStandinCounters;
}

export interface ControlServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The stack's control surface for the edge tests and the bench (they run in other processes):
 *   GET  /counters                 the relay's, Redis stand-in's and QStash stand-in's counts
 *   POST /reset                    zero them
 *   POST /delay?one_way_ms=10      the injected one-way delay, everywhere at once
 *   POST /settle?timeout_ms=20000  wait until no delivery is pending and no worker connection is open
 */
export async function startControlServer(parts: {
  relay: Relay;
  qstash: QStashStandin;
  redis: RedisStandin;
}): Promise<ControlServer> {
  const { relay, qstash, redis } = parts;
  const counters = (): StackCounters => ({
    relay: relay.counters(),
    redis: redis.counters(),
    qstash: qstash.counters(),
  });

  /** Deliveries open connections and may publish again: loop until both are quiet together. */
  const settle = async (timeoutMs: number): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const left = deadline - Date.now();
      if (!(await qstash.whenIdle(left))) return false;
      if (!(await relay.whenIdle(Math.max(1, deadline - Date.now())))) return false;
      if (await qstash.whenIdle(0)) {
        const now = relay.counters();
        if (now.connectionsOpen === 0 && now.httpInFlight === 0) return true;
      }
    }
    return false;
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    try {
      if (req.method === 'GET' && url.pathname === '/counters') return sendJson(res, 200, counters());
      if (req.method === 'POST' && url.pathname === '/reset') {
        relay.resetCounters();
        redis.resetCounters();
        qstash.resetCounters();
        return sendJson(res, 200, counters());
      }
      if (req.method === 'POST' && url.pathname === '/delay') {
        const ms = Number(url.searchParams.get('one_way_ms') ?? '0');
        if (!Number.isFinite(ms) || ms < 0) return sendJson(res, 400, { error: 'one_way_ms must be >= 0' });
        relay.setOneWayDelay(ms);
        redis.setOneWayDelay(ms);
        qstash.setOneWayDelay(ms);
        return sendJson(res, 200, { one_way_ms: ms });
      }
      if (req.method === 'POST' && url.pathname === '/settle') {
        const settled = await settle(Number(url.searchParams.get('timeout_ms') ?? '20000'));
        return sendJson(res, 200, { settled, counters: counters() });
      }
      sendJson(res, 404, { error: 'not found' });
    } catch (error) {
      sendJson(res, 500, { error: String(error) });
    }
  });
  const port = await listen(server);
  return { url: `http://127.0.0.1:${port}`, close: () => closeServer(server) };
}
