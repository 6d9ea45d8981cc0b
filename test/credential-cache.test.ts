import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { CredentialCache, CREDENTIAL_CACHE_TTL_MS, lastUsedRecorder } from '../functions/identity/credential-cache.js';
import { removeMembership } from '../functions/identity/members.js';
import { ManualClock } from '../platform/clock.js';
import { ApiError } from '../platform/errors.js';
import { apiKeys } from '../schema/index.js';
import { createHarness, openTestDatabase, type Harness, type SeededWorkspace } from './support/harness.js';

/**
 * The verified-credential cache: a hit costs no statement, refusals are cached, expiry is exact,
 * a change made through this process shows at once, one made elsewhere within the TTL.
 */
const clock = new ManualClock('2026-11-24T08:00:00.000Z');
const statements: string[] = [];
let h: Harness;
let ws: SeededWorkspace;

beforeAll(async () => {
  const database = await openTestDatabase({ onQuery: (sql) => statements.push(sql) });
  h = await createHarness({ database, clock });
  ws = await h.seedWorkspace('Cache workspace');
});
afterAll(async () => h.close());

/** The statements one request issued (waiting for work it left behind, such as last_used_at). */
async function counted(run: () => Promise<unknown>): Promise<string[]> {
  await lastUsedRecorder.settled();
  statements.length = 0;
  await run();
  await lastUsedRecorder.settled();
  return [...statements];
}

const touchesCredentials = (sqls: string[]) => sqls.filter((s) => /"api_keys"|"oauth_tokens"|"memberships"/.test(s));

describe('authentication on a cache hit', () => {
  it('issues no statement for a known API key, OAuth token or repeated bad key', async () => {
    const { key } = await ws.keyFor(ws.viewer, 'customer_agent');
    const first = await counted(() => h.request('GET', '/setup/status', { key }));
    expect(touchesCredentials(first).length).toBeGreaterThan(0);
    const second = await counted(() => h.request('GET', '/setup/status', { key }));
    expect(touchesCredentials(second)).toEqual([]);
    // The same key as a bearer is the same verdict.
    expect((await h.request('GET', '/setup/status', { bearer: key })).status).toBe(200);

    const token = await ws.tokenFor(ws.viewer, ['data:read']);
    await h.request('GET', '/setup/status', { bearer: token });
    expect(touchesCredentials(await counted(() => h.request('GET', '/setup/status', { bearer: token })))).toEqual([]);

    const unknown = `cip_${'Z'.repeat(40)}`;
    expect((await h.request('GET', '/setup/status', { key: unknown })).status).toBe(401);
    const flood = await counted(async () => {
      for (let i = 0; i < 20; i++) expect((await h.request('GET', '/setup/status', { key: unknown })).status).toBe(401);
    });
    expect(flood).toEqual([]);
  });

  it('sees a revocation or a removal made through this process at once', async () => {
    const { key, keyId } = await ws.keyFor(ws.editor, 'customer_agent');
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(200);
    await h.revokeKey(keyId);
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(401);

    const team = await h.seedWorkspace();
    expect((await h.request('GET', '/setup/status', { key: team.editor.key })).status).toBe(200);
    await removeMembership(h.database.db, team.id, team.editor.userId);
    const removed = await h.request('GET', '/setup/status', { key: team.editor.key });
    expect(removed.status).toBe(403);
    expect(removed.body.error.code).toBe('forbidden');
  });

  it('sees a change made elsewhere (straight in the database) within the TTL', async () => {
    const { key, keyId } = await ws.keyFor(ws.editor, 'customer_agent');
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(200);
    await h.database.db.update(apiKeys).set({ revokedAt: clock.now() }).where(eq(apiKeys.id, keyId));
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(200);
    clock.advance(CREDENTIAL_CACHE_TTL_MS + 1);
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(401);
  });

  it('never serves a credential past its own expiry', async () => {
    const { key } = await ws.keyFor(ws.editor, 'customer_agent', {
      expiresAt: new Date(clock.now().getTime() + 5_000),
    });
    expect((await h.request('GET', '/setup/status', { key })).status).toBe(200);
    clock.advance(5_001);
    const res = await h.request('GET', '/setup/status', { key });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('expired_token');
  });

  it('writes last_used_at behind the response, once a minute per key, for every pending key in one statement', async () => {
    const a = await ws.keyFor(ws.viewer, 'read_only');
    const b = await ws.keyFor(ws.viewer, 'read_only');
    await h.request('GET', '/setup/status', { key: a.key });
    await h.request('GET', '/setup/status', { key: b.key });
    await lastUsedRecorder.settled();
    clock.advance(61_000);
    const writes = await counted(async () => {
      await Promise.all([
        h.request('GET', '/setup/status', { key: a.key }),
        h.request('GET', '/setup/status', { key: b.key }),
      ]);
    });
    const updates = writes.filter((s) => /update api_keys/i.test(s));
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.length).toBeLessThanOrEqual(2);
    const rows = await h.database.db.select({ id: apiKeys.id, at: apiKeys.lastUsedAt }).from(apiKeys);
    for (const id of [a.keyId, b.keyId])
      expect(rows.find((r) => r.id === id)?.at?.toISOString()).toBe(clock.now().toISOString());
    // Within the minute: nothing written.
    clock.advance(10_000);
    expect(
      (await counted(() => h.request('GET', '/setup/status', { key: a.key }))).filter((s) =>
        /update api_keys/i.test(s),
      ),
    ).toEqual([]);
  });
});

describe('the cache itself', () => {
  it('is bounded: the least recently used entry goes first', () => {
    const cache = new CredentialCache(30_000, 2);
    const now = new Date();
    const caller = (id: string) => ({
      workspaceId: 'w',
      workspaceName: 'W',
      userId: id,
      email: `${id}@x`,
      role: 'viewer' as const,
      scopes: new Set<never>(),
      authMethod: 'api_key' as const,
      credentialId: id,
      bundle: null,
    });
    cache.remember('a', caller('a'), now, { expiresAt: null, grantId: null });
    cache.remember('b', caller('b'), now, { expiresAt: null, grantId: null });
    expect(cache.lookup('a', now)?.userId).toBe('a');
    cache.remember('c', caller('c'), now, { expiresAt: null, grantId: null });
    expect(cache.size).toBe(2);
    expect(cache.lookup('b', now)).toBeUndefined();
    expect(cache.lookup('a', now)?.userId).toBe('a');
  });

  it('keeps refusals that do not change by themselves, and nothing else', () => {
    const cache = new CredentialCache();
    const now = new Date();
    cache.rememberRefusal('bad', new ApiError('invalid_token', 'unknown'), now);
    cache.rememberRefusal('down', new ApiError('dependency_unavailable', 'idp down'), now);
    expect(() => cache.lookup('bad', now)).toThrow(expect.objectContaining({ code: 'invalid_token' }));
    expect(cache.lookup('down', now)).toBeUndefined();
  });
});
