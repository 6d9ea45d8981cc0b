/**
 * The security suite's files, by the surfaces (test/security-fixtures/<surface>.ts) each runs: about
 * the same number of operations each, so the two workers share the suite. test/security/registry.test.ts
 * checks that every surface is in exactly one group and that each group has its file.
 */
export const SURFACE_GROUPS = {
  data: [
    'setup',
    'connections',
    'search',
    'analyses',
    'sql-query',
    'simulate',
    'enrich',
    'lookalike',
    'research',
    'messages',
  ],
  knowledge: ['knowledge', 'knowledge-documents', 'documents', 'actions'],
  agents: ['evals', 'chat', 'agents', 'routines'],
  workspace: ['subscriptions', 'webhooks', 'console'],
} as const satisfies Record<string, readonly string[]>;
