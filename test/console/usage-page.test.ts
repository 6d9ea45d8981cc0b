import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECENT_REFUSALS_KEPT, recordRefusal } from '../../functions/limits/refusals.js';
import { ApiError } from '../../platform/errors.js';
import { rateLimitRefusals, usageCounters, workspaces } from '../../schema/index.js';
import { browse, decodeHtml, signInWithLink } from '../support/console-session.js';
import { createHarness, type Harness, type SeededWorkspace } from '../support/harness.js';

/**
 * `/console/usage`: the rate limits, this month's quota per family (used / limit / resets-at) and
 * the recent 429s, which the service records as it answers them (bounded per workspace).
 */
let h: Harness;
let ws: SeededWorkspace;
const html = async (res: Response) => decodeHtml(await res.text());

beforeAll(async () => {
  h = await createHarness();
  ws = await h.seedWorkspace();
}, 180_000);
afterAll(async () => {
  await h?.close();
});

const nextMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

describe('the usage page', () => {
  it('shows each family’s quota as used / limit / resets-at, read from the counters', async () => {
    const now = h.services.clock.now();
    await h.database.db
      .update(workspaces)
      .set({ quotaOverrides: { research: 3 } })
      .where(eq(workspaces.id, ws.id));
    await h.database.db
      .insert(usageCounters)
      .values({ workspaceId: ws.id, family: 'optimizer', period: now.toISOString().slice(0, 7), used: 7 });
    const jar = await signInWithLink(h, ws.admin.email);
    const res = await browse(h, jar, '/console/usage');
    expect(res.status).toBe(200);
    const page = await html(res);
    const resets = `${nextMonth(now).toISOString().slice(0, 10)} 00:00 UTC`;
    expect(page).toContain(`<td>research</td><td>0</td><td>3</td><td>${resets}</td>`);
    expect(page).toContain(`<td>optimizer</td><td>7</td><td>1000</td><td>${resets}</td>`);
    expect(page).toContain(`<td>search</td><td>0</td><td>unmetered</td>`);
    expect(page).toContain('<td><code>search.query</code></td><td>10 per minute per user</td>');
    expect(page).toContain('No call of this workspace was refused for a limit recently.');
  });

  it('a 429 answered to a caller is recorded and listed', async () => {
    await h.database.db
      .update(workspaces)
      .set({ quotaOverrides: { research: 0 } })
      .where(eq(workspaces.id, ws.id));
    const refused = await h.request('POST', '/research', {
      key: ws.admin.key,
      body: { question: 'Why do deals stall?' },
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('quota_exceeded');
    const rows = await h.database.db.select().from(rateLimitRefusals).where(eq(rateLimitRefusals.workspaceId, ws.id));
    expect(rows).toMatchObject([
      { operation: 'research.start', code: 'quota_exceeded', family: 'research', limit: 0, userId: ws.admin.userId },
    ]);
    const page = await html(await browse(h, await signInWithLink(h, ws.admin.email), '/console/usage'));
    expect(page).toMatch(
      /<td><code>research\.start<\/code><\/td><td><code>quota_exceeded<\/code> \(research\)<\/td><td>0<\/td>/,
    );
  });

  it('keeps only the newest refusals of a workspace', async () => {
    const other = await h.seedWorkspace();
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < RECENT_REFUSALS_KEPT + 5; i++)
      await recordRefusal(h.database.db, {
        workspaceId: other.id,
        userId: null,
        operation: 'search.query',
        error: new ApiError('rate_limited', 'over', { limit: 10 }),
        at: new Date(start + i * 1000),
      });
    const rows = await h.database.db
      .select()
      .from(rateLimitRefusals)
      .where(eq(rateLimitRefusals.workspaceId, other.id));
    expect(rows).toHaveLength(RECENT_REFUSALS_KEPT);
    expect(Math.min(...rows.map((r) => r.createdAt.getTime()))).toBe(start + 5000);
  });

  it('a viewer, whose role carries no observability scope, gets an honest 403 page', async () => {
    const res = await browse(h, await signInWithLink(h, ws.viewer.email), '/console/usage');
    expect(res.status).toBe(403);
    expect(await html(res)).toContain('Usage is shown to editors and admins.');
  });
});
