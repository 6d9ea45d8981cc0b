import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { memoryEvidence, type MemorySource } from '../../schema/memory.js';
import { accounts } from '../../schema/warehouse-accounts.js';

/**
 * Writing the workspace's memory (schema/memory.ts). One row per distinct text per workspace:
 * remembering words already remembered stores nothing and says so (`persisted: false`, with the
 * first row's id), so `persisted` is true exactly when this call wrote a row that is now committed.
 */

export interface EvidenceToRemember {
  workspaceId: string;
  text: string;
  source: MemorySource;
  companyName: string | null;
  createdBy: string | null;
  runId: string | null;
  origin: string;
  /** The configured embedder's vector of the text, or null when it could not be embedded. */
  embedding: { embedder: string; vector: readonly number[] } | null;
  now: Date;
}

export interface RememberOutcome {
  evidenceId: string;
  totalEvidenceCount: number;
  persisted: boolean;
  accountId: string | null;
}

/** The account a company name names: the workspace's account of that exact name, case aside; null when none or several. */
export async function accountNamed(db: Queryable, workspaceId: string, name: string | null): Promise<string | null> {
  if (!name?.trim()) return null;
  const rows = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.workspaceId, workspaceId), sql`lower(${accounts.name}) = lower(${name.trim()})`))
    .limit(2);
  return rows.length === 1 ? (rows[0]?.id ?? null) : null;
}

export async function rememberEvidence(db: Queryable, item: EvidenceToRemember): Promise<RememberOutcome> {
  const text = item.text.trim();
  const companyName = item.companyName?.trim() ? item.companyName.trim() : null;
  const accountId = await accountNamed(db, item.workspaceId, companyName);
  const inserted = await db
    .insert(memoryEvidence)
    .values({
      id: newId(),
      workspaceId: item.workspaceId,
      text,
      source: item.source,
      companyName,
      accountId,
      createdBy: item.createdBy,
      runId: item.runId,
      origin: item.origin,
      embedder: item.embedding?.embedder ?? null,
      embedding: item.embedding ? [...item.embedding.vector] : null,
      createdAt: item.now,
      updatedAt: item.now,
    })
    .onConflictDoNothing({ target: [memoryEvidence.workspaceId, memoryEvidence.textHash] })
    .returning({ id: memoryEvidence.id, accountId: memoryEvidence.accountId });
  const total = await countMemory(db, item.workspaceId);
  const row = inserted[0];
  if (row) return { evidenceId: row.id, totalEvidenceCount: total, persisted: true, accountId: row.accountId };
  const [existing] = await db
    .select({ id: memoryEvidence.id, accountId: memoryEvidence.accountId })
    .from(memoryEvidence)
    .where(and(eq(memoryEvidence.workspaceId, item.workspaceId), sql`${memoryEvidence.textHash} = md5(${text})`));
  if (!existing) throw new Error('memory_evidence: a conflicting row vanished');
  return { evidenceId: existing.id, totalEvidenceCount: total, persisted: false, accountId: existing.accountId };
}

export async function countMemory(db: Queryable, workspaceId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(memoryEvidence).where(eq(memoryEvidence.workspaceId, workspaceId));
  return Number(row?.n ?? 0);
}

/** These remembered rows of the workspace, by id (what the grounding verifier checks a memory quote against). */
export async function readMemoryRows(
  db: Queryable,
  workspaceId: string,
  ids: readonly string[],
): Promise<Map<string, { text: string; source: MemorySource; companyName: string | null }>> {
  const found = new Map<string, { text: string; source: MemorySource; companyName: string | null }>();
  if (ids.length === 0) return found;
  const rows = await db
    .select({
      id: memoryEvidence.id,
      text: memoryEvidence.text,
      source: memoryEvidence.source,
      companyName: memoryEvidence.companyName,
    })
    .from(memoryEvidence)
    .where(and(eq(memoryEvidence.workspaceId, workspaceId), inArray(memoryEvidence.id, [...new Set(ids)])));
  for (const { id, ...row } of rows) found.set(id, row);
  return found;
}
