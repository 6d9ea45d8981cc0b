import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { closeServer, listen, readBody, sendJson, sleep } from './http-util.js';

/**
 * An Upstash Redis REST stand-in speaking exactly what `@upstash/ratelimit` sends for our limiter
 * (platform/limiter/upstash.ts: single-region sliding window, no dynamic limits, no deny lists):
 * `POST /` with one JSON command array or, as `@upstash/redis` auto-pipelines, `POST /pipeline`
 * with an array of them, each `EVALSHA <sha> <numkeys> keys... args...`, falling back to
 * `EVAL <script> ...` on NOSCRIPT. The one script is implemented in TypeScript below; any other
 * command or script is an error, so a library upgrade that changes the script fails the edge tier
 * loudly instead of passing through a stand-in that guessed.
 */

/** sha1 of `SCRIPTS.singleRegion.slidingWindow.limit` in @upstash/ratelimit 2.x (checked against EVAL's text). */
export const SLIDING_WINDOW_LIMIT_SHA = '74740bb3d7792848093cdef586b6b6037c455fd6';

export interface RedisStandinCounters {
  /** REST requests (one HTTP round trip each). */
  requests: number;
}

export interface RedisStandin {
  readonly url: string;
  readonly token: string;
  counters(): RedisStandinCounters;
  resetCounters(): void;
  setOneWayDelay(ms: number): void;
  /** Forget every key (FLUSHALL): a bench repeating a request past its limit starts each sample afresh. */
  flush(): void;
  close(): Promise<void>;
}

interface Entry {
  value: number;
  expiresAt: number | null;
}

export async function startRedisStandin(options: { token: string; oneWayDelayMs?: number }): Promise<RedisStandin> {
  let oneWayDelayMs = options.oneWayDelayMs ?? 0;
  const counters: RedisStandinCounters = { requests: 0 };
  const store = new Map<string, Entry>();

  const get = (key: string, now: number): number => {
    const entry = store.get(key);
    if (!entry) return 0;
    if (entry.expiresAt !== null && entry.expiresAt <= now) {
      store.delete(key);
      return 0;
    }
    return entry.value;
  };

  /** The sliding-window limit script, line for line (see the Lua in @upstash/ratelimit). */
  const slidingWindowLimit = (keys: string[], args: string[]): [number, number] => {
    const [currentKey = '', previousKey = ''] = keys;
    const tokens = Number(args[0]);
    const now = Number(args[1]);
    const window = Number(args[2]);
    const incrementBy = Number(args[3]);
    const wallClock = Date.now();
    const current = get(currentKey, wallClock);
    const previousWeighted = Math.floor((1 - (now % window) / window) * get(previousKey, wallClock));
    if (incrementBy > 0 && previousWeighted + current >= tokens) return [-1, tokens];
    const newValue = current + incrementBy;
    const existing = store.get(currentKey);
    store.set(currentKey, { value: newValue, expiresAt: existing?.expiresAt ?? null });
    if (newValue === incrementBy) {
      const entry = store.get(currentKey) as Entry;
      entry.expiresAt = wallClock + window * 2 + 1000;
    }
    return [tokens - (newValue + previousWeighted), tokens];
  };

  const run = (command: unknown[]): { result: unknown } | { error: string } => {
    const [name, ...rest] = command.map((part) => (part === null ? '' : String(part)));
    const verb = (name ?? '').toUpperCase();
    if (verb === 'PING') return { result: 'PONG' };
    if (verb !== 'EVALSHA' && verb !== 'EVAL') return { error: `ERR unsupported command '${verb}' in the stand-in` };
    const [scriptOrSha = '', numKeysText = '0', ...tail] = rest;
    const sha = verb === 'EVAL' ? createHash('sha1').update(scriptOrSha).digest('hex') : scriptOrSha;
    if (sha !== SLIDING_WINDOW_LIMIT_SHA) {
      return verb === 'EVALSHA'
        ? { error: 'NOSCRIPT No matching script. Please use EVAL.' }
        : { error: `ERR the stand-in does not implement the script ${sha}` };
    }
    const numKeys = Number(numKeysText);
    return { result: slidingWindowLimit(tail.slice(0, numKeys), tail.slice(numKeys)) };
  };

  const server = createServer(async (req, res) => {
    try {
      if (req.headers.authorization !== `Bearer ${options.token}`) {
        sendJson(res, 401, { error: 'Unauthorized' });
        return;
      }
      const body = JSON.parse((await readBody(req)).toString('utf8')) as unknown;
      counters.requests += 1;
      if (oneWayDelayMs > 0) await sleep(2 * oneWayDelayMs);
      const path = new URL(req.url ?? '/', 'http://redis').pathname;
      if (path === '/pipeline' && Array.isArray(body) && body.every(Array.isArray)) {
        sendJson(res, 200, (body as unknown[][]).map(run));
        return;
      }
      if (path !== '/' || !Array.isArray(body)) {
        sendJson(res, 400, { error: 'ERR the stand-in takes a command array at / or an array of them at /pipeline' });
        return;
      }
      const answer = run(body);
      sendJson(res, 'error' in answer ? 400 : 200, answer);
    } catch (error) {
      sendJson(res, 500, { error: `ERR ${String(error)}` });
    }
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    token: options.token,
    counters: () => ({ ...counters }),
    resetCounters: () => {
      counters.requests = 0;
    },
    setOneWayDelay: (ms) => {
      oneWayDelayMs = ms;
    },
    flush: () => store.clear(),
    close: () => closeServer(server),
  };
}
