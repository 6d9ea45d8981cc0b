import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { queryRows, type Queryable } from '../../platform/db/port.js';

/** One node of EXPLAIN (FORMAT JSON): its cost and its children (subplans, CTEs and InitPlans among them). */
interface PlanNode {
  'Node Type': string;
  'Total Cost': number;
  'Plan Rows': number;
  'Parent Relationship'?: string | undefined;
  Plans?: PlanNode[] | undefined;
}
const PlanNodeSchema: z.ZodType<PlanNode> = z.lazy(() =>
  z
    .object({
      'Node Type': z.string(),
      'Total Cost': z.number().nonnegative(),
      'Plan Rows': z.number().nonnegative(),
      'Parent Relationship': z.string().optional(),
      Plans: z.array(PlanNodeSchema).optional(),
    })
    .loose(),
);
/** EXPLAIN (FORMAT JSON) answers one row whose one column is a one-element array of {Plan: {...}}. */
const ExplainJson = z.array(z.object({ Plan: PlanNodeSchema }).loose()).length(1);

/**
 * The planner's estimate of a statement's work (Postgres cost units; nothing runs): the costliest node
 * anywhere in its plan. Not the root's cost: a Limit (and a Limit under an aggregate, a CTE, a
 * subquery) costs only the fraction of its input it expects to read before it has enough rows, so
 * `limit 1` over a costly join with a filter that never matches plans cheap at the root and still reads
 * the whole join. Every node's own total counts what it does in full, so the largest one bounds the
 * work whatever limits sit above it. A node run once per row of another (the inner side of a nested
 * loop, a correlated subplan) is costed per run; where a Limit beneath it discounted that run, its cost is
 * multiplied by the rows it runs for, as the limit may never be met. A plan is at most a few hundred
 * nodes: walked with a stack.
 * The plan column comes back parsed on some drivers and as text on others, so both are read.
 */
export async function estimatedCost(db: Queryable, statement: string): Promise<number> {
  const [row] = await queryRows<Record<string, unknown>>(db, sql.raw(`explain (format json) ${statement}`));
  const plan = row ? Object.values(row)[0] : undefined;
  const parsed = ExplainJson.parse(typeof plan === 'string' ? JSON.parse(plan) : plan);
  const root = parsed[0]?.Plan;
  return root ? costliestNode(root) : Number.POSITIVE_INFINITY;
}

function costliestNode(root: PlanNode): number {
  let costliest = 0;
  const stack: { node: PlanNode; runs: number }[] = [{ node: root, runs: 1 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { node, runs } = next;
    costliest = Math.max(costliest, node['Total Cost'] * runs);
    const children = node.Plans ?? [];
    const outerRows = Math.max(1, children[0]?.['Plan Rows'] ?? 1);
    children.forEach((child, i) => {
      const perRowOf =
        node['Node Type'] === 'Nested Loop' && i === 1
          ? outerRows
          : child['Parent Relationship'] === 'SubPlan'
            ? Math.max(1, node['Plan Rows'])
            : 1;
      stack.push({ node: child, runs: perRowOf > 1 && holdsLimit(child) ? runs * perRowOf : runs });
    });
  }
  return costliest;
}

function holdsLimit(node: PlanNode): boolean {
  const stack = [node];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (next['Node Type'] === 'Limit') return true;
    if (next.Plans) stack.push(...next.Plans);
  }
  return false;
}
