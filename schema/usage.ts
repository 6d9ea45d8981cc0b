import { index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, workspaceRef } from './columns.js';
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

/**
 * The recent 429s a workspace's callers were answered (per-user operation limits, monthly quotas, the
 * cap on working agent runs), for the console's usage page. Bounded: each insert keeps only the
 * newest RECENT_REFUSALS_KEPT rows of its workspace, so it never grows with traffic.
 */
export const rateLimitRefusals = pgTable(
  'rate_limit_refusals',
  {
    id: uuid('id').primaryKey(),
    workspaceId: workspaceRef().references(() => workspaces.id, { onDelete: 'cascade' }),
    userId: uuid('user_id'),
    operation: text('operation').notNull(),
    /** `rate_limited` or `quota_exceeded`. */
    code: text('code').notNull(),
    /** The quota family, for quota_exceeded. */
    family: text('family'),
    limit: integer('limit'),
    createdAt: createdAt(),
  },
  (t) => [index('rate_limit_refusals_workspace_idx').on(t.workspaceId, t.createdAt)],
);
