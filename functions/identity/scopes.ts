import type { Role } from '../../schema/tenancy.js';

/** Every scope the service knows (spec, Authentication 6): the OAuth list, then those operations use. */
export const SCOPES = [
  'artifacts:read',
  'artifacts:write',
  'artifacts:delete',
  'context:read',
  'context:write',
  'data:read',
  'data:write',
  'team:read',
  'team:write',
  'webhooks:read',
  'webhooks:write',
  'observability:read',
  'config:read',
  'config:write',
  'platform:read',
  'platform:write',
  'conversations:read',
  'conversations:write',
  'workflows:write',
  'agents:read',
  'agents:write',
  'routines:read',
  'routines:write',
  'evals:execute',
  'evals:read',
  'evals:write',
  'external_search:execute',
  'connections:read',
  'connections:write',
  'connections:delete',
  'messages:execute',
  'outputs:write',
  'subscriptions:read',
  'subscriptions:write',
  'pins:read',
  'pins:write',
  'pins:delete',
] as const;

export type Scope = (typeof SCOPES)[number];
export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);

export const BUNDLES = ['read_only', 'customer_agent', 'internal_agent', 'full_admin'] as const;
export type Bundle = (typeof BUNDLES)[number];
export const DEFAULT_BUNDLE: Bundle = 'customer_agent';

const CUSTOMER_AGENT: readonly Scope[] = [
  'data:read',
  'conversations:read',
  'conversations:write',
  'workflows:write',
  'agents:read',
  'agents:write',
  'routines:read',
  'routines:write',
  'evals:read',
  'evals:execute',
  'messages:execute',
  'connections:read',
  'artifacts:read',
  'context:read',
  'subscriptions:read',
  'pins:read',
];

const INTERNAL_AGENT: readonly Scope[] = [
  ...CUSTOMER_AGENT,
  'external_search:execute',
  'outputs:write',
  'artifacts:write',
  'context:write',
  'evals:write',
  'webhooks:read',
  'webhooks:write',
  'subscriptions:write',
  'pins:write',
  'pins:delete',
  'team:read',
  'observability:read',
  'config:read',
  'platform:read',
];

/**
 * The one table of permission bundles (spec, Authentication 5). docs/operate/security.md reproduces it.
 * A bundle grants scopes; what a caller may do also depends on their workspace role, checked per
 * request. `minRoleToCreate` is who may mint a key with the bundle.
 */
export const BUNDLE_TABLE: Record<Bundle, { label: string; scopes: readonly Scope[]; minRoleToCreate: Role }> = {
  read_only: { label: 'Read only', scopes: ['data:read'], minRoleToCreate: 'viewer' },
  customer_agent: { label: 'Customer agent', scopes: CUSTOMER_AGENT, minRoleToCreate: 'viewer' },
  internal_agent: { label: 'Internal agent', scopes: INTERNAL_AGENT, minRoleToCreate: 'editor' },
  full_admin: { label: 'Full admin', scopes: SCOPES, minRoleToCreate: 'admin' },
};

const ROLE_RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };
export const roleAtLeast = (role: Role, minimum: Role): boolean => ROLE_RANK[role] >= ROLE_RANK[minimum];
