import { sql, and, eq } from 'drizzle-orm';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { memberships, users, workspaces } from '../../schema/index.js';
import type { Database } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import type { Caller, VerifiedCredential } from './caller.js';
import { callerFromCredential, ownerColumns } from './credential-caller.js';
import { jwtFailure } from './oauth-tokens.js';
import { BUNDLE_TABLE, DEFAULT_BUNDLE, isScope, type Scope } from './scopes.js';

/** An external identity provider whose JWTs this service accepts (issuer, audience, keys from configuration). */
export interface IdentityProvider {
  issuer: string;
  audience: string;
  key: JWTVerifyGetKey | Uint8Array;
  /** Claim holding the workspace (business) id. */
  workspaceClaim: string;
  emailClaim: string;
}

export function identityProviderFromConfig(cfg: {
  IDP_ISSUER?: string | undefined;
  IDP_AUDIENCE?: string | undefined;
  IDP_JWKS_URL?: string | undefined;
  IDP_JWT_SECRET?: string | undefined;
  IDP_WORKSPACE_CLAIM: string;
  IDP_EMAIL_CLAIM: string;
}): IdentityProvider | null {
  if (!cfg.IDP_ISSUER || !cfg.IDP_AUDIENCE) return null;
  const key = cfg.IDP_JWKS_URL
    ? createRemoteJWKSet(new URL(cfg.IDP_JWKS_URL))
    : new TextEncoder().encode(cfg.IDP_JWT_SECRET ?? '');
  return {
    issuer: cfg.IDP_ISSUER,
    audience: cfg.IDP_AUDIENCE,
    key,
    workspaceClaim: cfg.IDP_WORKSPACE_CLAIM,
    emailClaim: cfg.IDP_EMAIL_CLAIM,
  };
}

/**
 * Verify an identity-provider JWT and resolve it to a member of the workspace it names. The role
 * always comes from our membership table; the token's `scope` claim narrows what it may do (absent
 * means the default Customer agent bundle).
 */
export async function authenticateIdentityProviderToken(
  db: Database,
  idp: IdentityProvider,
  token: string,
  now: Date,
): Promise<Caller> {
  return (await verifyIdentityProviderToken(db, idp, token, now)).caller;
}

export async function verifyIdentityProviderToken(
  db: Database,
  idp: IdentityProvider,
  token: string,
  now: Date,
): Promise<VerifiedCredential> {
  let payload: Record<string, unknown>;
  try {
    const verified =
      idp.key instanceof Uint8Array
        ? await jwtVerify(token, idp.key, {
            issuer: idp.issuer,
            audience: idp.audience,
            currentDate: now,
            algorithms: ['HS256', 'HS384', 'HS512'],
          })
        : await jwtVerify(token, idp.key, { issuer: idp.issuer, audience: idp.audience, currentDate: now });
    payload = verified.payload;
  } catch (e) {
    if (!(idp.key instanceof Uint8Array) && keySetUnavailable(e)) {
      throw new ApiError(
        'dependency_unavailable',
        "The identity provider's key set could not be fetched. Retry with backoff.",
      );
    }
    throw jwtFailure(e);
  }
  const workspaceId = payload[idp.workspaceClaim];
  const email = payload[idp.emailClaim];
  if (typeof workspaceId !== 'string' || !isUuid(workspaceId)) {
    throw new ApiError('invalid_token', `The token has no valid "${idp.workspaceClaim}" claim.`);
  }
  if (typeof email !== 'string' || !email.includes('@'))
    throw new ApiError('invalid_token', `The token has no valid "${idp.emailClaim}" claim.`);
  const [row] = await db
    .select({ userId: users.id, ...ownerColumns })
    .from(users)
    .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.workspaceId, workspaceId)))
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(sql`lower(${users.email}) = lower(${email})`);
  const scopeClaim = payload.scope;
  const scopes: Scope[] =
    typeof scopeClaim === 'string' ? scopeClaim.split(/\s+/).filter(isScope) : [...BUNDLE_TABLE[DEFAULT_BUNDLE].scopes];
  // jose has checked the token's expiry and there is no revocation list: the row holds neither.
  const caller = callerFromCredential(
    row && {
      ...row,
      workspaceId,
      credentialId: typeof payload.sub === 'string' ? payload.sub : row.userId,
      scopes,
      expiresAt: null,
      revoked: false,
      bundle: null,
    },
    'identity_provider',
    now,
  );
  return { caller, expiresAt: typeof payload.exp === 'number' ? new Date(payload.exp * 1000) : null, grantId: null };
}

/**
 * The JWKS could not be fetched or read (network failure, timeout, non-200, not a key set): the
 * provider's outage, not a bad credential, so the client must not be told to re-authenticate.
 * jose raises a bare JOSEError only for those fetch failures, and fetch's own errors are not JOSE errors.
 */
function keySetUnavailable(e: unknown): boolean {
  if (e instanceof joseErrors.JWKSTimeout || e instanceof joseErrors.JWKSInvalid) return true;
  if (e instanceof joseErrors.JOSEError) return e.code === joseErrors.JOSEError.code;
  return true;
}
