import { eq } from 'drizzle-orm';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { oauthGrants, oauthTokens } from '../../schema/index.js';
import type { Database, Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { ApiError } from '../../platform/errors.js';
import type { Caller, VerifiedCredential } from './caller.js';
import { callerFromCredential, selectWithOwner } from './credential-caller.js';
import { credentialCache } from './credential-cache.js';
import { isScope, type Scope } from './scopes.js';

/** How this service signs the OAuth access tokens it issues (HS256, secret from configuration). */
export interface TokenIssuer {
  secret: Uint8Array;
  /** The authorization server's issuer identifier (the service's public URL). */
  issuer: string;
  /** The protected resource: the API base URL (which covers the MCP endpoint under it). */
  audience: string;
  /** The MCP endpoint as a resource of its own (RFC 8707): tokens bound to it work there only. */
  mcpAudience: string;
}

/** Which protected resource a request addresses: tokens are checked against its audiences. */
export type ResourceKind = 'api' | 'mcp';

export async function issueAccessToken(
  db: Queryable,
  issuer: TokenIssuer,
  input: {
    workspaceId: string;
    userId: string;
    clientId: string;
    scopes: readonly Scope[];
    ttlSeconds: number;
    now: Date;
    /** The consent the token comes from (absent for operator-minted tokens). */
    grantId?: string;
    /** The resource the token is for; the API by default. */
    audience?: string;
  },
): Promise<{ accessToken: string; tokenId: string; expiresAt: Date }> {
  const tokenId = newId();
  const iat = Math.floor(input.now.getTime() / 1000);
  const expiresAt = new Date((iat + input.ttlSeconds) * 1000);
  await db.insert(oauthTokens).values({
    id: tokenId,
    workspaceId: input.workspaceId,
    userId: input.userId,
    clientId: input.clientId,
    scopes: [...input.scopes],
    grantId: input.grantId ?? null,
    expiresAt,
  });
  const accessToken = await new SignJWT({
    business_id: input.workspaceId,
    scope: input.scopes.join(' '),
    client_id: input.clientId,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
    .setIssuer(issuer.issuer)
    .setAudience(input.audience ?? issuer.audience)
    .setSubject(input.userId)
    .setJti(tokenId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + input.ttlSeconds)
    .sign(issuer.secret);
  return { accessToken, tokenId, expiresAt };
}

/**
 * Verify an access token this service issued. The signature proves origin; the database row is
 * the truth for revocation and scopes; membership is re-checked on every request (Auth 9), so a
 * member removed from the workspace loses access at once.
 */
export async function authenticateOAuthToken(
  db: Database,
  issuer: TokenIssuer,
  token: string,
  now: Date,
  resource: ResourceKind = 'api',
): Promise<Caller> {
  return (await verifyOAuthToken(db, issuer, token, now, resource)).caller;
}

export async function verifyOAuthToken(
  db: Database,
  issuer: TokenIssuer,
  token: string,
  now: Date,
  resource: ResourceKind = 'api',
): Promise<VerifiedCredential> {
  let jti: string | undefined;
  try {
    const { payload } = await jwtVerify(token, issuer.secret, {
      issuer: issuer.issuer,
      audience: resource === 'mcp' ? [issuer.audience, issuer.mcpAudience] : issuer.audience,
      algorithms: ['HS256'],
      currentDate: now,
    });
    jti = payload.jti;
  } catch (e) {
    throw jwtFailure(e);
  }
  if (!jti) throw new ApiError('invalid_token', 'The access token has no token id.');
  const [row] = await selectWithOwner(db, oauthTokens, {
    id: oauthTokens.id,
    workspaceId: oauthTokens.workspaceId,
    userId: oauthTokens.userId,
    scopes: oauthTokens.scopes,
    expiresAt: oauthTokens.expiresAt,
    revokedAt: oauthTokens.revokedAt,
    grantRevokedAt: oauthGrants.revokedAt,
    grantId: oauthTokens.grantId,
  })
    .leftJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(eq(oauthTokens.id, jti));
  const caller = callerFromCredential(
    row && {
      ...row,
      credentialId: row.id,
      scopes: row.scopes.filter(isScope),
      revoked: row.revokedAt !== null || row.grantRevokedAt !== null,
      bundle: null,
    },
    'oauth',
    now,
  );
  return { caller, expiresAt: row?.expiresAt ?? null, grantId: row?.grantId ?? null };
}

/** Revoke one access token (operators, tests); requests with it get 401 at once in this process. */
export async function revokeAccessToken(db: Queryable, tokenId: string, now: Date): Promise<void> {
  await db.update(oauthTokens).set({ revokedAt: now }).where(eq(oauthTokens.id, tokenId));
  credentialCache.forgetCredential(tokenId);
}

/** Map a jose failure to the 401 a client should act on. */
export function jwtFailure(e: unknown): ApiError {
  if (e instanceof joseErrors.JWTExpired) return new ApiError('expired_token', 'The token has expired.');
  return new ApiError('invalid_token', 'The token is not valid.');
}
