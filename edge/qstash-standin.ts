import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { signDelivery } from '../queues/transport/signing.js';
import { closeServer, listen, readBody, sendJson, sleep } from './http-util.js';

/**
 * A QStash stand-in for the edge stack: `POST /v2/publish/<destination>` and `POST /v2/batch` as
 * `@upstash/qstash`'s Client sends them, then each message delivered to its destination after its
 * `Upstash-Delay`, signed like QStash (`Upstash-Signature`, an HS256 JWT over the destination and the
 * body's SHA-256, with the current signing key), with `Upstash-Message-Id` and `Upstash-Retried`, and
 * retried on a non-2xx answer or a network error up to `Upstash-Retries` times.
 *
 * Not QStash: retries back off 0.5 s, 1 s, 2 s, ... (QStash waits much longer), there are no queues,
 * schedules, callbacks or DLQ, and deduplication ids are remembered for the stand-in's lifetime.
 */

export interface QStashStandinCounters {
  /** Publish requests and batch requests (one HTTP round trip each from the worker). */
  publishRequests: number;
  /** Messages accepted (a batch counts each). */
  messages: number;
  /** Delivery attempts, and those answered 2xx. */
  attempts: number;
  delivered: number;
  /** Messages given up after their last retry. */
  failed: number;
}

export interface QStashStandin {
  readonly url: string;
  counters(): QStashStandinCounters;
  resetCounters(): void;
  setOneWayDelay(ms: number): void;
  /** Resolves true when no message is waiting or being delivered (false at the timeout). */
  whenIdle(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

interface Message {
  id: string;
  destination: string;
  body: string;
  contentType: string;
  forwardHeaders: Record<string, string>;
  retries: number;
}

const DEFAULT_RETRIES = 3;

/** `Upstash-Delay`: `<n>s|m|h|d`; QStash also takes a bare number of seconds. */
export function parseDelay(value: string | undefined): number {
  if (!value) return 0;
  const match = /^(\d+)\s*(s|m|h|d)?$/.exec(value.trim());
  if (!match) throw new Error(`invalid Upstash-Delay "${value}"`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[(match[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit * 1000;
}

/** The publish path carries the destination URL verbatim (the client joins it with '/'). */
export function destinationOf(path: string): string {
  const raw = path.replace(/^\/v2\/publish\//, '');
  const decoded = /^https?%3A/i.test(raw) ? decodeURIComponent(raw) : raw;
  // A URL parser may collapse `http://` in a path to `http:/`.
  return decoded.replace(/^(https?:)\/(?!\/)/, '$1//');
}

export async function startQStashStandin(options: {
  token: string;
  currentSigningKey: string;
  oneWayDelayMs?: number;
  /**
   * Awaited before each delivery attempt; deliveries then go one at a time. The local stack passes a
   * wait for the worker's database traffic to go quiet: its Postgres is PGlite behind pglite-socket, one
   * session for every connection, where two requests' statements can interleave (an unnamed statement
   * of one bound with another's parameters). Real QStash delivers concurrently; the PostgreSQL tier
   * (npm run test:pg) is where concurrency is tested.
   */
  beforeDelivery?: () => Promise<void>;
}): Promise<QStashStandin> {
  let oneWayDelayMs = options.oneWayDelayMs ?? 0;
  const counters: QStashStandinCounters = { publishRequests: 0, messages: 0, attempts: 0, delivered: 0, failed: 0 };
  const deduplicated = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();
  let inFlight = 0;
  const idleWaiters = new Set<() => void>();
  let closing = false;

  const settle = () => {
    if (timers.size === 0 && inFlight === 0) for (const wake of [...idleWaiters]) wake();
  };

  const schedule = (fn: () => Promise<void>, delayMs: number) => {
    const timer = setTimeout(async () => {
      timers.delete(timer);
      inFlight += 1;
      try {
        await fn();
      } finally {
        inFlight -= 1;
        settle();
      }
    }, delayMs);
    timers.add(timer);
  };

  let deliveries: Promise<void> = Promise.resolve();
  const deliver = (message: Message, retried: number): Promise<void> => {
    const turn = deliveries.then(async () => {
      await options.beforeDelivery?.();
      await deliverNow(message, retried);
    });
    deliveries = turn.catch(() => {});
    return turn;
  };

  const deliverNow = async (message: Message, retried: number): Promise<void> => {
    if (closing) return;
    counters.attempts += 1;
    let ok = false;
    try {
      const response = await fetch(message.destination, {
        method: 'POST',
        headers: {
          ...message.forwardHeaders,
          'content-type': message.contentType,
          'upstash-signature': await signDelivery(options.currentSigningKey, message.destination, message.body),
          'upstash-message-id': message.id,
          'upstash-retried': String(retried),
        },
        body: message.body,
      });
      await response.arrayBuffer();
      ok = response.ok;
    } catch {
      ok = false;
    }
    if (ok) {
      counters.delivered += 1;
      return;
    }
    if (retried >= message.retries) {
      counters.failed += 1;
      return;
    }
    schedule(() => deliver(message, retried + 1), Math.min(10_000, 500 * 2 ** retried));
  };

  /** Accept one message from its headers; answers what QStash answers for it. */
  const accept = (
    destination: string,
    headers: Record<string, string | undefined>,
    body: string,
  ): { messageId: string; deduplicated?: true } => {
    const dedupId = headers['upstash-deduplication-id'];
    if (dedupId) {
      const seen = deduplicated.get(dedupId);
      if (seen) return { messageId: seen, deduplicated: true };
    }
    const forwardHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value && name.startsWith('upstash-forward-')) forwardHeaders[name.slice('upstash-forward-'.length)] = value;
    }
    const message: Message = {
      id: `msg_${randomUUID()}`,
      destination,
      body,
      contentType: headers['content-type'] ?? 'application/json',
      forwardHeaders,
      retries: headers['upstash-retries'] === undefined ? DEFAULT_RETRIES : Number(headers['upstash-retries']),
    };
    if (dedupId) deduplicated.set(dedupId, message.id);
    counters.messages += 1;
    const notBefore = headers['upstash-not-before'];
    const delayMs = notBefore
      ? Math.max(0, Number(notBefore) * 1000 - Date.now())
      : parseDelay(headers['upstash-delay']);
    schedule(() => deliver(message, 0), delayMs);
    return { messageId: message.id };
  };

  const flatHeaders = (headers: IncomingHttpHeaders): Record<string, string | undefined> =>
    Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));

  const server = createServer(async (req, res) => {
    try {
      if (req.headers.authorization !== `Bearer ${options.token}`) {
        sendJson(res, 401, { error: 'invalid token' });
        return;
      }
      const body = (await readBody(req)).toString('utf8');
      const path = req.url ?? '/';
      if (req.method !== 'POST') {
        sendJson(res, 405, { error: 'the stand-in serves POST /v2/publish/<url> and POST /v2/batch' });
        return;
      }
      counters.publishRequests += 1;
      if (oneWayDelayMs > 0) await sleep(2 * oneWayDelayMs);
      if (path.startsWith('/v2/publish/')) {
        sendJson(res, 201, accept(destinationOf(path), flatHeaders(req.headers), body));
        return;
      }
      if (path === '/v2/batch') {
        const messages = JSON.parse(body) as { destination: string; headers?: Record<string, string>; body?: string }[];
        const answers = messages.map((m) => {
          const headers = Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
          return accept(m.destination, headers, m.body ?? '');
        });
        sendJson(res, 201, answers);
        return;
      }
      sendJson(res, 404, { error: `the stand-in does not serve ${path}` });
    } catch (error) {
      sendJson(res, 400, { error: String(error) });
    }
  });
  const port = await listen(server);

  return {
    url: `http://127.0.0.1:${port}`,
    counters: () => ({ ...counters }),
    resetCounters: () => {
      Object.assign(counters, { publishRequests: 0, messages: 0, attempts: 0, delivered: 0, failed: 0 });
    },
    setOneWayDelay: (ms) => {
      oneWayDelayMs = ms;
    },
    whenIdle(timeoutMs) {
      if (timers.size === 0 && inFlight === 0) return Promise.resolve(true);
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
      closing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await closeServer(server);
    },
  };
}
