import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildServices } from '../../functions/build-services.js';
import { ManualClock } from '../../platform/clock.js';
import { loadConfig } from '../../platform/config.js';
import type { Database } from '../../platform/db/port.js';
import { MemoryRateLimiter } from '../../platform/limiter/memory.js';
import { UpstashRateLimiter } from '../../platform/limiter/upstash.js';
import { createLogger } from '../../platform/log.js';
import { LocalHashEmbedder, LocalModelProvider } from '../../platform/model/local.js';
import { OpenAiCompatibleProvider } from '../../platform/model/openai.js';
import { WorkersAiEmbedder, WorkersAiProvider } from '../../platform/model/workers-ai.js';
import { LocalTransport } from '../../queues/transport/local.js';
import { QStashTransport } from '../../queues/transport/qstash.js';
import { startFakeServer } from '../support/fake-http-server.js';

const rule = { limit: 10, windowSeconds: 60 };
/** A window boundary: 2026-01-15T12:00:00Z is a whole number of minutes since the epoch. */
const WINDOW_0 = '2026-01-15T12:00:00.000Z';
const windowEnd = (start: string, windows = 1) => new Date(start).getTime() + windows * 60_000;

describe('MemoryRateLimiter', () => {
  it('allows `limit` hits, counting remaining down, then refuses until the window ends', async () => {
    const clock = new ManualClock(WINDOW_0);
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 1; i <= 10; i++) {
      expect(await limiter.limit('ip:1', rule)).toEqual({
        success: true,
        limit: 10,
        remaining: 10 - i,
        reset: windowEnd(WINDOW_0),
      });
      await clock.advance(1000);
    }
    expect(await limiter.limit('ip:1', rule)).toEqual({
      success: false,
      limit: 10,
      remaining: 0,
      reset: windowEnd(WINDOW_0),
    });
    // Refused hits are not counted: still refused, not "more refused".
    expect((await limiter.limit('ip:1', rule)).success).toBe(false);
  });

  it('weights the previous window by its remaining overlap (sliding window)', async () => {
    const clock = new ManualClock(WINDOW_0);
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 10; i++) expect((await limiter.limit('k', rule)).success).toBe(true);
    // 50 % into window 1: the previous window's 10 hits count as 5, so 5 more are allowed.
    clock.set(new Date(windowEnd(WINDOW_0) + 30_000));
    const allowed: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await limiter.limit('k', rule);
      if (r.success) allowed.push(r.remaining);
      else expect(r).toEqual({ success: false, limit: 10, remaining: 0, reset: windowEnd(WINDOW_0, 2) });
    }
    expect(allowed).toEqual([4, 3, 2, 1, 0]);
    // 75 % into window 1: the previous window counts floor(10 × 0.25) = 2; with 5 in this window, 3 more.
    clock.set(new Date(windowEnd(WINDOW_0) + 45_000));
    let more = 0;
    while ((await limiter.limit('k', rule)).success) more++;
    expect(more).toBe(3);
    // Two windows on, nothing carries over.
    clock.set(new Date(windowEnd(WINDOW_0, 3)));
    expect(await limiter.limit('k', rule)).toEqual({
      success: true,
      limit: 10,
      remaining: 9,
      reset: windowEnd(WINDOW_0, 4),
    });
  });

  it('keeps keys and rules independent', async () => {
    const clock = new ManualClock(WINDOW_0);
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 10; i++) await limiter.limit('user:a', rule);
    expect((await limiter.limit('user:a', rule)).success).toBe(false);
    expect(await limiter.limit('user:b', rule)).toMatchObject({ success: true, remaining: 9 });
    // Keys that contain the separator (IPv6) do not collide or break the sweep.
    expect(await limiter.limit('ip:2001:db8::1', rule)).toMatchObject({ success: true, remaining: 9 });
    // The same key under a different window is a different counter.
    expect(await limiter.limit('user:a', { limit: 3, windowSeconds: 1 })).toMatchObject({
      success: true,
      remaining: 2,
      reset: new Date(WINDOW_0).getTime() + 1000,
    });
  });

  it('forgets old windows (bounded memory) without losing the previous one', async () => {
    const clock = new ManualClock(WINDOW_0);
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 10; i++) await limiter.limit('old', rule);
    // The sweep runs here; window 0 is now the previous window and still weighs floor(10 × 59999/60000) = 9.
    clock.set(new Date(windowEnd(WINDOW_0) + 1));
    expect(await limiter.limit('old', rule)).toMatchObject({ success: true, remaining: 0 });
    expect((await limiter.limit('old', rule)).success).toBe(false);
    // A window later window 0 no longer counts (window 1's single hit weighs floor(0.99998) = 0).
    clock.set(new Date(windowEnd(WINDOW_0, 2) + 1));
    expect(await limiter.limit('old', rule)).toMatchObject({ success: true, remaining: 9 });
  });
});

/**
 * A stand-in for the Upstash Redis REST API (127.0.0.1): POST /pipeline with JSON command arrays,
 * EVALSHA answered NOSCRIPT until the script has been sent with EVAL (as Redis does), and the
 * sliding-window script executed by a JavaScript transcription of its Lua. It proves the request
 * protocol and our mapping of the library's answer, not Redis itself.
 */
interface RedisFake {
  url: string;
  requests: { url: string; headers: IncomingHttpHeaders; commands: unknown[][] }[];
  store: Map<string, number>;
  scripts: Map<string, string>;
  hang: boolean;
  close(): Promise<void>;
}

async function startRedisFake(): Promise<RedisFake> {
  const fake: Omit<RedisFake, 'url' | 'close'> = { requests: [], store: new Map(), scripts: new Map(), hang: false };
  const runScript = (script: string, keys: string[], args: string[]): unknown => {
    if (!script.includes('requestsInPreviousWindow')) throw new Error('unexpected script');
    const [currentKey = '', previousKey = ''] = keys;
    const [tokens, now, window, incrementBy] = args.map(Number) as [number, number, number, number];
    const current = fake.store.get(currentKey) ?? 0;
    const previous = Math.floor((1 - (now % window) / window) * (fake.store.get(previousKey) ?? 0));
    if (incrementBy > 0 && previous + current >= tokens) return [-1, tokens];
    const value = current + incrementBy;
    fake.store.set(currentKey, value);
    return [tokens - (value + previous), tokens];
  };
  const run = (command: unknown[]): { result?: unknown; error?: string } => {
    const [name, ...rest] = command.map(String);
    const op = name?.toLowerCase();
    if (op === 'evalsha' || op === 'eval') {
      const [scriptOrSha = '', numKeys = '0', ...tail] = rest;
      const keys = tail.slice(0, Number(numKeys));
      const args = tail.slice(Number(numKeys));
      let script = scriptOrSha;
      if (op === 'evalsha') {
        const known = fake.scripts.get(scriptOrSha);
        if (!known) return { error: 'NOSCRIPT No matching script. Please use EVAL.' };
        script = known;
      } else {
        fake.scripts.set(createHash('sha1').update(script).digest('hex'), script);
      }
      return { result: runScript(script, keys, args) };
    }
    return { error: `ERR unknown command '${name}'` };
  };
  const server = await startFakeServer((req, res) => {
    if (fake.hang) return; // never answer
    const body = JSON.parse(req.body) as unknown;
    const commands = req.url === '/pipeline' ? (body as unknown[][]) : [body as unknown[]];
    fake.requests.push({ url: req.url, headers: req.headers, commands });
    const results = commands.map(run);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/pipeline' ? results : results[0]));
  });
  return {
    ...fake,
    get hang() {
      return fake.hang;
    },
    set hang(v: boolean) {
      fake.hang = v;
    },
    url: server.url,
    close: server.close,
  };
}

describe('UpstashRateLimiter against a local Upstash REST stand-in', () => {
  let redis: RedisFake;
  beforeAll(async () => {
    redis = await startRedisFake();
  });
  afterAll(async () => {
    await redis.close();
  });
  afterEach(() => {
    vi.useRealTimers();
    redis.requests.length = 0;
  });

  it('sends the sliding-window script with the right keys and arguments, and maps the answer', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(WINDOW_0));
    const limiter = new UpstashRateLimiter({ url: redis.url, token: 'redis-token' });
    const first = await limiter.limit('ip:9', rule);
    expect(first).toEqual({ success: true, limit: 10, remaining: 9, reset: windowEnd(WINDOW_0) });

    const window = Math.floor(new Date(WINDOW_0).getTime() / 60_000);
    const sent = redis.requests.flatMap((r) => r.commands);
    expect(redis.requests.every((r) => r.headers.authorization === 'Bearer redis-token')).toBe(true);
    // EVALSHA first; Redis does not know the script yet, so the library falls back to EVAL.
    expect(sent.map((c) => String(c[0]).toLowerCase())).toEqual(['evalsha', 'eval']);
    const evalCommand = sent[1] as unknown[];
    expect(evalCommand.slice(2).map(String)).toEqual([
      '2',
      `cip:rl:10/60:ip:9:${window}`,
      `cip:rl:10/60:ip:9:${window - 1}`,
      '10',
      String(new Date(WINDOW_0).getTime()),
      '60000',
      '1',
    ]);
    // The library's hard-coded script hash is the SHA-1 of the script it sends.
    expect(String(sent[0]?.[1])).toBe(createHash('sha1').update(String(evalCommand[1])).digest('hex'));

    redis.requests.length = 0;
    await limiter.limit('ip:9', rule);
    expect(redis.requests.flatMap((r) => r.commands).map((c) => String(c[0]).toLowerCase())).toEqual(['evalsha']);
  });

  it('behaves like the memory limiter: limit, refusal, and the sliding-window weighting', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(WINDOW_0));
    const limiter = new UpstashRateLimiter({ url: redis.url, token: 'redis-token' });
    const remaining: number[] = [];
    for (let i = 0; i < 10; i++) remaining.push((await limiter.limit('user:x', rule)).remaining);
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(await limiter.limit('user:x', rule)).toEqual({
      success: false,
      limit: 10,
      remaining: 0,
      reset: windowEnd(WINDOW_0),
    });
    expect((await limiter.limit('user:y', rule)).success).toBe(true);

    vi.setSystemTime(new Date(windowEnd(WINDOW_0) + 30_000));
    let allowed = 0;
    for (let i = 0; i < 8; i++) if ((await limiter.limit('user:x', rule)).success) allowed++;
    expect(allowed).toBe(5);
  });

  it('fails open when Redis does not answer, with honest limit headers', async () => {
    redis.hang = true;
    try {
      const limiter = new UpstashRateLimiter({ url: redis.url, token: 'redis-token' });
      // A limiter that waited on the hung Redis would hang here until the test's own timeout failed it.
      const result = await limiter.limit('ip:slow', rule);
      expect(result.success).toBe(true);
      expect(result.limit).toBe(10);
      expect(result.reset).toBeGreaterThan(Date.now());
      expect(result.reset).toBeLessThanOrEqual(Date.now() + 60_000);
    } finally {
      redis.hang = false;
    }
  }, 10_000);
});

describe('buildServices picks adapters from configuration', () => {
  // buildServices only passes the database through; no query runs here.
  const db = {} as Database;
  const base = { APP_ENV: 'test', LOG_LEVEL: 'silent', PUBLIC_URL: 'https://cip.example.com' };
  const secrets = { oauthSecret: 'o'.repeat(40), secretsEncryptionKey: 's'.repeat(48) };
  const build = (env: Record<string, string>) =>
    buildServices({
      config: loadConfig({ ...base, ...env }),
      db,
      ...secrets,
      localQueueKeys: { current: 'local_current', next: 'local_next' },
      clock: new ManualClock(),
      log: createLogger('silent'),
    });

  it('uses the memory limiter, the local transport and the local model by default', () => {
    const services = build({});
    expect(services.limiter).toBeInstanceOf(MemoryRateLimiter);
    expect(services.queue).toBeInstanceOf(LocalTransport);
    expect(services.queue.name).toBe('local');
    expect(services.queueSigningKeys).toEqual({ current: 'local_current', next: 'local_next' });
    expect(services.model).toBeInstanceOf(LocalModelProvider);
    expect(services.embedder).toBeInstanceOf(LocalHashEmbedder);
  });

  it('uses Upstash when UPSTASH_REDIS_REST_URL and _TOKEN are set', () => {
    const services = build({
      UPSTASH_REDIS_REST_URL: 'https://eu1-example.upstash.io',
      UPSTASH_REDIS_REST_TOKEN: 'tok',
    });
    expect(services.limiter).toBeInstanceOf(UpstashRateLimiter);
  });

  it('uses QStash, with its signing keys, when QSTASH_* are set', () => {
    const services = build({
      QSTASH_TOKEN: 'qt',
      QSTASH_CURRENT_SIGNING_KEY: 'sig_c',
      QSTASH_NEXT_SIGNING_KEY: 'sig_n',
      QSTASH_URL: 'http://127.0.0.1:1',
    });
    expect(services.queue).toBeInstanceOf(QStashTransport);
    expect(services.queue.name).toBe('qstash');
    expect(services.queueSigningKeys).toEqual({ current: 'sig_c', next: 'sig_n' });
  });

  it('uses the OpenAI-compatible provider for MODEL_PROVIDER=openai, with its settings', () => {
    const services = build({
      MODEL_PROVIDER: 'openai',
      OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
      OPENAI_API_KEY: 'sk-x',
      OPENAI_MODEL: 'gpt-test',
      OPENAI_EMBEDDING_MODEL: 'emb-test',
    });
    expect(services.model).toBeInstanceOf(OpenAiCompatibleProvider);
    expect(services.model.id).toBe('openai:gpt-test');
    expect(services.embedder.id).toBe('openai:emb-test@384');
    expect(services.embedder.dimensions).toBe(384);
  });

  it('uses Workers AI only with its binding', () => {
    const ai = { run: async () => ({}) };
    const config = loadConfig({ ...base, MODEL_PROVIDER: 'workers_ai' });
    const services = buildServices({
      config,
      db,
      ...secrets,
      localQueueKeys: { current: 'c', next: 'n' },
      workersAi: ai,
      log: createLogger('silent'),
    });
    expect(services.model).toBeInstanceOf(WorkersAiProvider);
    expect(services.embedder).toBeInstanceOf(WorkersAiEmbedder);
    expect(services.embedder.id).toBe('workers_ai:@cf/baai/bge-small-en-v1.5');
    expect(() =>
      buildServices({
        config,
        db,
        ...secrets,
        localQueueKeys: { current: 'c', next: 'n' },
        log: createLogger('silent'),
      }),
    ).toThrow(/AI binding/);
  });
});
