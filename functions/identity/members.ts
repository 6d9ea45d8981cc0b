import { and, eq, sql } from 'drizzle-orm';
import { memberships, users, workspaces } from '../../schema/index.js';
import type { Role } from '../../schema/tenancy.js';
import type { Database, Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { credentialCache } from './credential-cache.js';

/** Workspaces, users and memberships: the tenancy operations the admin CLI and the OAuth flow share. */

export async function createWorkspace(
  db: Queryable,
  input: { name: string; isDemo?: boolean },
): Promise<{ workspaceId: string; name: string }> {
  const workspaceId = newId();
  await db.insert(workspaces).values({ id: workspaceId, name: input.name, isDemo: input.isDemo ?? false });
  return { workspaceId, name: input.name };
}

/** A workspace with a given id (fixtures and imports that must keep an id). */
export async function createWorkspaceWithId(db: Queryable, input: { id: string; name: string }): Promise<void> {
  await db.insert(workspaces).values({ id: input.id, name: input.name });
}

export async function listWorkspaces(db: Database): Promise<{ workspaceId: string; name: string }[]> {
  return db
    .select({ workspaceId: workspaces.id, name: workspaces.name })
    .from(workspaces)
    .orderBy(workspaces.createdAt, workspaces.id);
}

export async function findWorkspace(db: Queryable, workspaceId: string) {
  const [row] = await db.select().from(workspaces).where(eq(workspaces.id, workspaceId));
  return row ?? null;
}

/** Find a user by email (case-insensitive) or create one. */
export async function ensureUser(db: Queryable, email: string): Promise<string> {
  const normalized = email.trim();
  const [existing] = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${normalized})`);
  if (existing) return existing.id;
  const id = newId();
  const [inserted] = await db
    .insert(users)
    .values({ id, email: normalized })
    .onConflictDoNothing()
    .returning({ id: users.id });
  if (inserted) return inserted.id;
  // Lost a race with a concurrent insert of the same email: read the winner.
  const [winner] = await db
    .select({ id: users.id })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${normalized})`);
  if (!winner) throw new Error('user vanished after conflicting insert');
  return winner.id;
}

/** Make the user a member with the given role (an existing membership keeps its row, role updated). */
export async function ensureMembership(db: Queryable, workspaceId: string, userId: string, role: Role): Promise<void> {
  await db
    .insert(memberships)
    .values({ workspaceId, userId, role })
    .onConflictDoUpdate({
      target: [memberships.workspaceId, memberships.userId],
      set: { role },
    });
  // A role change shows on the member's next request, not after the cache's TTL.
  credentialCache.forgetUser(userId);
}

/** Remove a member from a workspace; their credentials stop working there at once in this process. */
export async function removeMembership(db: Queryable, workspaceId: string, userId: string): Promise<boolean> {
  const removed = await db
    .delete(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)))
    .returning({ userId: memberships.userId });
  credentialCache.forgetUser(userId);
  return removed.length > 0;
}

export async function findMembership(db: Queryable, workspaceId: string, userId: string): Promise<Role | null> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row?.role ?? null;
}
