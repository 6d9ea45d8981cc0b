import { eq } from 'drizzle-orm';
import type { Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { apiKeys, oauthTokens } from '../../schema/credentials.js';
import type { RunCaller } from '../../schema/runs.js';
import type { Caller } from './caller.js';
import { findMembership, findWorkspace } from './members.js';
import { isScope, type Bundle, type Scope } from './scopes.js';

/** What a run stores of the caller who started it (architecture: "A run knows its caller"). */
export function runCallerOf(caller: Caller): RunCaller {
  return {
    user_id: caller.userId,
    email: caller.email,
    role: caller.role,
    auth_method: caller.authMethod,
    credential_id: caller.credentialId,
    scopes: [...caller.scopes].sort(),
    bundle: caller.bundle,
  };
}

/**
 * The caller a run acts as right now, re-checked at every stage (agents.md: "Every turn re-checks
 * the membership"): the member must still belong to the workspace (their role now applies, so a
 * demotion narrows what the run may do), the credential must not have been revoked, and the scopes
 * are those it had at start narrowed by those it has now — a run never gains a scope.
 *
 * Policy, written down in docs/operate/security.md: revocation (or deletion) of the key or token stops the run at
 * its next stage with `forbidden`; the credential's expiry does not, because a run authorized at its
 * start is bounded by its own turn budget, and an OAuth client refreshing its access token must not
 * kill the session it started. Identity-provider JWTs have no stored credential: the membership
 * check and the scopes at start apply.
 */
export async function resolveRunCaller(db: Queryable, workspaceId: string, stored: RunCaller): Promise<Caller> {
  const role = await findMembership(db, workspaceId, stored.user_id);
  if (!role)
    throw new ApiError('forbidden', 'The member who started this run is no longer in the workspace.', {
      user_id: stored.user_id,
    });
  let scopes = stored.scopes.filter(isScope);
  const current = await currentCredentialScopes(db, stored);
  if (current === 'revoked')
    throw new ApiError('forbidden', 'The credential that started this run has been revoked.', {
      auth_method: stored.auth_method,
    });
  if (current) scopes = scopes.filter((s) => current.has(s));
  const workspace = await findWorkspace(db, workspaceId);
  if (!workspace) throw new ApiError('forbidden', 'The workspace of this run no longer exists.');
  return {
    workspaceId,
    workspaceName: workspace.name,
    userId: stored.user_id,
    email: stored.email,
    role,
    scopes: new Set<Scope>(scopes),
    authMethod: stored.auth_method,
    credentialId: stored.credential_id,
    bundle: stored.bundle as Bundle | null,
  };
}

/** The credential's scopes now; null when nothing is stored for it (identity-provider tokens). */
async function currentCredentialScopes(
  db: Queryable,
  stored: RunCaller,
): Promise<ReadonlySet<string> | 'revoked' | null> {
  if (stored.auth_method === 'identity_provider' || stored.auth_method === 'console') return null;
  const table = stored.auth_method === 'api_key' ? apiKeys : oauthTokens;
  const [row] = await db
    .select({ scopes: table.scopes, revokedAt: table.revokedAt })
    .from(table)
    .where(eq(table.id, stored.credential_id));
  if (!row || row.revokedAt) return 'revoked';
  return new Set(row.scopes);
}
