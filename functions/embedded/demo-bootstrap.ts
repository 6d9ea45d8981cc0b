import { and, eq } from 'drizzle-orm';
import type { Database } from '../../platform/db/port.js';
import { apiKeys } from '../../schema/credentials.js';
import { seedDemoWorkspace, type DemoSeedResult } from './demo-seed.js';
import { createApiKey } from '../identity/api-keys.js';
import { ensureMembership, ensureUser } from '../identity/members.js';
import { FIRST_START_KEY_NAME } from './first-start-key.js';

export const DEMO_ADMIN_EMAIL = 'admin@demo.example';

/**
 * Start of the embedded default: make sure the demo workspace exists (with its corpus) and that its
 * admin has been given a key once. The key's plaintext is returned only by the call that minted it,
 * whether the workspace was created now or earlier by `admin demo seed`.
 */
export async function bootstrapDemo(db: Database): Promise<DemoSeedResult & { adminKey: string | null }> {
  const demo = await seedDemoWorkspace(db);
  const userId = await ensureUser(db, DEMO_ADMIN_EMAIL);
  const [minted] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.workspaceId, demo.workspaceId),
        eq(apiKeys.userId, userId),
        eq(apiKeys.name, FIRST_START_KEY_NAME),
      ),
    )
    .limit(1);
  if (minted) return { ...demo, adminKey: null };
  await ensureMembership(db, demo.workspaceId, userId, 'admin');
  const { key } = await createApiKey(db, {
    workspaceId: demo.workspaceId,
    userId,
    name: FIRST_START_KEY_NAME,
    bundle: 'full_admin',
    role: 'admin',
    expiresAt: null,
  });
  return { ...demo, adminKey: key };
}
