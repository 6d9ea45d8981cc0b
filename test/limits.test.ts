import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MONTHLY_CAPS, consumeQuota, readQuota } from '../functions/limits/quota.js';
import { allOperations } from '../functions/modules.js';
import { defineOperation } from '../functions/registry.js';
import { ManualClock } from '../platform/clock.js';
import { ConfigError, loadConfig } from '../platform/config.js';
import { usageCounters, workspaces } from '../schema/index.js';
import {
  createHarness,
  type Harness,
  type RequestOptions,
  type SeededWorkspace,
  type TestResponse,
} from './support/harness.js';
import { expectError } from './support/security-suite.js';

/** The global per-IP limiter, the per-user per-operation limit and the monthly verb quotas (spec, Limits). */

const WINDOW_MS = 60_000;

function expectRateLimitHeaders(
  res: TestResponse,
  limit: number,
  remaining: number | undefined,
  now: Date,
  label: string,
): void {
  expect(res.headers.get('x-ratelimit-limit'), label).toBe(String(limit));
  if (remaining !== undefined) expect(res.headers.get('x-ratelimit-remaining'), label).toBe(String(remaining));
  const reset = Number(res.headers.get('x-ratelimit-reset'));
  // Unix seconds (not milliseconds), the end of the current window.
  expect(Number.isInteger(reset), label).toBe(true);
  expect(reset, label).toBe(Math.ceil(((Math.floor(now.getTime() / WINDOW_MS) + 1) * WINDOW_MS) / 1000));
}

function setQuotaOverrides(h: Harness, workspaceId: string, overrides: Record<string, number | null>) {
  return h.database.db.update(workspaces).set({ quotaOverrides: overrides }).where(eq(workspaces.id, workspaceId));
}

describe('global per-IP limit (RATE_LIMIT_GLOBAL_PER_MIN=3)', () => {
  const clock = new ManualClock('2026-05-20T10:00:00.000Z');
  let h: Harness;
  let ws: SeededWorkspace;
  const from = (ip: string, auth: RequestOptions = { key: ws.viewer.key }): RequestOptions => ({
    ...auth,
    headers: { 'x-forwarded-for': ip, ...auth.headers },
  });

  beforeAll(async () => {
    h = await createHarness({ clock, env: { RATE_LIMIT_GLOBAL_PER_MIN: '3' } });
    ws = await h.seedWorkspace();
  });
  afterAll(async () => h?.close());

  it('refuses the 4th request in a minute from one address with 429 rate_limited, Retry-After and the rule in details', async () => {
    const ip = '203.0.113.10';
    for (let i = 0; i < 3; i++) {
      const res = await h.request('GET', '/setup/status', from(ip));
      expect(res.status).toBe(200);
      expectRateLimitHeaders(res, 3, 2 - i, clock.now(), `request ${i + 1}`);
    }
    const refused = await h.request('GET', '/setup/status', from(ip));
    expectError(refused, 429, 'rate_limited', '4th request');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.body.error.details).toEqual({ retry_after_seconds: retryAfter, limit: 3, window_seconds: 60 });
    expectRateLimitHeaders(refused, 3, 0, clock.now(), '429');

    // Another address is unaffected.
    expect((await h.request('GET', '/setup/status', from('203.0.113.11'))).status).toBe(200);

    // Honouring Retry-After (plus a second of slack) gets through again.
    await clock.advance((retryAfter + 1) * 1000);
    const again = await h.request('GET', '/setup/status', from(ip));
    expect(again.status, again.text).toBe(200);
    expectRateLimitHeaders(again, 3, undefined, clock.now(), 'after the window');
  });

  it('sets X-RateLimit-* on every response under the prefix: success, 401, 404 and the OpenAPI document', async () => {
    const ip = '203.0.113.20';
    const responses = [
      await h.request('GET', '/setup/status', from(ip)),
      await h.request('GET', '/setup/status', from(ip, {})),
      await h.request('GET', '/no/such/route', from(ip)),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 404]);
    responses.forEach((res, i) => expectRateLimitHeaders(res, 3, 2 - i, clock.now(), `response ${i + 1}`));
    const doc = await h.fetch('/api/platform/v1/openapi.json', { headers: { 'x-forwarded-for': '203.0.113.21' } });
    expect(doc.status).toBe(200);
    expect(doc.headers.get('x-ratelimit-limit')).toBe('3');
    expect(doc.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('counts each request once on the routes mounted beside the operations (push ingest, the connections OAuth callback)', async () => {
    for (const [i, path] of [
      '/api/platform/v1/connections/00000000-0000-4000-8000-000000000009/ingest',
      '/api/platform/v1/connections/oauth/callback',
    ].entries()) {
      const ip = `203.0.113.5${i}`;
      const method = path.endsWith('ingest') ? 'POST' : 'GET';
      const first = await h.fetch(path, { method, headers: { 'x-forwarded-for': ip } });
      const second = await h.fetch(path, { method, headers: { 'x-forwarded-for': ip } });
      expect([first.headers.get('x-ratelimit-remaining'), second.headers.get('x-ratelimit-remaining')], path).toEqual([
        '2',
        '1',
      ]);
    }
  });

  it('applies before authentication: an unauthenticated flood is limited, and then so is the address', async () => {
    const ip = '203.0.113.30';
    for (let i = 0; i < 3; i++)
      expectError(await h.request('GET', '/setup/status', from(ip, {})), 401, 'unauthenticated', `anonymous ${i + 1}`);
    expectError(await h.request('GET', '/setup/status', from(ip, {})), 429, 'rate_limited', 'anonymous 4th');
    expectError(
      await h.request('GET', '/setup/status', from(ip, { headers: { 'x-api-key': 'nope' } })),
      429,
      'rate_limited',
      'bad key',
    );
    expectError(await h.request('GET', '/setup/status', from(ip)), 429, 'rate_limited', 'valid key, same address');
  });

  it('is shared across every route under the prefix', async () => {
    const ip = '203.0.113.40';
    await h.request('GET', '/setup/status', from(ip));
    await h.request(
      'POST',
      '/mcp',
      from(ip, {
        key: ws.viewer.key,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      }),
    );
    await h.request('GET', '/nothing-here', from(ip));
    expectError(await h.request('GET', '/setup/status', from(ip)), 429, 'rate_limited', '4th across routes');
  });

  it('keys on the address the trusted proxy saw: forged leading X-Forwarded-For entries do not evade it', async () => {
    const real = '198.51.100.7';
    for (let i = 0; i < 3; i++) {
      expect((await h.request('GET', '/setup/status', from(`10.0.0.${i}, ${real}`))).status).toBe(200);
    }
    expectError(
      await h.request('GET', '/setup/status', from(`10.9.9.9, ${real}`)),
      429,
      'rate_limited',
      'forged first hop',
    );
    expectError(await h.request('GET', '/setup/status', from(real)), 429, 'rate_limited', 'plain');
  });

  it('defaults to 500/min in development and test, 100/min in production; the variable overrides both', () => {
    expect(loadConfig({}).globalRateLimitPerMinute).toBe(500);
    expect(loadConfig({ APP_ENV: 'development' }).globalRateLimitPerMinute).toBe(500);
    expect(loadConfig({ APP_ENV: 'test' }).globalRateLimitPerMinute).toBe(500);
    const production = {
      APP_ENV: 'production',
      DATABASE_URL: 'postgres://user:pass@db.example.com/cip',
      PUBLIC_URL: 'https://api.example.com',
      OAUTH_SIGNING_SECRET: 'p'.repeat(40),
      SECRETS_ENCRYPTION_KEY: 'k'.repeat(40),
      UPSTASH_REDIS_REST_URL: 'https://redis.example.com',
      UPSTASH_REDIS_REST_TOKEN: 'redis-token',
      QSTASH_TOKEN: 'qstash-token',
      QSTASH_CURRENT_SIGNING_KEY: 'sig_current',
      QSTASH_NEXT_SIGNING_KEY: 'sig_next',
    };
    expect(loadConfig(production).globalRateLimitPerMinute).toBe(100);
    expect(loadConfig({ ...production, RATE_LIMIT_GLOBAL_PER_MIN: '60' }).globalRateLimitPerMinute).toBe(60);
    expect(loadConfig({ RATE_LIMIT_GLOBAL_PER_MIN: '42' }).globalRateLimitPerMinute).toBe(42);
    expect(() => loadConfig({ RATE_LIMIT_GLOBAL_PER_MIN: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ RATE_LIMIT_GLOBAL_PER_MIN: 'lots' })).toThrow(/RATE_LIMIT_GLOBAL_PER_MIN/);
  });
});

const limitedOp = defineOperation({
  id: 'limits_probe.limited',
  method: 'get',
  path: '/limits-probe/limited',
  summary: 'Two calls per minute per user (probe)',
  tags: ['Probe'],
  scopes: [],
  minRole: 'viewer',
  stability: 'stable',
  visibility: 'public',
  rateLimit: { limit: 2, windowSeconds: 60 },
  output: z.object({ ok: z.boolean() }),
  async handler() {
    return { ok: true };
  },
});

const researchOp = defineOperation({
  id: 'limits_probe.research',
  method: 'post',
  path: '/limits-probe/research',
  summary: 'Counted against the research quota (probe)',
  tags: ['Probe'],
  scopes: ['conversations:write'],
  minRole: 'viewer',
  stability: 'stable',
  visibility: 'public',
  quota: 'research',
  body: z.object({ question: z.string().min(3) }).strict(),
  output: z.object({ accepted: z.boolean() }),
  successStatus: 202,
  async handler() {
    return { accepted: true };
  },
});

describe('per-operation limits and monthly quotas', () => {
  const clock = new ManualClock('2026-05-20T10:00:00.000Z');
  let h: Harness;

  beforeAll(async () => {
    h = await createHarness({ clock, operations: [...allOperations, limitedOp, researchOp] });
  });
  afterAll(async () => h?.close());

  const research = (
    ws: SeededWorkspace,
    auth: RequestOptions = { key: ws.editor.key },
    question = 'Why do deals stall?',
  ) => h.request('POST', '/limits-probe/research', { ...auth, body: { question } });
  const usedResearch = async (ws: SeededWorkspace) =>
    (await readQuota(h.database.db, ws.id, 'research', clock.now()))?.used;

  describe('per-user per-operation limit (2 per 60 s)', () => {
    it('refuses the same user’s 3rd call with 429 and the operation’s own limit; other users are unaffected', async () => {
      const ws = await h.seedWorkspace();
      for (let i = 0; i < 2; i++) {
        const res = await h.request('GET', '/limits-probe/limited', { key: ws.editor.key });
        expect(res.status).toBe(200);
        // The tighter limit (this operation's) is the one the headers describe.
        expectRateLimitHeaders(res, 2, 1 - i, clock.now(), `call ${i + 1}`);
      }
      const refused = await h.request('GET', '/limits-probe/limited', { key: ws.editor.key });
      expectError(refused, 429, 'rate_limited', '3rd call');
      expect(refused.body.error.details).toMatchObject({ limit: 2, window_seconds: 60 });
      expect(refused.headers.get('retry-after')).toBe(String(refused.body.error.details.retry_after_seconds));
      expectRateLimitHeaders(refused, 2, 0, clock.now(), '429');

      // The limit is per user, not per credential.
      const token = await ws.tokenFor(ws.editor, []);
      expectError(
        await h.request('GET', '/limits-probe/limited', { bearer: token }),
        429,
        'rate_limited',
        'same user, OAuth',
      );
      // Another user of the same workspace has their own budget, and other operations are not limited.
      expect((await h.request('GET', '/limits-probe/limited', { key: ws.viewer.key })).status).toBe(200);
      expect((await h.request('GET', '/setup/status', { key: ws.editor.key })).status).toBe(200);

      await clock.advance(2 * WINDOW_MS);
      expect((await h.request('GET', '/limits-probe/limited', { key: ws.editor.key })).status).toBe(200);
    });
  });

  describe('search.query: 10 a minute per user, counting only requests that pass validation', () => {
    const searchAs = (key: string, body: unknown) => h.request('POST', '/search/query', { key, body });
    const VALID = { surface: 'deals', metrics: [{ fn: 'count' }] };
    const REFUSED: { label: string; body: unknown }[] = [
      { label: 'an unknown field (schema)', body: { ...VALID, nope: 1 } },
      { label: 'a JSON null body', body: 'null' },
      { label: 'a NUL in the query', body: { query: 'pricing\u0000' } },
      // Refused by the handler after the call was counted: the unit comes back.
      {
        label: 'a field the vocabulary does not know',
        body: { surface: 'deals', filters: [{ field: 'nope', op: 'eq', value: 1 }] },
      },
      { label: 'job_id with other fields', body: { job_id: '01936f0e-7c1a-7b3e-9d2a-4a1b2c3d4e5f', query: 'x' } },
    ];

    it('a 400 spends none of the budget, and every answer shows the search budget, not the global one', async () => {
      const ws = await h.seedWorkspace();
      const key = ws.editor.key;
      for (let round = 0; round < 3; round++) {
        for (const { label, body } of REFUSED) {
          const res = await searchAs(key, body);
          expectError(res, 400, 'invalid_argument', label);
          expectRateLimitHeaders(res, 10, 10, clock.now(), `${label}, round ${round + 1}`);
        }
      }
      for (let i = 0; i < 10; i++) {
        const res = await searchAs(key, VALID);
        expect(res.status, res.text).toBe(200);
        expectRateLimitHeaders(res, 10, 9 - i, clock.now(), `valid call ${i + 1}`);
        // A refusal in between shows what is left and takes nothing. (One the handler itself refuses
        // is judged only with a unit in hand, which it then gives back: after the 10th valid call the
        // budget is spent, so the last probe is one the schema refuses.)
        const refused = await searchAs(key, REFUSED[i === 9 ? 0 : i % REFUSED.length]?.body);
        expectError(refused, 400, 'invalid_argument', `refusal after valid call ${i + 1}`);
        expectRateLimitHeaders(refused, 10, 9 - i, clock.now(), `refusal after valid call ${i + 1}`);
      }
      const limited = await searchAs(key, VALID);
      expectError(limited, 429, 'rate_limited', '11th valid call');
      expectRateLimitHeaders(limited, 10, 0, clock.now(), '429');
      const stillInvalid = await searchAs(key, REFUSED[0]?.body);
      expectError(stillInvalid, 400, 'invalid_argument', 'schema refusal with the budget spent');
      expectRateLimitHeaders(stillInvalid, 10, 0, clock.now(), 'schema refusal with the budget spent');
      await clock.advance(2 * WINDOW_MS);
    });
  });

  describe('monthly quota (research)', () => {
    it('caps at 100 per workspace by default', async () => {
      const ws = await h.seedWorkspace();
      expect(DEFAULT_MONTHLY_CAPS.research).toBe(100);
      expect(await readQuota(h.database.db, ws.id, 'research', clock.now())).toMatchObject({
        limit: 100,
        used: 0,
        remaining: 100,
      });
    });

    it('refuses the call past the workspace’s cap with 429 quota_exceeded naming the family, limit and usage', async () => {
      const ws = await h.seedWorkspace();
      await setQuotaOverrides(h, ws.id, { research: 2 });
      expect((await research(ws)).status).toBe(202);
      expect((await research(ws, { key: ws.viewer.key })).status).toBe(202);
      const refused = await research(ws);
      expectError(refused, 429, 'quota_exceeded', '3rd call');
      expect(refused.body.error.details).toMatchObject({
        family: 'research',
        limit: 2,
        used: 2,
        resets_at: '2026-06-01T00:00:00.000Z',
      });
      expect(await usedResearch(ws)).toBe(2);
      // The cap is the workspace's: another workspace is unaffected.
      const elsewhere = await h.seedWorkspace();
      expect((await research(elsewhere)).status).toBe(202);
    });

    it('never lets concurrent calls past the cap: 10 at once with a cap of 5 → exactly 5 accepted', {
      tags: ['race'],
    }, async () => {
      const ws = await h.seedWorkspace();
      await setQuotaOverrides(h, ws.id, { research: 5 });
      const members = [ws.admin, ws.editor, ws.viewer];
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => research(ws, { key: (members[i % 3] ?? ws.admin).key })),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 202)).toHaveLength(5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(5);
      for (const r of results.filter((x) => x.status === 429)) expect(r.body.error.code).toBe('quota_exceeded');
      expect(await usedResearch(ws)).toBe(5);
    });

    it('does not count refused or invalid calls', async () => {
      const ws = await h.seedWorkspace();
      await setQuotaOverrides(h, ws.id, { research: 1 });
      expectError(await research(ws, undefined, 'no'), 400, 'invalid_argument', 'too short');
      expectError(
        await h.request('POST', '/limits-probe/research', { key: ws.editor.key, body: { question: 'Why?', extra: 1 } }),
        400,
        'invalid_argument',
        'unknown field',
      );
      expectError(
        await h.request('POST', '/limits-probe/research', { key: ws.editor.key, body: '{"question":' }),
        400,
        'invalid_argument',
        'malformed JSON',
      );
      const { key: readOnly } = await ws.keyFor(ws.editor, 'read_only');
      expectError(await research(ws, { key: readOnly }), 403, 'scope_denied', 'no conversations:write');
      expect(await usedResearch(ws)).toBe(0);
      expect((await research(ws)).status).toBe(202);
      expectError(await research(ws), 429, 'quota_exceeded', 'cap of 1 used');
    });

    it('resets when the month rolls over', async () => {
      const ws = await h.seedWorkspace();
      await setQuotaOverrides(h, ws.id, { research: 1 });
      const start = clock.now();
      try {
        clock.set('2026-05-31T23:59:59.000Z');
        expect((await research(ws)).status).toBe(202);
        expectError(await research(ws), 429, 'quota_exceeded', 'end of May');
        clock.set('2026-06-01T00:00:00.000Z');
        expect((await research(ws)).status).toBe(202);
        expectError(await research(ws), 429, 'quota_exceeded', 'June, cap used again');
        const rows = await h.database.db
          .select({ period: usageCounters.period, used: usageCounters.used })
          .from(usageCounters)
          .where(and(eq(usageCounters.workspaceId, ws.id), eq(usageCounters.family, 'research')))
          .orderBy(usageCounters.period);
        expect(rows).toEqual([
          { period: '2026-05', used: 1 },
          { period: '2026-06', used: 1 },
        ]);
      } finally {
        clock.set(start);
      }
    });

    it('a cap overridden to 0 refuses the first call and counts nothing', async () => {
      const ws = await h.seedWorkspace();
      await setQuotaOverrides(h, ws.id, { research: 0 });
      const refused = await research(ws);
      expectError(refused, 429, 'quota_exceeded', 'cap of 0');
      expect(refused.body.error.details).toMatchObject({ family: 'research', limit: 0, used: 0 });
      const rows = await h.database.db.select().from(usageCounters).where(eq(usageCounters.workspaceId, ws.id));
      expect(rows).toEqual([]);
    });

    it('a cap overridden to null is unmetered', async () => {
      const ws = await h.seedWorkspace();
      await setQuotaOverrides(h, ws.id, { research: null });
      expect(await readQuota(h.database.db, ws.id, 'research', clock.now())).toBeNull();
      for (let i = 0; i < 3; i++) expect((await research(ws)).status).toBe(202);
    });
  });

  describe('setup/status and the optimizer quota', () => {
    it('reports quota_exhausted once the workspace has used its optimizer cap', async () => {
      const ws = await h.seedWorkspace();
      await setQuotaOverrides(h, ws.id, { optimizer: 1 });
      const status = () => h.request('GET', '/setup/status', { key: ws.editor.key });
      expect((await status()).body.data.optimize).toMatchObject({
        allowed: true,
        blocker: null,
        quota: { limit: 1, used: 0, remaining: 1 },
      });
      await consumeQuota(h.database.db, ws.id, 'optimizer', clock.now());
      const after = (await status()).body.data;
      expect(after.caller.scopes).toContain('messages:execute');
      expect(after.caller.role).toBe('editor');
      expect(after.optimize).toMatchObject({
        allowed: false,
        blocker: 'quota_exhausted',
        quota: { limit: 1, used: 1, remaining: 0 },
      });
      await expect(consumeQuota(h.database.db, ws.id, 'optimizer', clock.now())).rejects.toMatchObject({
        code: 'quota_exceeded',
      });
    });
  });
});
