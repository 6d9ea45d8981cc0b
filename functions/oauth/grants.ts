import { and, eq, isNull } from 'drizzle-orm';
import { jwtVerify } from 'jose';
import {
  memberships,
  oauthAuthorizationCodes,
  oauthGrants,
  oauthRefreshTokens,
  oauthTokens,
} from '../../schema/index.js';
import type { Role } from '../../schema/tenancy.js';
import type { Database, Queryable } from '../../platform/db/port.js';
import { sha256Base64Url, sha256Hex, timingSafeEqual } from '../../platform/crypto.js';
import { newId, randomBase62 } from '../../platform/ids.js';
import { credentialCache } from '../identity/credential-cache.js';
import { issueAccessToken, type TokenIssuer } from '../identity/oauth-tokens.js';
import { isScope, type Scope } from '../identity/scopes.js';
import type { OAuthClient } from './clients.js';
import { OAuthError } from './oauth-error.js';
import { narrowToRole } from './scope-policy.js';

/** Codes live long enough for a browser redirect and one token request (OAuth 2.1 recommends minutes at most). */
export const CODE_TTL_SECONDS = 120;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
const REFRESH_TOKEN_PREFIX = 'cipr_';
const PKCE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export type RevocationReason = 'member' | 'code_replay' | 'refresh_reuse' | 'client';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
}

type Grant = typeof oauthGrants.$inferSelect;

/** The member's consent, and a single-use code for it bound to the redirect URI and PKCE challenge. */
export async function createGrantWithCode(
  db: Database,
  input: {
    workspaceId: string;
    userId: string;
    clientId: string;
    scopes: readonly Scope[];
    resource: string;
    redirectUri: string;
    redirectUriSent: boolean;
    codeChallenge: string;
    now: Date;
  },
): Promise<string> {
  const code = randomBase62(43);
  const grantId = newId();
  await db.transaction(async (tx) => {
    await tx.insert(oauthGrants).values({
      id: grantId,
      workspaceId: input.workspaceId,
      userId: input.userId,
      clientId: input.clientId,
      scopes: [...input.scopes],
      resource: input.resource,
      createdAt: input.now,
    });
    await tx.insert(oauthAuthorizationCodes).values({
      id: newId(),
      codeHash: await sha256Hex(code),
      grantId,
      redirectUri: input.redirectUri,
      redirectUriSent: input.redirectUriSent,
      codeChallenge: input.codeChallenge,
      expiresAt: new Date(input.now.getTime() + CODE_TTL_SECONDS * 1000),
    });
  });
  return code;
}

/**
 * Exchange a code (RFC 6749 4.1.3 with PKCE). The code is spent before anything else is checked, so
 * a code is redeemable once whatever the outcome; presenting a spent code again revokes every token
 * issued from it (RFC 6749 10.5), since either the client or an attacker holds a copy.
 */
export async function redeemCode(
  db: Database,
  issuer: TokenIssuer,
  input: {
    client: OAuthClient;
    code: string;
    redirectUri: string | null;
    codeVerifier: string | null;
    resource: string | null;
    now: Date;
    accessTtlSeconds: number;
  },
): Promise<TokenResponse> {
  if (!input.codeVerifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE).');
  if (!PKCE_VERIFIER.test(input.codeVerifier))
    throw new OAuthError('invalid_grant', 'code_verifier must be 43-128 characters of [A-Za-z0-9-._~].');
  const codeHash = await sha256Hex(input.code);
  const verifier = input.codeVerifier;
  // Failures after the code is spent are returned, not thrown, so the spending commits with them.
  const outcome = await db.transaction(async (tx): Promise<TokenResponse | OAuthError> => {
    const [spent] = await tx
      .update(oauthAuthorizationCodes)
      .set({ redeemedAt: input.now })
      .where(and(eq(oauthAuthorizationCodes.codeHash, codeHash), isNull(oauthAuthorizationCodes.redeemedAt)))
      .returning();
    if (!spent) {
      const [earlier] = await tx
        .select({ grantId: oauthAuthorizationCodes.grantId })
        .from(oauthAuthorizationCodes)
        .where(eq(oauthAuthorizationCodes.codeHash, codeHash));
      if (!earlier) return new OAuthError('invalid_grant', 'The authorization code is not valid.');
      await revokeGrantIn(tx, earlier.grantId, 'code_replay', input.now);
      return new OAuthError(
        'invalid_grant',
        'The authorization code was already used; every token issued from it is revoked.',
      );
    }
    const grant = await loadGrant(tx, spent.grantId);
    if (!grant || grant.clientId !== input.client.id)
      return new OAuthError('invalid_grant', 'The authorization code was not issued to this client.');
    if (grant.revokedAt) return new OAuthError('invalid_grant', 'The authorization was revoked.');
    if (spent.expiresAt.getTime() <= input.now.getTime())
      return new OAuthError('invalid_grant', 'The authorization code has expired.');
    const redirectMatches =
      input.redirectUri === null ? !spent.redirectUriSent : input.redirectUri === spent.redirectUri;
    if (!redirectMatches)
      return new OAuthError('invalid_grant', 'redirect_uri does not match the one the code was issued for.');
    if (!timingSafeEqual(await sha256Base64Url(verifier), spent.codeChallenge)) {
      return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE).');
    }
    if (input.resource !== null && input.resource !== grant.resource)
      return new OAuthError('invalid_target', 'resource differs from the one authorized.');
    const issued = await issueTokens(tx, issuer, grant, input.client, null, input.now, input.accessTtlSeconds);
    if (issued instanceof OAuthError) return issued;
    await tx.update(oauthGrants).set({ activatedAt: input.now }).where(eq(oauthGrants.id, grant.id));
    return issued;
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

/**
 * Rotate a refresh token (OAuth 2.1 4.3.1): the presented token is spent and a new one issued in
 * the same family. A spent token presented again means it leaked: the whole grant is revoked.
 */
export async function refreshGrant(
  db: Database,
  issuer: TokenIssuer,
  input: {
    client: OAuthClient;
    refreshToken: string;
    scope: string | null;
    resource: string | null;
    now: Date;
    accessTtlSeconds: number;
  },
): Promise<TokenResponse> {
  const tokenHash = await sha256Hex(input.refreshToken);
  const result = await db.transaction(async (tx) => {
    const [spent] = await tx
      .update(oauthRefreshTokens)
      .set({ rotatedAt: input.now })
      .where(and(eq(oauthRefreshTokens.tokenHash, tokenHash), isNull(oauthRefreshTokens.rotatedAt)))
      .returning();
    if (!spent) {
      const [earlier] = await tx
        .select({ grantId: oauthRefreshTokens.grantId })
        .from(oauthRefreshTokens)
        .where(eq(oauthRefreshTokens.tokenHash, tokenHash));
      if (earlier) {
        const grant = await loadGrant(tx, earlier.grantId);
        // Only the client the token belongs to can trigger the family's revocation.
        if (grant?.clientId === input.client.id) {
          await revokeGrantIn(tx, earlier.grantId, 'refresh_reuse', input.now);
          return { reused: true as const };
        }
      }
      throw new OAuthError('invalid_grant', 'The refresh token is not valid.');
    }
    const grant = await loadGrant(tx, spent.grantId);
    if (!grant || grant.clientId !== input.client.id)
      throw new OAuthError('invalid_grant', 'The refresh token was not issued to this client.');
    if (grant.revokedAt) throw new OAuthError('invalid_grant', 'The authorization was revoked.');
    if (spent.expiresAt.getTime() <= input.now.getTime())
      throw new OAuthError('invalid_grant', 'The refresh token has expired.');
    if (input.resource !== null && input.resource !== grant.resource)
      throw new OAuthError('invalid_target', 'resource differs from the one authorized.');
    let scopes: Scope[] | null = null;
    if (input.scope !== null) {
      const requested = input.scope.trim().split(/\s+/).filter(Boolean);
      const beyond = requested.filter((s) => !grant.scopes.includes(s));
      if (beyond.length > 0)
        throw new OAuthError('invalid_scope', `Not part of the authorization: ${beyond.join(', ')}.`);
      scopes = requested.filter(isScope);
    }
    const issued = await issueTokens(tx, issuer, grant, input.client, scopes, input.now, input.accessTtlSeconds);
    if (issued instanceof OAuthError) throw issued;
    return issued;
  });
  if ('reused' in result)
    throw new OAuthError('invalid_grant', 'The refresh token was already used; the authorization is revoked.');
  return result;
}

/**
 * Issue an access token (and a fresh refresh token) from a grant. Membership is read again here:
 * a member who left gets nothing, and a member whose role dropped gets only what the role allows.
 */
async function issueTokens(
  tx: Queryable,
  issuer: TokenIssuer,
  grant: Grant,
  client: OAuthClient,
  narrowed: Scope[] | null,
  now: Date,
  accessTtlSeconds: number,
): Promise<TokenResponse | OAuthError> {
  const role = await currentRole(tx, grant.workspaceId, grant.userId);
  if (!role)
    return new OAuthError('invalid_grant', 'The member who authorized this application is no longer in the workspace.');
  const { granted } = narrowToRole(narrowed ?? grant.scopes.filter(isScope), role);
  if (granted.length === 0)
    return new OAuthError('invalid_scope', "The member's role no longer allows any of the authorized scopes.");
  const { accessToken } = await issueAccessToken(tx, issuer, {
    workspaceId: grant.workspaceId,
    userId: grant.userId,
    clientId: client.id,
    scopes: granted,
    ttlSeconds: accessTtlSeconds,
    now,
    grantId: grant.id,
    audience: grant.resource,
  });
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: accessTtlSeconds,
    scope: granted.join(' '),
  };
  if (client.grantTypes.includes('refresh_token')) {
    const refreshToken = `${REFRESH_TOKEN_PREFIX}${randomBase62(48)}`;
    await tx.insert(oauthRefreshTokens).values({
      id: newId(),
      tokenHash: await sha256Hex(refreshToken),
      grantId: grant.id,
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
      createdAt: now,
    });
    response.refresh_token = refreshToken;
  }
  return response;
}

/**
 * RFC 7009 revocation. Revoking a refresh token revokes its grant (and so every access token from
 * it); revoking an access token revokes that token. A token that is unknown, malformed or another
 * client's is answered the same way (200), so the endpoint reveals nothing.
 */
export async function revokeToken(
  db: Database,
  issuer: TokenIssuer,
  client: OAuthClient,
  token: string,
  now: Date,
): Promise<void> {
  if (token.startsWith(REFRESH_TOKEN_PREFIX)) {
    const [row] = await db
      .select({ grantId: oauthRefreshTokens.grantId, clientId: oauthGrants.clientId })
      .from(oauthRefreshTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthRefreshTokens.grantId))
      .where(eq(oauthRefreshTokens.tokenHash, await sha256Hex(token)));
    if (row && row.clientId === client.id) await db.transaction((tx) => revokeGrantIn(tx, row.grantId, 'client', now));
    return;
  }
  let jti: string | undefined;
  try {
    // Signature and issuer only: an expired token may still be revoked.
    const { payload } = await jwtVerify(token, issuer.secret, {
      issuer: issuer.issuer,
      algorithms: ['HS256'],
      currentDate: new Date(0),
    });
    jti = payload.jti;
  } catch {
    return;
  }
  if (!jti) return;
  await db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.id, jti), eq(oauthTokens.clientId, client.id), isNull(oauthTokens.revokedAt)));
  credentialCache.forgetCredential(jti);
}

/** Revoke a grant and every access token issued from it; its codes and refresh tokens die with it. */
export async function revokeGrantIn(
  tx: Queryable,
  grantId: string,
  reason: RevocationReason,
  now: Date,
): Promise<void> {
  await tx
    .update(oauthGrants)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
  await tx
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.grantId, grantId), isNull(oauthTokens.revokedAt)));
  credentialCache.forgetGrant(grantId);
}

async function loadGrant(tx: Queryable, grantId: string): Promise<Grant | null> {
  const [grant] = await tx.select().from(oauthGrants).where(eq(oauthGrants.id, grantId));
  return grant ?? null;
}

async function currentRole(tx: Queryable, workspaceId: string, userId: string): Promise<Role | null> {
  const [row] = await tx
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row?.role ?? null;
}
