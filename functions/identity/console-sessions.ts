import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import { consoleSessions, consoleSignInLinks, memberships, users, workspaces } from '../../schema/index.js';
import type { Role } from '../../schema/tenancy.js';
import type { Database } from '../../platform/db/port.js';
import { hmacSha256, sha256Hex, timingSafeEqual, toHex } from '../../platform/crypto.js';
import { newId, randomBase62 } from '../../platform/ids.js';

export const SIGN_IN_LINK_TTL_SECONDS = 15 * 60;
export const SESSION_TTL_SECONDS = 12 * 3600;
export const SIGN_IN_LINK_PATH = '/console/sign-in/link';

export interface ConsoleMembership {
  workspaceId: string;
  workspaceName: string;
  role: Role;
}

/** A signed-in person, as every console request sees them: memberships read fresh each time. */
export interface ConsoleSession {
  id: string;
  userId: string;
  email: string;
  memberships: ConsoleMembership[];
  /** The workspace being looked at; null when the person belongs to none any more. */
  current: ConsoleMembership | null;
  /** The cookie value, from which the CSRF token is derived. */
  token: string;
}

export class NotAMember extends Error {
  override name = 'NotAMember';
}

/** A one-time sign-in link for a member (by email). Only its hash is stored. */
export async function createSignInLink(
  db: Database,
  publicUrl: string,
  email: string,
  now: Date,
): Promise<{ url: string; expiresAt: Date }> {
  const [user] = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email.trim()})`);
  const hasMembership = user && (await membershipsOf(db, user.id)).length > 0;
  if (!user || !hasMembership) throw new NotAMember(`${email} is not a member of any workspace.`);
  const token = randomBase62(43);
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_SECONDS * 1000);
  await db
    .insert(consoleSignInLinks)
    .values({ id: newId(), tokenHash: await sha256Hex(token), userId: user.id, expiresAt, createdAt: now });
  return { url: `${publicUrl}${SIGN_IN_LINK_PATH}?token=${token}`, expiresAt };
}

/** Spend a sign-in link: the user it was for, or null if it is unknown, used or expired. */
export async function consumeSignInLink(db: Database, token: string, now: Date): Promise<string | null> {
  if (!/^[0-9A-Za-z]{20,100}$/.test(token)) return null;
  const [row] = await db
    .update(consoleSignInLinks)
    .set({ usedAt: now })
    .where(
      and(
        eq(consoleSignInLinks.tokenHash, await sha256Hex(token)),
        isNull(consoleSignInLinks.usedAt),
        gt(consoleSignInLinks.expiresAt, now),
      ),
    )
    .returning({ userId: consoleSignInLinks.userId });
  return row?.userId ?? null;
}

/** The user with this email who belongs to at least one workspace (OIDC sign-in), or null. */
export async function memberByEmail(db: Database, email: string): Promise<string | null> {
  const [user] = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email.trim()})`);
  if (!user) return null;
  return (await membershipsOf(db, user.id)).length > 0 ? user.id : null;
}

export async function startSession(
  db: Database,
  userId: string,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBase62(43);
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  const [first] = await membershipsOf(db, userId);
  await db.insert(consoleSessions).values({
    id: newId(),
    tokenHash: await sha256Hex(token),
    userId,
    workspaceId: first?.workspaceId ?? null,
    expiresAt,
    createdAt: now,
  });
  return { token, expiresAt };
}

export async function resolveSession(
  db: Database,
  token: string | undefined,
  now: Date,
): Promise<ConsoleSession | null> {
  if (!token || !/^[0-9A-Za-z]{20,100}$/.test(token)) return null;
  const [row] = await db
    .select({
      id: consoleSessions.id,
      userId: consoleSessions.userId,
      workspaceId: consoleSessions.workspaceId,
      email: users.email,
    })
    .from(consoleSessions)
    .innerJoin(users, eq(users.id, consoleSessions.userId))
    .where(
      and(
        eq(consoleSessions.tokenHash, await sha256Hex(token)),
        isNull(consoleSessions.revokedAt),
        gt(consoleSessions.expiresAt, now),
      ),
    );
  if (!row) return null;
  const list = await membershipsOf(db, row.userId);
  const current = list.find((m) => m.workspaceId === row.workspaceId) ?? list[0] ?? null;
  return { id: row.id, userId: row.userId, email: row.email, memberships: list, current, token };
}

export async function switchWorkspace(db: Database, session: ConsoleSession, workspaceId: string): Promise<boolean> {
  if (!session.memberships.some((m) => m.workspaceId === workspaceId)) return false;
  await db.update(consoleSessions).set({ workspaceId }).where(eq(consoleSessions.id, session.id));
  return true;
}

export async function endSession(db: Database, sessionId: string, now: Date): Promise<void> {
  await db.update(consoleSessions).set({ revokedAt: now }).where(eq(consoleSessions.id, sessionId));
}

export async function membershipsOf(db: Database, userId: string): Promise<ConsoleMembership[]> {
  return db
    .select({ workspaceId: memberships.workspaceId, workspaceName: workspaces.name, role: memberships.role })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(workspaces.name), asc(workspaces.id));
}

/**
 * The CSRF token of a session (synchronizer pattern without storage): an HMAC of the session
 * cookie under the server's secret. A cross-site page can neither read the cookie nor compute it.
 */
export async function csrfTokenFor(secret: Uint8Array, sessionToken: string): Promise<string> {
  return toHex(await hmacSha256(secret, `console-csrf:${sessionToken}`));
}

export async function csrfTokenMatches(
  secret: Uint8Array,
  sessionToken: string,
  presented: string | undefined,
): Promise<boolean> {
  if (!presented) return false;
  return timingSafeEqual(await csrfTokenFor(secret, sessionToken), presented);
}
