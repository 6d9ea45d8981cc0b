import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BATCH_SIZE, PURGE_GRACE_MS } from '../functions/identity/expired-credentials.js';
import { runScheduledTick } from '../functions/scheduled-tick.js';
import { ManualClock } from '../platform/clock.js';
import { queryRows } from '../platform/db/port.js';
import { newId } from '../platform/ids.js';
import {
  consoleSessions,
  consoleSignInLinks,
  oauthAuthorizationCodes,
  oauthClients,
  oauthGrants,
  oauthRefreshTokens,
  oauthTokens,
  routines,
  runs,
} from '../schema/index.js';
import { sql } from 'drizzle-orm';
import { createHarness, type Harness, type SeededWorkspace } from './support/harness.js';

/**
 * The scheduled tick purges credentials a day past their life (sign-in links, console sessions,
 * authorization codes, refresh tokens, access tokens), keeps live ones and those inside the grace day,
 * keeps an expired access token that an unfinished run or a routine still acts with, and deletes at
 * most BATCH_SIZE rows of a kind per tick. Rows are written and counted with plain SQL.
 */

const HOUR = 3_600_000;
const clock = new ManualClock('2026-11-25T12:00:00.000Z');
let h: Harness;
let a: SeededWorkspace;
let b: SeededWorkspace;

beforeAll(async () => {
  h = await createHarness({ clock });
  a = await h.seedWorkspace();
  b = await h.seedWorkspace();
});
afterAll(async () => h?.close());

/** When a row of each age expires, relative to the tick. */
const AGES = {
  long_expired: () => new Date(clock.now().getTime() - PURGE_GRACE_MS - HOUR),
  in_grace: () => new Date(clock.now().getTime() - HOUR),
  live: () => new Date(clock.now().getTime() + HOUR),
} as const;
type Age = keyof typeof AGES;

interface Seeded {
  [table: string]: Record<string, string>;
}

/** One row of every kind at every age for a workspace's admin; ids by table and label. */
async function seedCredentials(ws: SeededWorkspace, prefix: string): Promise<Seeded> {
  const db = h.database.db;
  const clientId = `purge-client-${newId()}`;
  await db.insert(oauthClients).values({ id: clientId, name: 'purge test', redirectUris: ['http://localhost/cb'] });
  const grantId = newId();
  await db.insert(oauthGrants).values({
    id: grantId,
    workspaceId: ws.id,
    userId: ws.admin.userId,
    clientId,
    scopes: ['data:read'],
    resource: 'https://cip.example.test/api/platform/v1',
  });
  const seeded: Seeded = { links: {}, sessions: {}, codes: {}, refresh: {}, tokens: {} };
  for (const age of Object.keys(AGES) as Age[]) {
    const expiresAt = AGES[age]();
    const label = `${prefix}:${age}`;
    const ids = { link: newId(), session: newId(), code: newId(), refresh: newId(), token: newId() };
    await db
      .insert(consoleSignInLinks)
      .values({ id: ids.link, tokenHash: newId(), userId: ws.admin.userId, expiresAt });
    await db
      .insert(consoleSessions)
      .values({ id: ids.session, tokenHash: newId(), userId: ws.admin.userId, workspaceId: ws.id, expiresAt });
    await db.insert(oauthAuthorizationCodes).values({
      id: ids.code,
      codeHash: newId(),
      grantId,
      redirectUri: 'http://localhost/cb',
      redirectUriSent: true,
      codeChallenge: 'x',
      expiresAt,
    });
    await db.insert(oauthRefreshTokens).values({ id: ids.refresh, tokenHash: newId(), grantId, expiresAt });
    await db.insert(oauthTokens).values({
      id: ids.token,
      workspaceId: ws.id,
      userId: ws.admin.userId,
      clientId,
      scopes: ['data:read'],
      grantId,
      expiresAt,
    });
    (seeded.links as Record<string, string>)[label] = ids.link;
    (seeded.sessions as Record<string, string>)[label] = ids.session;
    (seeded.codes as Record<string, string>)[label] = ids.code;
    (seeded.refresh as Record<string, string>)[label] = ids.refresh;
    (seeded.tokens as Record<string, string>)[label] = ids.token;
  }
  return seeded;
}

/** A long-expired access token of `ws`, and the caller a run or routine started with it stores. */
async function expiredTokenUsedBy(ws: SeededWorkspace) {
  const clientId = `purge-holder-${newId()}`;
  await h.database.db
    .insert(oauthClients)
    .values({ id: clientId, name: 'holder', redirectUris: ['http://localhost/cb'] });
  const tokenId = newId();
  await h.database.db.insert(oauthTokens).values({
    id: tokenId,
    workspaceId: ws.id,
    userId: ws.admin.userId,
    clientId,
    scopes: ['data:read'],
    expiresAt: AGES.long_expired(),
  });
  const caller = {
    user_id: ws.admin.userId,
    email: ws.admin.email,
    role: 'admin',
    auth_method: 'oauth',
    credential_id: tokenId,
    scopes: ['data:read'],
    bundle: null,
  } as const;
  return { tokenId, caller };
}

const TABLES = {
  links: 'console_sign_in_links',
  sessions: 'console_sessions',
  codes: 'oauth_authorization_codes',
  refresh: 'oauth_refresh_tokens',
  tokens: 'oauth_tokens',
} as const;

async function existing(table: keyof typeof TABLES, ids: readonly string[]): Promise<Set<string>> {
  const rows = await queryRows<{ id: string }>(
    h.database.db,
    sql`select id::text as id from ${sql.raw(TABLES[table])} where id::text in (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`,
  );
  return new Set(rows.map((r) => r.id));
}

describe('expired credentials are purged by the scheduled tick', () => {
  it('deletes every kind a day past its life, keeps the live and the recently expired, in both workspaces alike', async () => {
    const mine = await seedCredentials(a, 'a');
    const theirs = await seedCredentials(b, 'b');
    await runScheduledTick(h.services, clock.now());
    for (const table of Object.keys(TABLES) as (keyof typeof TABLES)[]) {
      for (const seeded of [mine, theirs]) {
        const ids = seeded[table] as Record<string, string>;
        const left = await existing(table, Object.values(ids));
        for (const [label, id] of Object.entries(ids)) {
          const expected = !label.endsWith(':long_expired');
          expect(left.has(id), `${TABLES[table]} ${label}`).toBe(expected);
        }
      }
    }
  });

  it('keeps an expired access token while an unfinished run or a routine acts with it; a finished run does not hold it', async () => {
    const running = await expiredTokenUsedBy(a);
    const finished = await expiredTokenUsedBy(a);
    const routineHeld = await expiredTokenUsedBy(b);
    const awaiting = await expiredTokenUsedBy(b);
    const runRow = (workspaceId: string, status: 'running' | 'complete' | 'awaiting_input', caller: object) => ({
      id: newId(),
      workspaceId,
      kind: 'chat',
      status,
      stage: status === 'complete' ? null : 'turn',
      caller: caller as never,
    });
    await h.database.db
      .insert(runs)
      .values([
        runRow(a.id, 'running', running.caller),
        runRow(a.id, 'complete', finished.caller),
        runRow(b.id, 'awaiting_input', awaiting.caller),
      ]);
    await h.database.db.insert(routines).values({
      id: newId(),
      workspaceId: b.id,
      name: 'held',
      prompt: 'p',
      cron: '0 9 * * 1',
      timezone: 'UTC',
      enabled: false,
      createdBy: b.admin.userId,
      caller: routineHeld.caller,
    });
    await runScheduledTick(h.services, clock.now());
    const left = await existing('tokens', [running.tokenId, finished.tokenId, routineHeld.tokenId, awaiting.tokenId]);
    expect(left.has(running.tokenId), 'held by a running run').toBe(true);
    expect(left.has(awaiting.tokenId), 'held by a run awaiting input').toBe(true);
    expect(left.has(routineHeld.tokenId), 'held by a routine').toBe(true);
    expect(left.has(finished.tokenId), 'its only run is complete').toBe(false);
  });

  it(`deletes at most ${BATCH_SIZE} rows of a kind per tick, the rest at the next`, async () => {
    const expiresAt = AGES.long_expired();
    const ids = Array.from({ length: BATCH_SIZE + 7 }, () => newId());
    await h.database.db
      .insert(consoleSignInLinks)
      .values(ids.map((id) => ({ id, tokenHash: id, userId: a.viewer.userId, expiresAt })));
    await runScheduledTick(h.services, clock.now());
    expect((await existing('links', ids)).size).toBe(7);
    await runScheduledTick(h.services, clock.now());
    expect((await existing('links', ids)).size).toBe(0);
  });
});
