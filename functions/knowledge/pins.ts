import { and, desc, eq } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { documentGroups, knowledgeNodes, pins } from '../../schema/knowledge.js';

export interface PinnedNode {
  documentGroupId: string;
  nodeKey: string;
  documentTitle: string;
  heading: string;
  text: string;
  page: number | null;
  pinnedAt: Date;
}

/** A member's pins with their nodes, newest first (what an agent reads first for that member). */
export async function pinnedNodes(
  db: Queryable,
  workspaceId: string,
  userId: string,
  page: { limit: number; offset: number } = { limit: 200, offset: 0 },
): Promise<PinnedNode[]> {
  return db
    .select({
      documentGroupId: pins.documentGroupId,
      nodeKey: pins.nodeKey,
      documentTitle: documentGroups.title,
      heading: knowledgeNodes.heading,
      text: knowledgeNodes.text,
      page: knowledgeNodes.page,
      pinnedAt: pins.createdAt,
    })
    .from(pins)
    .innerJoin(
      knowledgeNodes,
      and(eq(knowledgeNodes.documentGroupId, pins.documentGroupId), eq(knowledgeNodes.nodeKey, pins.nodeKey)),
    )
    .innerJoin(documentGroups, eq(documentGroups.id, pins.documentGroupId))
    .where(and(eq(pins.workspaceId, workspaceId), eq(pins.userId, userId), eq(documentGroups.workspaceId, workspaceId)))
    .orderBy(desc(pins.createdAt), pins.nodeKey)
    .limit(page.limit)
    .offset(page.offset);
}

export const pinId = (documentGroupId: string, nodeKey: string): string => `${documentGroupId}/${nodeKey}`;
