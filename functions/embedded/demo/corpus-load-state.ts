/**
 * What a workspace already holds, for the corpus loader's idempotency: the demo_corpus_loads
 * marker, whether other warehouse data is there, and removing a half-finished load.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../../../platform/db/port.js';
import { demoCorpusLoads } from '../../../schema/demo-corpus-loads.js';
import { accounts, contacts } from '../../../schema/warehouse-accounts.js';
import { dealQualification, deals } from '../../../schema/warehouse-deals.js';
import { interactions, participants, transcriptTurns } from '../../../schema/warehouse-interactions.js';
import { themes, utterances, utteranceVectors } from '../../../schema/warehouse-semantic.js';
import { excludedInteractions, sourceFreshness } from '../../../schema/warehouse-settings.js';

/** Every table the corpus writes, children first (the order a purge deletes in). */
export const CORPUS_TABLES = [
  excludedInteractions,
  utterances,
  utteranceVectors,
  transcriptTurns,
  participants,
  interactions,
  dealQualification,
  deals,
  contacts,
  accounts,
  themes,
  sourceFreshness,
] as const;

export async function priorLoad(
  db: Queryable,
  workspaceId: string,
): Promise<{ status: 'complete' | 'loading'; counts: Record<string, number> } | null> {
  const [row] = await db
    .select({ status: demoCorpusLoads.status, counts: demoCorpusLoads.counts })
    .from(demoCorpusLoads)
    .where(eq(demoCorpusLoads.workspaceId, workspaceId));
  return row ? { status: row.status, counts: row.counts ?? {} } : null;
}

/** Data not put there by the loader (a connector sync, a hand insert): the corpus must not mix with it. */
export async function hasWarehouseRows(db: Queryable, workspaceId: string): Promise<boolean> {
  const [a] = await db
    .select({ one: sql<number>`1` })
    .from(accounts)
    .where(eq(accounts.workspaceId, workspaceId))
    .limit(1);
  const [i] = await db
    .select({ one: sql<number>`1` })
    .from(interactions)
    .where(eq(interactions.workspaceId, workspaceId))
    .limit(1);
  return Boolean(a ?? i);
}

/** Delete a workspace's warehouse rows and its unfinished marker (children first: cheaper than cascades). */
export async function purgeWarehouse(db: Database, workspaceId: string): Promise<void> {
  await db.transaction(async (tx) => {
    for (const table of CORPUS_TABLES) await tx.delete(table).where(eq(table.workspaceId, workspaceId));
    await tx
      .delete(demoCorpusLoads)
      .where(and(eq(demoCorpusLoads.workspaceId, workspaceId), eq(demoCorpusLoads.status, 'loading')));
  });
}
