import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz } from './columns.js';
import { users, workspaces } from './tenancy.js';

/** One-time console sign-in links (embedded default): the token's SHA-256 only, 15 minutes, single use. */
export const consoleSignInLinks = pgTable(
  'console_sign_in_links',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: tstz('expires_at').notNull(),
    usedAt: tstz('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('console_links_hash_idx').on(t.tokenHash)],
);

/**
 * Console sessions: the cookie carries a random token whose SHA-256 is stored here. A session
 * belongs to a person; the workspace they are looking at is re-checked against membership on every request.
 */
export const consoleSessions = pgTable(
  'console_sessions',
  {
    id: uuid('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id').references(() => workspaces.id, { onDelete: 'set null' }),
    expiresAt: tstz('expires_at').notNull(),
    revokedAt: tstz('revoked_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('console_sessions_hash_idx').on(t.tokenHash), index('console_sessions_user_idx').on(t.userId)],
);

/**
 * A one-time message for a console session's next page (POST-redirect-GET): a secret shown once (a
 * new API key, a webhook secret) must not travel in the URL, so it waits here, sealed, until the
 * page after the redirect reads and deletes it. One per session; a newer one replaces it.
 */
export const consoleFlashes = pgTable('console_flashes', {
  sessionId: uuid('session_id')
    .primaryKey()
    .references(() => consoleSessions.id, { onDelete: 'cascade' }),
  sealed: text('sealed').notNull(),
  createdAt: createdAt(),
});
