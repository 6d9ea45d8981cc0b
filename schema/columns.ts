import { timestamp, uuid } from 'drizzle-orm/pg-core';

/** Shared column builders so every table spells time and tenancy the same way. */
export const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
export const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
export const workspaceRef = () => uuid('workspace_id').notNull();
