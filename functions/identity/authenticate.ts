import { decodeJwt } from 'jose';
import type { Database } from '../../platform/db/port.js';
import { sha256Hex } from '../../platform/crypto.js';
import { ApiError } from '../../platform/errors.js';
import { looksLikeApiKey, verifyApiKey } from './api-keys.js';
import type { Caller, VerifiedCredential } from './caller.js';
import { credentialCache, lastUsedRecorder } from './credential-cache.js';
import { verifyIdentityProviderToken, type IdentityProvider } from './identity-provider.js';
import { verifyOAuthToken, type ResourceKind, type TokenIssuer } from './oauth-tokens.js';

export interface CredentialVerifiers {
  oauth: TokenIssuer;
  identityProvider: IdentityProvider | null;
}

export interface PresentedCredential {
  apiKeyHeader: string | undefined;
  authorizationHeader: string | undefined;
  /** The resource addressed (the MCP endpoint accepts tokens bound to it; the rest of the API does not). */
  resource?: ResourceKind;
}

/**
 * Resolve the request's credential to a Caller (spec, Authentication 1-2): `X-API-Key`, or a bearer
 * value that is an API key (service prefix), an access token this service issued, or an
 * identity-provider JWT, told apart by the token's issuer. Verdicts are kept in the credential
 * cache (functions/identity/credential-cache.ts): a hit costs no database statement.
 */
export async function authenticate(
  db: Database,
  verifiers: CredentialVerifiers,
  presented: PresentedCredential,
  now: Date,
): Promise<Caller> {
  const credential = presentedCredential(presented);
  const resource = presented.resource ?? 'api';
  // The resource is part of the key: a token bound to the MCP endpoint is refused elsewhere.
  const cacheKey = await sha256Hex(`${resource}\u0000${credential.kind}\u0000${credential.value}`);
  const cached = credentialCache.lookup(cacheKey, now);
  if (cached) {
    if (cached.authMethod === 'api_key') lastUsedRecorder.note(cached.credentialId, now);
    return cached;
  }
  let verified: VerifiedCredential;
  try {
    verified = await verify(db, verifiers, credential, resource, now);
  } catch (error) {
    credentialCache.rememberRefusal(cacheKey, error, now);
    throw error;
  }
  credentialCache.remember(cacheKey, verified.caller, now, verified);
  return verified.caller;
}

type Presented = { kind: 'api_key'; value: string } | { kind: 'bearer_jwt'; value: string };

function presentedCredential(presented: PresentedCredential): Presented {
  const apiKey = presented.apiKeyHeader?.trim();
  if (apiKey) return { kind: 'api_key', value: apiKey };
  const authorization = presented.authorizationHeader?.trim();
  if (!authorization) {
    throw new ApiError('unauthenticated', 'No credential: send X-API-Key or Authorization: Bearer <key or token>.');
  }
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match?.[1]) throw new ApiError('invalid_token', 'The Authorization header must be "Bearer <key or token>".');
  const bearer = match[1];
  return looksLikeApiKey(bearer) ? { kind: 'api_key', value: bearer } : { kind: 'bearer_jwt', value: bearer };
}

async function verify(
  db: Database,
  verifiers: CredentialVerifiers,
  credential: Presented,
  resource: ResourceKind,
  now: Date,
): Promise<VerifiedCredential> {
  if (credential.kind === 'api_key') return verifyApiKey(db, credential.value, now);
  let issuer: string | undefined;
  try {
    issuer = decodeJwt(credential.value).iss;
  } catch {
    throw new ApiError('invalid_token', 'The bearer token is neither an API key nor a JWT.');
  }
  if (issuer === verifiers.oauth.issuer) return verifyOAuthToken(db, verifiers.oauth, credential.value, now, resource);
  if (verifiers.identityProvider && issuer === verifiers.identityProvider.issuer) {
    return verifyIdentityProviderToken(db, verifiers.identityProvider, credential.value, now);
  }
  throw new ApiError('invalid_token', 'The token was not issued by this service or a configured identity provider.');
}
