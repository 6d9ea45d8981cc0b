import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { users, workspaces } from './tenancy.js';

/** API keys: only the SHA-256 hash of the key is stored; the plaintext is shown once at creation. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The first characters of the key (service prefix included), for recognising a key in lists. */
    prefix: text('prefix').notNull(),
    keyHash: text('key_hash').notNull(),
    bundle: text('bundle').notNull(),
    scopes: text('scopes').array().notNull(),
    expiresAt: tstz('expires_at'),
    revokedAt: tstz('revoked_at'),
    lastUsedAt: tstz('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('api_keys_hash_idx').on(t.keyHash), index('api_keys_workspace_idx').on(t.workspaceId)],
);

/**
 * OAuth 2.0 clients (RFC 7591 dynamic registration). Clients are not tenant data: a client may
 * serve many workspaces. They are kept per issuer (the service's public URL), so a client
 * registered at one deployment's address is unknown at another's; null means any issuer (clients
 * made by an operator, not registered).
 */
export const oauthClients = pgTable('oauth_clients', {
  id: text('id').primaryKey(),
  issuer: text('issuer'),
  name: text('name').notNull(),
  redirectUris: text('redirect_uris').array().notNull(),
  grantTypes: text('grant_types').array().notNull().default(['authorization_code', 'refresh_token']),
  /** `none` (public client, PKCE only), `client_secret_basic` or `client_secret_post`. */
  tokenEndpointAuthMethod: text('token_endpoint_auth_method').notNull().default('none'),
  /** SHA-256 of the client secret for confidential clients; null for public (PKCE-only) clients. */
  secretHash: text('secret_hash'),
  createdAt: createdAt(),
});

/**
 * Access tokens this service issued. The token itself is a signed JWT whose `jti` is this row's id,
 * so a token can be revoked and its scopes and expiry are checked against the database.
 */
export const oauthTokens = pgTable(
  'oauth_tokens',
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
    /** The grant (one consent) the token came from; revoking the grant revokes it. Null for tokens minted by an operator. */
    grantId: uuid('grant_id'),
    expiresAt: tstz('expires_at').notNull(),
    revokedAt: tstz('revoked_at'),
    lastUsedAt: tstz('last_used_at'),
    createdAt: createdAt(),
  },
  (t) => [index('oauth_tokens_workspace_idx').on(t.workspaceId), index('oauth_tokens_grant_idx').on(t.grantId)],
);
