import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { queryRows, type Queryable } from '../../platform/db/port.js';

/** EXPLAIN (FORMAT JSON) answers one row whose one column is a one-element array of {Plan: {...}}. */
const ExplainJson = z
  .array(z.object({ Plan: z.object({ 'Total Cost': z.number().nonnegative() }).loose() }).loose())
  .length(1);

/**
 * The planner's total cost of a statement (its estimate, in Postgres cost units; nothing runs). The
 * plan column comes back parsed on some drivers and as text on others, so both are read.
 */
export async function estimatedCost(db: Queryable, statement: string): Promise<number> {
  const [row] = await queryRows<Record<string, unknown>>(db, sql.raw(`explain (format json) ${statement}`));
  const plan = row ? Object.values(row)[0] : undefined;
  const parsed = ExplainJson.parse(typeof plan === 'string' ? JSON.parse(plan) : plan);
  return parsed[0]?.Plan['Total Cost'] ?? Number.POSITIVE_INFINITY;
}
