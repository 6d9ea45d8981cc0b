import { boolean, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { oauthClients } from './credentials.js';
import { users, workspaces } from './tenancy.js';

/**
 * One consent: a member let a client act in one workspace with these scopes for this resource.
 * Codes, refresh tokens and access tokens all hang off a grant, so revoking the grant (the member
 * in the console, a replayed code, a reused refresh token) revokes everything it issued.
 */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: text('client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    scopes: text('scopes').array().notNull(),
    /** The RFC 8707 resource the tokens are bound to (their audience). */
    resource: text('resource').notNull(),
    /** Set when the first code is redeemed: a consent whose code was never used is not an authorized app. */
    activatedAt: tstz('activated_at'),
    revokedAt: tstz('revoked_at'),
    /** Why: `member`, `code_replay`, `refresh_reuse`, `client` (RFC 7009). */
    revokedReason: text('revoked_reason'),
    createdAt: createdAt(),
  },
  (t) => [index('oauth_grants_user_idx').on(t.userId)],
);

/** Authorization codes: single use, short-lived, stored as SHA-256 hashes with the PKCE challenge they were issued for. */
export const oauthAuthorizationCodes = pgTable(
  'oauth_authorization_codes',
  {
    id: uuid('id').primaryKey(),
    codeHash: text('code_hash').notNull(),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    redirectUri: text('redirect_uri').notNull(),
    /** Whether the authorization request named the redirect URI; if it did, the token request must repeat it (RFC 6749 4.1.3). */
    redirectUriSent: boolean('redirect_uri_sent').notNull(),
    codeChallenge: text('code_challenge').notNull(),
    expiresAt: tstz('expires_at').notNull(),
    redeemedAt: tstz('redeemed_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oauth_codes_hash_idx').on(t.codeHash)],
);

/** Refresh tokens: each is used once and replaced (rotation); presenting a used one revokes its grant. */
export const oauthRefreshTokens = pgTable(
  'oauth_refresh_tokens',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    grantId: uuid('grant_id')
      .notNull()
      .references(() => oauthGrants.id, { onDelete: 'cascade' }),
    expiresAt: tstz('expires_at').notNull(),
    rotatedAt: tstz('rotated_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oauth_refresh_hash_idx').on(t.tokenHash), index('oauth_refresh_grant_idx').on(t.grantId)],
);
