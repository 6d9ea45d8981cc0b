import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { TERMINAL_STATUSES } from '../../schema/runs.js';

/**
 * The scheduled tick's purge of credentials past their life: console sign-in links (15 minutes),
 * console sessions (12 hours), OAuth authorization codes (2 minutes), refresh tokens (30 days) and
 * access tokens (OAUTH_ACCESS_TOKEN_TTL_SECONDS). Nothing reads an expired row to let anyone in, so
 * without a purge the tables only grow.
 *
 * The rule, per kind:
 * - A row goes a day after its expiry (PURGE_GRACE_MS), not at it. For codes and refresh tokens the
 *   row is the evidence of a replay (a spent code or rotated refresh token presented again revokes
 *   its whole grant): a day of grace keeps that defence for replays soon after expiry, and a row the
 *   endpoints still look at is never pulled from under a request in flight.
 * - An access-token row is kept, past its expiry, as long as something still acts with it: a run that
 *   has not finished, or a routine (which fires runs as its creator for as long as it exists). A run
 *   re-checks its credential at every turn (functions/identity/run-caller.ts) and reads a missing row
 *   as revoked, while the documented policy (docs/operate/security.md) is that expiry does not stop a run (it is bounded by its own
 *   budget, and an OAuth client refreshing its token must not kill the session it started). So the
 *   row may only go once no unfinished run and no routine names it.
 *
 * Each kind is deleted in batches of at most BATCH_SIZE rows per tick (the oldest first), so one tick
 * stays short however much has piled up; the next tick takes the next batch.
 */

export const PURGE_GRACE_MS = 24 * 3_600_000;
export const BATCH_SIZE = 500;

export interface PurgedCredentials {
  signInLinks: number;
  consoleSessions: number;
  authorizationCodes: number;
  refreshTokens: number;
  accessTokens: number;
}

export async function purgeExpiredCredentials(db: Queryable, now: Date): Promise<PurgedCredentials> {
  const cutoff = new Date(now.getTime() - PURGE_GRACE_MS);
  const terminal = sql.join(
    TERMINAL_STATUSES.map((s) => sql`${s}`),
    sql`, `,
  );
  const kinds: Record<keyof PurgedCredentials, { table: SQL; expired: SQL }> = {
    signInLinks: { table: sql`console_sign_in_links`, expired: sql`expires_at < ${cutoff}` },
    consoleSessions: { table: sql`console_sessions`, expired: sql`expires_at < ${cutoff}` },
    authorizationCodes: { table: sql`oauth_authorization_codes`, expired: sql`expires_at < ${cutoff}` },
    refreshTokens: { table: sql`oauth_refresh_tokens`, expired: sql`expires_at < ${cutoff}` },
    accessTokens: {
      table: sql`oauth_tokens`,
      expired: sql`expires_at < ${cutoff}
        and not exists (
          select 1 from runs r
          where r.caller->>'auth_method' = 'oauth' and r.caller->>'credential_id' = oauth_tokens.id::text
            and r.status not in (${terminal}))
        and not exists (
          select 1 from routines ro
          where ro.caller->>'auth_method' = 'oauth' and ro.caller->>'credential_id' = oauth_tokens.id::text)`,
    },
  };
  const names = Object.keys(kinds) as (keyof PurgedCredentials)[];
  // One read of which kinds have a row past its grace (most ticks: none), so a tick with nothing to
  // purge runs one statement instead of a delete per kind.
  const [due] = await queryRows<Record<keyof PurgedCredentials, boolean>>(
    db,
    sql`select ${sql.join(
      names.map(
        (name) =>
          sql`exists (select 1 from ${kinds[name].table} where expires_at < ${cutoff}) as ${sql.raw(`"${name}"`)}`,
      ),
      sql`, `,
    )}`,
  );
  const purged: PurgedCredentials = {
    signInLinks: 0,
    consoleSessions: 0,
    authorizationCodes: 0,
    refreshTokens: 0,
    accessTokens: 0,
  };
  for (const name of names)
    if (due?.[name]) purged[name] = await purgeBatch(db, kinds[name].table, kinds[name].expired);
  return purged;
}

/** Delete one batch of a table's rows matching `expired`, oldest expiry first; how many went. */
async function purgeBatch(db: Queryable, table: SQL, expired: SQL): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with purged as (
          delete from ${table} where id in (
            select id from ${table} where ${expired} order by expires_at limit ${BATCH_SIZE})
          returning 1)
        select count(*)::int as n from purged`,
  );
  return rows[0]?.n ?? 0;
}
