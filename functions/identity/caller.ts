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

/** A verified credential: the caller, and what the credential cache needs to keep it honestly. */
export interface VerifiedCredential {
  caller: Caller;
  /** When the credential stops being valid (the cache never serves it past this). */
  expiresAt: Date | null;
  /** The OAuth grant an access token came from, so revoking the grant reaches cached tokens. */
  grantId: string | null;
}
