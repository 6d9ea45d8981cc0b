import { and, asc, count, desc, eq, sql } from 'drizzle-orm';
import { ApiError } from '../../platform/errors.js';
import type { Queryable } from '../../platform/db/port.js';
import { documentGroups, knowledgeNodes, storedFiles } from '../../schema/knowledge.js';
import { runs } from '../../schema/runs.js';

export type DocumentGroupRow = typeof documentGroups.$inferSelect;
export type KnowledgeNodeRow = typeof knowledgeNodes.$inferSelect;

/** The run kind that parses a document into nodes and embeds them. */
export const KNOWLEDGE_INGEST_KIND = 'knowledge_ingest';

export async function getDocumentGroup(db: Queryable, workspaceId: string, id: string): Promise<DocumentGroupRow> {
  const [row] = await db
    .select()
    .from(documentGroups)
    .where(and(eq(documentGroups.workspaceId, workspaceId), eq(documentGroups.id, id)));
  if (!row) throw new ApiError('not_found', 'No such document in this workspace.', { document_group_id: id });
  return row;
}

export interface DocumentWithFile extends DocumentGroupRow {
  filename: string;
  contentType: string;
  byteSize: number;
  runStatus: string | null;
}

const withFile = {
  group: documentGroups,
  filename: storedFiles.filename,
  contentType: storedFiles.contentType,
  byteSize: storedFiles.byteSize,
  runStatus: runs.status,
};

type WithFileRow = {
  group: DocumentGroupRow;
  filename: string;
  contentType: string;
  byteSize: number;
  runStatus: string | null;
};
const flatten = (r: WithFileRow): DocumentWithFile => ({
  ...r.group,
  filename: r.filename,
  contentType: r.contentType,
  byteSize: r.byteSize,
  runStatus: r.runStatus,
});

export async function readDocument(db: Queryable, workspaceId: string, id: string): Promise<DocumentWithFile> {
  const [row] = await db
    .select(withFile)
    .from(documentGroups)
    .innerJoin(storedFiles, eq(storedFiles.id, documentGroups.fileId))
    .leftJoin(runs, eq(runs.id, documentGroups.runId))
    .where(and(eq(documentGroups.workspaceId, workspaceId), eq(documentGroups.id, id)));
  if (!row) throw new ApiError('not_found', 'No such document in this workspace.', { document_group_id: id });
  return flatten(row);
}

export async function listDocuments(
  db: Queryable,
  workspaceId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: DocumentWithFile[]; total: number }> {
  const [rows, [total]] = await Promise.all([
    db
      .select(withFile)
      .from(documentGroups)
      .innerJoin(storedFiles, eq(storedFiles.id, documentGroups.fileId))
      .leftJoin(runs, eq(runs.id, documentGroups.runId))
      .where(eq(documentGroups.workspaceId, workspaceId))
      .orderBy(desc(documentGroups.createdAt), desc(documentGroups.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(documentGroups).where(eq(documentGroups.workspaceId, workspaceId)),
  ]);
  return { rows: rows.map(flatten), total: total?.n ?? 0 };
}

export async function getNode(
  db: Queryable,
  workspaceId: string,
  documentGroupId: string,
  nodeKey: string,
): Promise<KnowledgeNodeRow & { title: string }> {
  const [row] = await db
    .select({ node: knowledgeNodes, title: documentGroups.title })
    .from(knowledgeNodes)
    .innerJoin(documentGroups, eq(documentGroups.id, knowledgeNodes.documentGroupId))
    .where(
      and(
        eq(knowledgeNodes.workspaceId, workspaceId),
        eq(documentGroups.workspaceId, workspaceId),
        eq(knowledgeNodes.documentGroupId, documentGroupId),
        eq(knowledgeNodes.nodeKey, nodeKey),
      ),
    );
  if (!row)
    throw new ApiError('not_found', 'No such node in this workspace.', {
      document_group_id: documentGroupId,
      node_key: nodeKey,
    });
  return { ...row.node, title: row.title };
}

export async function listNodes(
  db: Queryable,
  workspaceId: string,
  documentGroupId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: KnowledgeNodeRow[]; total: number }> {
  const where = and(eq(knowledgeNodes.workspaceId, workspaceId), eq(knowledgeNodes.documentGroupId, documentGroupId));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(knowledgeNodes)
      .where(where)
      .orderBy(asc(knowledgeNodes.position))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(knowledgeNodes).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** Mark a document's ingest outcome (the pipeline's last stage, or its failure). */
export async function setDocumentStatus(
  db: Queryable,
  id: string,
  values: { status: 'ready' | 'failed'; error?: string | null; at: Date },
): Promise<void> {
  await db
    .update(documentGroups)
    .set({ status: values.status, error: values.error ?? null, updatedAt: values.at })
    .where(and(eq(documentGroups.id, id), sql`${documentGroups.status} = 'processing'`));
}

/** The nodes a set of (document, node_key) references name, in this workspace, keyed `group/node_key`. */
export async function readDocumentNodes(
  db: Queryable,
  workspaceId: string,
  refs: readonly { documentGroupId: string; nodeKey: string }[],
): Promise<Map<string, { text: string; title: string }>> {
  const found = new Map<string, { text: string; title: string }>();
  if (refs.length === 0) return found;
  const rows = await db
    .select({
      documentGroupId: knowledgeNodes.documentGroupId,
      nodeKey: knowledgeNodes.nodeKey,
      text: knowledgeNodes.text,
      title: documentGroups.title,
    })
    .from(knowledgeNodes)
    .innerJoin(documentGroups, eq(documentGroups.id, knowledgeNodes.documentGroupId))
    .where(
      and(
        eq(knowledgeNodes.workspaceId, workspaceId),
        eq(documentGroups.workspaceId, workspaceId),
        sql`(${knowledgeNodes.documentGroupId}, ${knowledgeNodes.nodeKey}) in (${sql.join(
          refs.map((r) => sql`(${r.documentGroupId}::uuid, ${r.nodeKey})`),
          sql`, `,
        )})`,
      ),
    );
  for (const r of rows) found.set(`${r.documentGroupId}/${r.nodeKey}`, { text: r.text, title: r.title });
  return found;
}
