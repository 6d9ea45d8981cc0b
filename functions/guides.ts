/**
 * The guides a person reads beside the reference (docs/guides/ in the repository), and which guide
 * section explains each operation: one table keyed by the operation's tag, so the OpenAPI document,
 * the `/docs` pages and the console point at the same place. A test checks that every operation's
 * tag is here and that every page and section named here exists.
 */

/** Where the guides are served and kept: `/docs/guides/<page>` on the service, docs/guides/ in the repository. */
export const GUIDES_PATH = '/docs/guides';

export interface Guide {
  /** The file in docs/guides/. */
  page: string;
  title: string;
}

/** Every guide, in the order a newcomer reads them (the docs index's order). */
export const GUIDES: readonly Guide[] = [
  { page: 'api-basics.md', title: 'API basics' },
  { page: 'search.md', title: 'Search' },
  { page: 'analyses.md', title: 'Analyses' },
  { page: 'sql-query.md', title: 'SQL query' },
  { page: 'simulate.md', title: 'Simulate' },
  { page: 'enrich-and-lookalike.md', title: 'Enrich and lookalikes' },
  { page: 'chat-and-agents.md', title: 'Chat and agents' },
  { page: 'research.md', title: 'Research' },
  { page: 'evals-and-optimizer.md', title: 'Evals and the message optimizer' },
  { page: 'routines-and-documents.md', title: 'Routines, documents and actions' },
  { page: 'subscriptions.md', title: 'Subscriptions' },
  { page: 'connections.md', title: 'Connections' },
  { page: 'knowledge.md', title: 'Knowledge, memory and sessions' },
  { page: 'webhooks.md', title: 'Webhooks' },
  { page: 'mcp.md', title: 'MCP' },
  { page: 'console-and-oauth.md', title: 'The console and OAuth' },
];

const KNOWLEDGE_OPERATIONS = 'knowledge.md#memory-sessions-and-the-knowledge-operations';
const UPLOADS = 'knowledge.md#knowledge-uploads-the-knowledge-bank-pins-and-context-entries';
const CONTEXT_ENTRIES = 'knowledge.md#context-entries-and-the-platform-library';
const CHAT = 'chat-and-agents.md#chat-and-agents';

/** An operation's tag → its guide page and section (`page#anchor`, the anchor as GitHub renders the heading). */
export const GUIDE_SECTION_BY_TAG: Readonly<Record<string, string>> = {
  Setup: 'api-basics.md#envelopes-and-first-calls',
  Connections: 'connections.md#connections',
  Search: 'search.md#search',
  Analyses: 'analyses.md#analyses',
  'SQL query': 'sql-query.md#sql-query',
  Simulate: 'simulate.md#simulate',
  Enrich: 'enrich-and-lookalike.md#enrich-and-lookalikes',
  Lookalike: 'enrich-and-lookalike.md#lookalikes',
  Research: 'research.md#research-jobs',
  Memory: KNOWLEDGE_OPERATIONS,
  Knowledge: KNOWLEDGE_OPERATIONS,
  Sessions: KNOWLEDGE_OPERATIONS,
  Evals: 'evals-and-optimizer.md#evals',
  Messages: 'evals-and-optimizer.md#the-message-optimizer',
  Chat: CHAT,
  Agents: CHAT,
  Routines: 'routines-and-documents.md#routines',
  Subscriptions: 'subscriptions.md#subscriptions',
  Documents: 'routines-and-documents.md#documents',
  Actions: 'routines-and-documents.md#actions',
  'Knowledge base': UPLOADS,
  Pins: 'knowledge.md#pins',
  Context: CONTEXT_ENTRIES,
  'Platform library': CONTEXT_ENTRIES,
  Webhooks: 'webhooks.md#webhooks',
  Console: 'console-and-oauth.md#the-console',
};

/** The guide section of an operation (`search.md#search`), from its first tag that has one. */
export function guideSectionOf(op: { tags: readonly string[] }): string | undefined {
  for (const tag of op.tags) {
    const section = GUIDE_SECTION_BY_TAG[tag];
    if (section) return section;
  }
  return undefined;
}

/** Whether `page` is one of the guides (the only files the service serves from docs/guides/). */
export function isGuidePage(page: string): page is `${string}.md` {
  return GUIDES.some((guide) => guide.page === page);
}
