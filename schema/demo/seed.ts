import { eq } from 'drizzle-orm';
import type { Database } from '../../platform/db/port.js';
import { createWorkspace } from '../../functions/identity/members.js';
import { workspaces } from '../tenancy.js';

export const DEMO_WORKSPACE_NAME = 'Demo workspace';

export interface DemoSeedResult {
  workspaceId: string;
  name: string;
  created: boolean;
}

export interface DemoSeedOptions {
  /** Size of the generated corpus relative to the default (1). Not used yet: the corpus generator will read it. */
  scale?: number;
}

/**
 * Create the demo workspace if it is absent (idempotent: a second call finds it and creates
 * nothing). The demo corpus generator hooks in here once the warehouse exists.
 */
export async function seedDemoWorkspace(db: Database, options: DemoSeedOptions = {}): Promise<DemoSeedResult> {
  void options;
  const [existing] = await db.select({ id: workspaces.id, name: workspaces.name }).from(workspaces).where(eq(workspaces.isDemo, true)).limit(1);
  if (existing) return { workspaceId: existing.id, name: existing.name, created: false };
  const { workspaceId } = await createWorkspace(db, { name: DEMO_WORKSPACE_NAME, isDemo: true });
  return { workspaceId, name: DEMO_WORKSPACE_NAME, created: true };
}
