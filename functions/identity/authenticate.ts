import { decodeJwt } from 'jose';
import type { Database } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { authenticateApiKey, looksLikeApiKey } from './api-keys.js';
import type { Caller } from './caller.js';
import { authenticateIdentityProviderToken, type IdentityProvider } from './identity-provider.js';
import { authenticateOAuthToken, type ResourceKind, type TokenIssuer } from './oauth-tokens.js';

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
 * identity-provider JWT, told apart by the token's issuer.
 */
export async function authenticate(db: Database, verifiers: CredentialVerifiers, presented: PresentedCredential, now: Date): Promise<Caller> {
  const apiKey = presented.apiKeyHeader?.trim();
  if (apiKey) return authenticateApiKey(db, apiKey, now);

  const authorization = presented.authorizationHeader?.trim();
  if (!authorization) {
    throw new ApiError('unauthenticated', 'No credential: send X-API-Key or Authorization: Bearer <key or token>.');
  }
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match?.[1]) throw new ApiError('invalid_token', 'The Authorization header must be "Bearer <key or token>".');
  const bearer = match[1];
  if (looksLikeApiKey(bearer)) return authenticateApiKey(db, bearer, now);

  let issuer: string | undefined;
  try {
    issuer = decodeJwt(bearer).iss;
  } catch {
    throw new ApiError('invalid_token', 'The bearer token is neither an API key nor a JWT.');
  }
  if (issuer === verifiers.oauth.issuer) return authenticateOAuthToken(db, verifiers.oauth, bearer, now, presented.resource ?? 'api');
  if (verifiers.identityProvider && issuer === verifiers.identityProvider.issuer) {
    return authenticateIdentityProviderToken(db, verifiers.identityProvider, bearer, now);
  }
  throw new ApiError('invalid_token', 'The token was not issued by this service or a configured identity provider.');
}
