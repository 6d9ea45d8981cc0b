import { sql } from 'drizzle-orm';
import { boolean, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid, index } from 'drizzle-orm/pg-core';
import { createdAt, workspaceRef } from './columns.js';

export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** A tenant. Its id is the spec's `business_id`. */
export const workspaces = pgTable('workspaces', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  /** Per-family monthly caps that override the code defaults, e.g. {"search": 5000}; null clears a cap. */
  quotaOverrides: jsonb('quota_overrides').$type<Record<string, number | null>>().notNull().default({}),
  isDemo: boolean('is_demo').notNull().default(false),
  createdAt: createdAt(),
});

/** A person, across workspaces. Identity only; what they may do lives in memberships. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('users_email_lower_idx').on(sql`lower(${t.email})`)],
);

export const memberships = pgTable(
  'memberships',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<Role>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index('memberships_user_idx').on(t.userId)],
);
