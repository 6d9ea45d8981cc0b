import type { Role } from '../../schema/tenancy.js';
import { BUNDLE_TABLE, BUNDLES, DEFAULT_BUNDLE, isScope, roleAtLeast, SCOPES, type Scope } from '../identity/scopes.js';
import { OAuthError } from './oauth-error.js';

/** Each scope in plain words, as the consent page shows it: what an application could do with it. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'artifacts:read': 'Read documents and their versions',
  'artifacts:write': 'Create and update documents',
  'artifacts:delete': 'Delete documents',
  'context:read': 'Read workspace context notes',
  'context:write': 'Add and change workspace context notes',
  'data:read': 'Search and read your calls, emails, accounts and deals',
  'data:write': 'Change your customer data',
  'team:read': 'See workspace members',
  'team:write': 'Manage workspace members',
  'webhooks:read': 'See webhooks and their deliveries',
  'webhooks:write': 'Create, change and delete webhooks',
  'observability:read': 'Read usage and operational metrics',
  'config:read': 'Read workspace settings',
  'config:write': 'Change workspace settings',
  'platform:read': 'Read platform configuration',
  'platform:write': 'Change platform configuration',
  'conversations:read': 'Read chats and research results',
  'conversations:write': 'Start chats and research in your name',
  'workflows:write': 'Answer, resume and cancel running agents',
  'agents:read': 'See agents',
  'agents:write': 'Create, change and delete agents',
  'routines:read': 'See routines and their runs',
  'routines:write': 'Create, change, run and delete routines',
  'evals:execute': 'Run evaluations of messages',
  'evals:read': 'Read evaluation results',
  'evals:write': 'Create and change evaluation sets',
  'external_search:execute': 'Search the public web for you',
  'connections:read': 'See connected tools and their syncs',
  'connections:write': 'Connect tools and change their settings',
  'connections:delete': 'Disconnect tools',
  'messages:execute': 'Optimize messages',
  'outputs:write': 'Write documents and take allowed actions',
  'subscriptions:read': 'See subscriptions',
  'subscriptions:write': 'Create and change subscriptions',
  'pins:read': 'See pins',
  'pins:write': 'Pin items',
  'pins:delete': 'Remove pins',
};

/**
 * What a member with this role may delegate: the scopes of every bundle their role may mint as a
 * key. A token never carries more than a key the same member could create.
 */
export function scopesForRole(role: Role): Set<Scope> {
  const allowed = new Set<Scope>();
  for (const bundle of BUNDLES) {
    if (roleAtLeast(role, BUNDLE_TABLE[bundle].minRoleToCreate))
      for (const s of BUNDLE_TABLE[bundle].scopes) allowed.add(s);
  }
  return allowed;
}

/**
 * The `scope` parameter as scopes. Absent means the default (Customer agent) bundle; an unknown
 * scope is `invalid_scope`, never silently dropped, so a client learns its request was wrong.
 */
export function parseScopeParameter(scope: string | undefined): Scope[] {
  if (scope === undefined || scope.trim() === '') return [...BUNDLE_TABLE[DEFAULT_BUNDLE].scopes];
  const requested = [...new Set(scope.trim().split(/\s+/))];
  const unknown = requested.filter((s) => !isScope(s));
  if (unknown.length > 0)
    throw new OAuthError('invalid_scope', `Unknown scope${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`);
  return requested.filter(isScope);
}

/** Split requested scopes into what the member's role lets them delegate and what it does not. */
export function narrowToRole(requested: readonly Scope[], role: Role): { granted: Scope[]; withheld: Scope[] } {
  const allowed = scopesForRole(role);
  const ordered = SCOPES.filter((s) => requested.includes(s));
  return { granted: ordered.filter((s) => allowed.has(s)), withheld: ordered.filter((s) => !allowed.has(s)) };
}
