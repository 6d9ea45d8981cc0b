import { and, eq, gt, isNull } from 'drizzle-orm';
import { memberships, teamInvitations, workspaces } from '../../schema/index.js';
import type { Database } from '../../platform/db/port.js';
import { sha256Hex } from '../../platform/crypto.js';
import { ensureUser } from '../identity/members.js';

export interface AcceptedInvitation {
  userId: string;
  workspaceId: string;
  workspaceName: string;
}

/**
 * Spend an invitation link: the invitee (by the invited email) becomes a member with the invited
 * role, or keeps the role they already have if they joined meanwhile. Null when the link is unknown,
 * used, revoked or expired. The one statement that marks it accepted is what makes it single-use.
 */
export async function acceptInvitation(db: Database, token: string, now: Date): Promise<AcceptedInvitation | null> {
  if (!/^[0-9A-Za-z]{20,100}$/.test(token)) return null;
  const tokenHash = await sha256Hex(token);
  return db.transaction(async (tx) => {
    const [invitation] = await tx
      .update(teamInvitations)
      .set({ acceptedAt: now })
      .where(
        and(
          eq(teamInvitations.tokenHash, tokenHash),
          isNull(teamInvitations.acceptedAt),
          isNull(teamInvitations.revokedAt),
          gt(teamInvitations.expiresAt, now),
        ),
      )
      .returning();
    if (!invitation) return null;
    const userId = await ensureUser(tx, invitation.email);
    await tx
      .insert(memberships)
      .values({ workspaceId: invitation.workspaceId, userId, role: invitation.role })
      .onConflictDoNothing();
    const [workspace] = await tx
      .select({ name: workspaces.name })
      .from(workspaces)
      .where(eq(workspaces.id, invitation.workspaceId));
    return { userId, workspaceId: invitation.workspaceId, workspaceName: workspace?.name ?? '' };
  });
}
