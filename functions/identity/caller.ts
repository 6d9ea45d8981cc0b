import type { Role } from '../../schema/tenancy.js';
import type { Bundle, Scope } from './scopes.js';

/** `console`: a member signed in to the console (a session cookie), acting through its pages. */
export type AuthMethod = 'api_key' | 'oauth' | 'identity_provider' | 'console';

/** Who is calling, resolved once per request from the credential, and re-checked against membership. */
export interface Caller {
  workspaceId: string;
  workspaceName: string;
  userId: string;
  email: string;
  role: Role;
  scopes: ReadonlySet<Scope>;
  authMethod: AuthMethod;
  /** API key id, OAuth token id, or the identity provider's subject. */
  credentialId: string;
  bundle: Bundle | null;
}
