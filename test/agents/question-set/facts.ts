import type { Sql } from './judge.js';

/**
 * Facts of the seeded demo corpus, each one SQL statement written for the question set alone
 * (never the search lanes' compiler or the local model's code). `$1` is the workspace; the asked
 * day is the corpus's "now", 2026-11-20. Excluded interactions are left out, as the product does.
 */

export const TODAY = '2026-11-20';
/** [from, to) of the periods the questions name, as of TODAY. */
export const P = {
  thisQuarter: ['2026-10-01', '2027-01-01'],
  lastQuarter: ['2026-07-01', '2026-10-01'],
  nextQuarter: ['2027-01-01', '2027-04-01'],
  thisYear: ['2026-01-01', '2027-01-01'],
  lastYear: ['2025-01-01', '2026-01-01'],
  lastMonth: ['2026-10-01', '2026-11-01'],
  sinceLastMonth: ['2026-10-01', '2026-11-21'],
  last30: ['2026-10-21', '2026-11-21'],
  last45: ['2026-10-06', '2026-11-21'],
  last60: ['2026-09-21', '2026-11-21'],
  last14: ['2026-11-06', '2026-11-21'],
  recent: ['2026-08-22', '2026-11-21'],
  next30: ['2026-11-20', '2026-12-21'],
} as const satisfies Record<string, readonly [string, string]>;
export type Period = keyof typeof P;

/** An interaction the workspace has not excluded (`i` is interactions). */
export const KEPT = 'not exists (select 1 from excluded_interactions x where x.interaction_id = i.id)';
const names = (rows: { name: string }[]) => rows.map((r) => r.name);

export const facts = {
  openDealsOf: async (sql: Sql, account: string) =>
    names(
      await sql<{ name: string }>(
        `select d.name from deals d join accounts a on a.id = d.account_id
         where d.workspace_id = $1 and a.name = $2 and not d.is_closed`,
        [account],
      ),
    ),
  /** Deals by a filter written in SQL over `d` (deals) and `a` (accounts). */
  dealNames: async (sql: Sql, where: string, params: unknown[] = []) =>
    names(
      await sql<{ name: string }>(
        `select d.name from deals d left join accounts a on a.id = d.account_id where d.workspace_id = $1 and ${where}`,
        params,
      ),
    ),
  dealCount: async (sql: Sql, where: string, params: unknown[] = []) =>
    Number(
      (
        await sql<{ n: number }>(
          `select count(*)::int as n from deals d left join accounts a on a.id = d.account_id where d.workspace_id = $1 and ${where}`,
          params,
        )
      )[0]?.n,
    ),
  dealSum: async (sql: Sql, where: string, params: unknown[] = []) =>
    Number(
      (
        await sql<{ s: string }>(
          `select coalesce(sum(d.amount), 0)::text as s from deals d left join accounts a on a.id = d.account_id where d.workspace_id = $1 and ${where}`,
          params,
        )
      )[0]?.s,
    ),
  /** Interactions (not excluded) by a filter over `i` and `a`, counted. */
  interactionCount: async (sql: Sql, where: string, params: unknown[] = []) =>
    Number(
      (
        await sql<{ n: number }>(
          `select count(*)::int as n from interactions i left join accounts a on a.id = i.account_id
           where i.workspace_id = $1 and ${KEPT} and ${where}`,
          params,
        )
      )[0]?.n,
    ),
  /** Interactions that mention a name anywhere: title, summary, email body or a transcript turn. */
  mentionCount: async (sql: Sql, name: string, period: readonly [string, string] = ['1900-01-01', '2999-01-01']) =>
    Number(
      (
        await sql<{ n: number }>(
          `select count(*)::int as n from interactions i where i.workspace_id = $1 and ${KEPT}
             and i.occurred_at >= $3::date and i.occurred_at < $4::date
             and (i.title ilike '%' || $2 || '%' or i.summary ilike '%' || $2 || '%' or i.body ilike '%' || $2 || '%' or exists (
               select 1 from transcript_turns t where t.interaction_id = i.id and t.text ilike '%' || $2 || '%'))`,
          [name, period[0], period[1]],
        )
      )[0]?.n,
    ),
  /** The accounts whose interactions mention a name anywhere (as mentionCount reads it), in the period. */
  accountsMentioning: async (sql: Sql, name: string, period: readonly [string, string]) =>
    names(
      await sql<{ name: string }>(
        `select distinct a.name from interactions i join accounts a on a.id = i.account_id
         where i.workspace_id = $1 and ${KEPT} and i.occurred_at >= $3::date and i.occurred_at < $4::date
           and (i.title ilike '%' || $2 || '%' or i.summary ilike '%' || $2 || '%' or i.body ilike '%' || $2 || '%' or exists (
             select 1 from transcript_turns t where t.interaction_id = i.id and t.text ilike '%' || $2 || '%'))`,
        [name, period[0], period[1]],
      ),
    ),
  /** The latest assessment of a criterion per open deal, filtered by a condition over `q` and `d`. */
  latestQualification: async (sql: Sql, criterion: string, where: string, params: unknown[] = []) =>
    sql<{ deal: string; status: string; notes: string | null; account: string | null }>(
      `select d.name as deal, q.status, q.notes, a.name as account from deals d
       left join accounts a on a.id = d.account_id
       join lateral (select * from deal_qualification q where q.deal_id = d.id and q.criterion = $2
                     order by q.occurred_at desc, q.id limit 1) q on true
       where d.workspace_id = $1 and ${where}`,
      [criterion, ...params],
    ),
  /** Open deals with no interaction linked to them since `cutoff` (or none at all). */
  quietDeals: async (sql: Sql, cutoff: string) =>
    names(
      await sql<{ name: string }>(
        `select d.name from deals d where d.workspace_id = $1 and not d.is_closed and coalesce((
           select max(i.occurred_at) from interactions i where i.deal_id = d.id and ${KEPT}), '1900-01-01') < $2::date`,
        [cutoff],
      ),
    ),
  /** Accounts whose latest interaction is before `cutoff`. */
  /** Accounts whose last touch falls in [from, to): quiet for a shorter window, not for a longer one. */
  lastTouchedBetween: async (sql: Sql, from: string, to: string) =>
    names(
      await sql<{ name: string }>(
        `select a.name from accounts a join interactions i on i.account_id = a.id and ${KEPT}
         where a.workspace_id = $1 group by a.name having max(i.occurred_at) >= $2::date and max(i.occurred_at) < $3::date`,
        [from, to],
      ),
    ),
  /** Buyers (not competitors, vendors, investors or partners) with no touch since the cutoff. */
  /** Accounts that are not buyers (their silence is not a seller's question). */
  notBuyers: async (sql: Sql) =>
    names(
      await sql<{ name: string }>(
        `select a.name from accounts a where a.workspace_id = $1 and a.type in ('competitor', 'vendor', 'investor', 'partner')`,
      ),
    ),
  quietAccounts: async (sql: Sql, cutoff: string) =>
    names(
      await sql<{ name: string }>(
        `select a.name from accounts a join interactions i on i.account_id = a.id and ${KEPT}
         where a.workspace_id = $1 and coalesce(a.type, '') not in ('competitor', 'vendor', 'investor', 'partner')
         group by a.name having max(i.occurred_at) < $2::date`,
        [cutoff],
      ),
    ),
};
