import type { Caller } from '../identity/caller.js';
import { scopesForRole } from '../oauth/index.js';
import type { ConsoleMembership, ConsoleSession } from '../identity/console-sessions.js';

/**
 * The caller a console page acts as: the signed-in member in the workspace they are looking at,
 * with what their role allows (the console is the member themself, not a delegated credential).
 */
export function consoleCaller(session: ConsoleSession, membership: ConsoleMembership): Caller {
  return {
    workspaceId: membership.workspaceId,
    workspaceName: membership.workspaceName,
    userId: session.userId,
    email: session.email,
    role: membership.role,
    scopes: scopesForRole(membership.role),
    authMethod: 'console',
    credentialId: session.id,
    bundle: null,
  };
}
