import { createApiKey } from '../functions/identity/api-keys.js';
import { createWorkspace, ensureMembership, ensureUser } from '../functions/identity/members.js';
import type { Database } from '../platform/db/port.js';

/** A new workspace with one admin holding a full-admin key: what a bench drives the API as. */
export async function benchAdmin(db: Database, workspaceName: string): Promise<{ workspaceId: string; key: string }> {
  const { workspaceId } = await createWorkspace(db, { name: workspaceName });
  const userId = await ensureUser(db, 'bench-admin@bench.example');
  await ensureMembership(db, workspaceId, userId, 'admin');
  const { key } = await createApiKey(db, {
    workspaceId,
    userId,
    name: 'bench',
    bundle: 'full_admin',
    role: 'admin',
    expiresAt: null,
  });
  return { workspaceId, key };
}
