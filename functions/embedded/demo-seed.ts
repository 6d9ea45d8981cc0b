import { eq } from 'drizzle-orm';
import type { Database } from '../../platform/db/port.js';
import { CorpusLoadError, loadDemoCorpus, type LoadCorpusResult } from './demo/load-corpus.js';
import { workspaces } from '../../schema/tenancy.js';
import { createWorkspace } from '../identity/members.js';

export const DEMO_WORKSPACE_NAME = 'Demo workspace';

export interface DemoSeedResult {
  workspaceId: string;
  name: string;
  created: boolean;
  /** The generated warehouse corpus: loaded by this call, or found already there. */
  corpus?: Pick<LoadCorpusResult, 'status' | 'counts'>;
}

export interface DemoSeedOptions {
  /** Size of the generated corpus relative to the default (1): about 60 accounts, 1,000 interactions. */
  scale?: number;
}

/**
 * Create the demo workspace if it is absent and load its generated corpus (idempotent: a second
 * call finds both and creates nothing).
 */
export async function seedDemoWorkspace(db: Database, options: DemoSeedOptions = {}): Promise<DemoSeedResult> {
  const [existing] = await db
    .select({ id: workspaces.id, name: workspaces.name })
    .from(workspaces)
    .where(eq(workspaces.isDemo, true))
    .limit(1);
  const demo = existing
    ? { workspaceId: existing.id, name: existing.name, created: false }
    : { ...(await createWorkspace(db, { name: DEMO_WORKSPACE_NAME, isDemo: true })), created: true };
  // Also for an existing workspace: a no-op once its corpus is complete, and it finishes a first
  // start that stopped between creating the workspace and loading the corpus.
  try {
    const { status, counts } = await loadDemoCorpus(db, demo.workspaceId, {
      scale: options.scale ?? 1,
      ifInterrupted: 'restart',
    });
    return { ...demo, corpus: { status, counts } };
  } catch (error) {
    // Someone synced real data into the demo workspace: leave it alone rather than fail every start.
    if (error instanceof CorpusLoadError && error.reason === 'workspace_has_data') return demo;
    throw error;
  }
}
