import type { Queryable } from '../../platform/db/port.js';
import { listContextEntries } from './context-entries.js';
import { pinnedNodes } from './pins.js';

/** The most of the prompt the knowledge context may take (pins first, then background). */
const MAX_CONTEXT_CHARS = 8_000;
const MAX_PINS = 20;

export interface AgentKnowledgeContext {
  /** The prompt section, or null when the member has no pins and the workspace no context entries. */
  text: string | null;
  pinned: number;
  entries: number;
}

/**
 * What an agent run reads before its first turn for the member who started it: their pinned nodes
 * first (citable: they are knowledge nodes, quoted with their document and node_key), then the
 * workspace's and the member's context entries with their attachments' text, marked as background
 * that is context and never evidence (a quote must come from a node, a turn or an email).
 */
export async function agentKnowledgeContext(
  db: Queryable,
  who: { workspaceId: string; userId: string },
): Promise<AgentKnowledgeContext> {
  const [pins, entries] = await Promise.all([
    pinnedNodes(db, who.workspaceId, who.userId, { limit: MAX_PINS, offset: 0 }),
    listContextEntries(db, who.workspaceId, who.userId),
  ]);
  const parts: string[] = [];
  if (pins.length > 0) {
    parts.push(
      'Pinned knowledge (this member pinned these nodes: read them first; to quote one, use a quote block with source {document_group_id, node_key}):',
      ...pins.map(
        (p) =>
          `- ${p.documentTitle}${p.heading ? ` \u203a ${p.heading}` : ''} [document_group_id ${p.documentGroupId}, node_key ${p.nodeKey}]: ${p.text}`,
      ),
    );
  }
  if (entries.length > 0) {
    parts.push(
      'Background (context entries: use them to understand who is asking and about what; they are context, not evidence, and are never quoted or cited):',
      ...entries.map((e) =>
        [
          `## ${e.title} (${e.scope === 'workspace' ? 'workspace' : 'this member'})`,
          e.body,
          ...e.attachments.map((a) => `Attachment ${a.filename}: ${a.text}`),
        ].join('\n'),
      ),
    );
  }
  if (parts.length === 0) return { text: null, pinned: 0, entries: 0 };
  const text = parts.join('\n');
  return {
    text:
      text.length > MAX_CONTEXT_CHARS
        ? `${text.slice(0, MAX_CONTEXT_CHARS)}\n[background cut to ${MAX_CONTEXT_CHARS} characters]`
        : text,
    pinned: pins.length,
    entries: entries.length,
  };
}
