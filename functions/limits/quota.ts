import { and, eq, sql } from 'drizzle-orm';
import { usageCounters, workspaces } from '../../schema/index.js';
import { queryRows, type Queryable } from '../../platform/db/port.js';
import { ApiError } from '../../platform/errors.js';

/** Verb families with a monthly per-workspace cap (spec, Errors 1 and Limits). */
export const QUOTA_FAMILIES = ['search', 'enrich', 'lookalike', 'evals', 'research', 'optimizer'] as const;
export type QuotaFamily = (typeof QUOTA_FAMILIES)[number];

/**
 * Caps that hold unless a workspace overrides them (workspaces.quota_overrides). Research and the
 * optimizer have caps in the spec; the other families are optional and unset costs nothing.
 */
export const DEFAULT_MONTHLY_CAPS: Record<QuotaFamily, number | null> = {
  search: null,
  enrich: null,
  lookalike: null,
  evals: null,
  research: 100,
  optimizer: 1000,
};

export interface QuotaStatus {
  limit: number;
  used: number;
  remaining: number;
  /** ISO time the month rolls over (UTC). */
  resets_at: string;
}

export const periodOf = (now: Date): string => now.toISOString().slice(0, 7);
const nextPeriodStart = (now: Date): Date => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

/**
 * The quota read, built once per database (or transaction) and run with placeholders: setup/status
 * runs it on every call, and building drizzle's SQL cost about as much as PGlite running it.
 */
const quotaReads = new WeakMap<Queryable, ReturnType<typeof prepareQuotaRead>>();
const prepareQuotaRead = (db: Queryable) =>
  db
    .select({ overrides: workspaces.quotaOverrides, used: usageCounters.used })
    .from(workspaces)
    .leftJoin(
      usageCounters,
      and(
        eq(usageCounters.workspaceId, workspaces.id),
        eq(usageCounters.family, sql.placeholder('family')),
        eq(usageCounters.period, sql.placeholder('period')),
      ),
    )
    .where(eq(workspaces.id, sql.placeholder('workspaceId')))
    .prepare('quota_read');

/** The family's standing this month, or null when the family is not metered for this workspace (one statement). */
export async function readQuota(
  db: Queryable,
  workspaceId: string,
  family: QuotaFamily,
  now: Date,
): Promise<QuotaStatus | null> {
  let read = quotaReads.get(db);
  if (!read) {
    read = prepareQuotaRead(db);
    quotaReads.set(db, read);
  }
  const [row] = await read.execute({ workspaceId, family, period: periodOf(now) });
  const override = row?.overrides?.[family];
  const limit = override === undefined ? DEFAULT_MONTHLY_CAPS[family] : override;
  if (limit === null) return null;
  const used = row?.used ?? 0;
  return { limit, used, remaining: Math.max(0, limit - used), resets_at: nextPeriodStart(now).toISOString() };
}

/**
 * Count one use against the family's cap, atomically: the increment only happens while under the
 * cap, so concurrent callers can never push usage past it. Throws 429 quota_exceeded at the cap.
 * Unmetered families record usage too (for visibility) but never refuse.
 *
 * ONE statement (one round trip on Neon's HTTP transport): the cap is read from the
 * workspace's overrides inside it (absent key: the default; JSON null: unmetered) and the upsert's
 * guard compares against it, so the read and the consume cannot drift apart between statements.
 */
export async function consumeQuota(
  db: Queryable,
  workspaceId: string,
  family: QuotaFamily,
  now: Date,
): Promise<QuotaStatus | null> {
  const period = periodOf(now);
  const resetsAt = nextPeriodStart(now).toISOString();
  const fallback = DEFAULT_MONTHLY_CAPS[family];
  const [row] = await queryRows<{ cap: number | null; used: number | null }>(
    db,
    sql`with cap as (
          select case when w.quota_overrides -> ${family}::text is null then ${fallback}::int
                      else (w.quota_overrides ->> ${family}::text)::int end as cap
          from (select 1) one left join ${workspaces} w on w.id = ${workspaceId}
        ),
        counted as (
          insert into ${usageCounters} (workspace_id, family, period, used)
          select ${workspaceId}, ${family}, ${period}, 1 from cap where cap.cap is null or cap.cap > 0
          on conflict (workspace_id, family, period) do update set used = ${usageCounters}.used + 1
            where ${usageCounters}.used < coalesce((select cap from cap), 2147483647)
          returning used
        )
        select (select cap from cap) as cap, (select used from counted) as used`,
  );
  const limit = row?.cap ?? null;
  const used = row?.used ?? null;
  if (limit !== null && (used === null || used > limit)) {
    throw new ApiError(
      'quota_exceeded',
      `The monthly ${family} quota of this workspace is used up; it resets at ${resetsAt}.`,
      { family, limit, used: limit, resets_at: resetsAt },
    );
  }
  if (limit === null) return null;
  return { limit, used: used ?? limit, remaining: Math.max(0, limit - (used ?? limit)), resets_at: resetsAt };
}

/**
 * Give back one use counted by consumeQuota when the call it paid for then failed (a refusal after
 * validation, such as a workspace's concurrency cap, or an error): a call that did nothing costs nothing.
 */
export async function refundQuota(db: Queryable, workspaceId: string, family: QuotaFamily, now: Date): Promise<void> {
  await db
    .update(usageCounters)
    .set({ used: sql`greatest(${usageCounters.used} - 1, 0)` })
    .where(
      and(
        eq(usageCounters.workspaceId, workspaceId),
        eq(usageCounters.family, family),
        eq(usageCounters.period, periodOf(now)),
      ),
    );
}
