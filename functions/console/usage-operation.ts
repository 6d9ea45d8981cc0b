import { z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { usageCounters, workspaces } from '../../schema/index.js';
import { MAX_ACTIVE_AGENT_RUNS } from '../agents/index.js';
import { DEFAULT_MONTHLY_CAPS, periodOf, QUOTA_FAMILIES } from '../limits/quota.js';
import { recentRefusals } from '../limits/refusals.js';
import { defineOperation } from '../registry.js';

const QuotaRowSchema = z.object({
  family: z.enum(QUOTA_FAMILIES),
  /** null: unmetered for this workspace (usage is still counted). */
  limit: z.number().int().nullable(),
  used: z.number().int(),
  resets_at: z.iso.datetime(),
});

const RateLimitRowSchema = z.object({
  applies_to: z.string(),
  scope: z.enum(['address', 'user', 'workspace']),
  limit: z.number().int(),
  window_seconds: z.number().int().nullable(),
});

const RefusalSchema = z.object({
  at: z.iso.datetime(),
  operation: z.string(),
  code: z.string(),
  family: z.string().nullable(),
  limit: z.number().int().nullable(),
  user_id: z.uuid().nullable(),
});

/**
 * The workspace's limits as they stand: the rate limits that apply, this month's
 * quota per family (used / limit / resets-at) and the most recent 429s its callers were answered.
 */
export const workspaceUsage = defineOperation({
  tags: ['Console'],
  stability: 'stable',
  visibility: 'console',
  agentTool: false,
  scopes: ['observability:read'],
  minRole: 'viewer',
  id: 'console.usage.get',
  method: 'get',
  path: '/console/usage',
  summary: 'Rate limits, monthly quotas and recent 429s (console)',
  output: z.object({
    rate_limits: z.array(RateLimitRowSchema),
    quotas: z.array(QuotaRowSchema),
    recent_refusals: z.array(RefusalSchema),
  }),
  async handler({ services, caller }) {
    const now = services.clock.now();
    const period = periodOf(now);
    const resetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    const [[workspace], counters, refusals] = await Promise.all([
      services.db
        .select({ overrides: workspaces.quotaOverrides })
        .from(workspaces)
        .where(eq(workspaces.id, caller.workspaceId)),
      services.db
        .select({ family: usageCounters.family, used: usageCounters.used })
        .from(usageCounters)
        .where(and(eq(usageCounters.workspaceId, caller.workspaceId), eq(usageCounters.period, period))),
      recentRefusals(services.db, caller.workspaceId),
    ]);
    const used = new Map(counters.map((c) => [c.family, c.used]));
    const perOperation = services.registry
      .published()
      .filter((op) => op.rateLimit)
      .map((op) => ({
        applies_to: op.id,
        scope: 'user' as const,
        limit: op.rateLimit?.limit ?? 0,
        window_seconds: op.rateLimit?.windowSeconds ?? null,
      }));
    return {
      rate_limits: [
        {
          applies_to: 'every request under the API prefix',
          scope: 'address' as const,
          limit: services.config.globalRateLimitPerMinute,
          window_seconds: 60,
        },
        ...perOperation,
        {
          applies_to: 'agent runs working at once',
          scope: 'workspace' as const,
          limit: MAX_ACTIVE_AGENT_RUNS,
          window_seconds: null,
        },
      ],
      quotas: QUOTA_FAMILIES.map((family) => {
        const override = workspace?.overrides?.[family];
        return {
          family,
          limit: override === undefined ? DEFAULT_MONTHLY_CAPS[family] : override,
          used: used.get(family) ?? 0,
          resets_at: resetsAt,
        };
      }),
      recent_refusals: refusals.map((r) => ({
        at: r.createdAt.toISOString(),
        operation: r.operation,
        code: r.code,
        family: r.family,
        limit: r.limit,
        user_id: r.userId,
      })),
    };
  },
});
