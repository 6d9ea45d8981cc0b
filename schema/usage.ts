import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { workspaceRef } from './columns.js';
import { workspaces } from './tenancy.js';

/** Monthly usage per workspace per verb family; incremented atomically against the family's cap. */
export const usageCounters = pgTable(
  'usage_counters',
  {
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    family: text('family').notNull(),
    /** Calendar month in UTC, "YYYY-MM". */
    period: text('period').notNull(),
    used: integer('used').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.family, t.period] })],
);
