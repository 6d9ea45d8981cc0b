/**
 * What the knowledge feature offers the other features: they import it from here, never from its
 * other files (the rule in .dependency-cruiser.cjs). How the app wires the feature in is feature.ts.
 */
export {
  searchKnowledgeNodes,
  KNOWLEDGE_SEARCH_MODES,
  type KnowledgeNodeMatch,
  type KnowledgeSearchMode,
  type KnowledgeSearchRequest,
} from './search.js';
export { agentKnowledgeContext, type AgentKnowledgeContext } from './agent-context.js';
export { readDocumentNodes } from './documents.js';
