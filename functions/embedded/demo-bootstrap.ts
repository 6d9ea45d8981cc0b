import type { Database } from '../../platform/db/port.js';
import { seedDemoWorkspace, type DemoSeedResult } from '../../schema/demo/seed.js';
import { createApiKey } from '../identity/api-keys.js';
import { ensureMembership, ensureUser } from '../identity/members.js';

export const DEMO_ADMIN_EMAIL = 'admin@demo.example';

/**
 * First start of the embedded default: make sure the demo workspace exists; when this call created
 * it, also create its admin and an admin key, whose plaintext is returned exactly once.
 */
export async function bootstrapDemo(db: Database): Promise<DemoSeedResult & { adminKey: string | null }> {
  const demo = await seedDemoWorkspace(db);
  if (!demo.created) return { ...demo, adminKey: null };
  const userId = await ensureUser(db, DEMO_ADMIN_EMAIL);
  await ensureMembership(db, demo.workspaceId, userId, 'admin');
  const { key } = await createApiKey(db, {
    workspaceId: demo.workspaceId,
    userId,
    name: 'Demo admin key (first start)',
    bundle: 'full_admin',
    role: 'admin',
    expiresAt: null,
  });
  return { ...demo, adminKey: key };
}
