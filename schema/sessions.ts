import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, tstz, workspaceRef } from './columns.js';
import { users, workspaces } from './tenancy.js';

/**
 * A session (spec: `Session`; the public cookbook's first recipes): a named, member-owned container
 * a client opens to group its work, with free-form metadata. Deleting one removes the row.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: tstz('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('sessions_workspace_created_idx').on(t.workspaceId, t.createdAt),
    check('sessions_name_length_check', sql`${t.name} is null or char_length(${t.name}) between 1 and 200`),
  ],
);
