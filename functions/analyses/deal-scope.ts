import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { parseIsoDate } from '../../platform/validation.js';
import type { AnalysisPeriod } from './analysis.js';

/**
 * What the deal analyses (renewal risk, champion changes, an account's history) share: the request
 * fields that narrow deals — owners, accounts, regions, industries — and the SQL each one becomes,
 * always inside the caller's workspace. Deals are aliased `d`, their account `a` (left-joined).
 */

const Names = (max = 50) => z.array(z.string().trim().min(1).max(300)).min(1).max(max).optional();

export const DealFilterFields = {
  owners: Names(),
  accounts: Names(),
  regions: Names(20),
  industries: Names(20),
};

export interface DealFilters {
  owners?: string[] | undefined;
  accounts?: string[] | undefined;
  regions?: string[] | undefined;
  industries?: string[] | undefined;
}

/** A day of the calendar written YYYY-MM-DD, for an `as_of` field. */
export const AsOfDay = z
  .string()
  .refine((v) => parseIsoDate(v) !== null, 'a date that exists, written YYYY-MM-DD')
  .optional();

const lowered = (values: readonly string[]): SQL =>
  sql.join(
    values.map((v) => sql`${v.toLowerCase()}`),
    sql`, `,
  );

/** `d` (deals) left-joined to `a` (accounts), both in the workspace. */
export const dealsWithAccounts = (workspaceId: string): SQL =>
  sql`deals d left join accounts a on a.id = d.account_id and a.workspace_id = d.workspace_id and a.workspace_id = ${workspaceId}`;

/** The predicate of the deal filters asked (true when none is). */
export function dealFilterSql(f: DealFilters): SQL {
  const parts: SQL[] = [];
  if (f.owners?.length) parts.push(ownerMatch(sql`d.owner_email`, f.owners));
  if (f.accounts?.length) parts.push(sql`lower(a.name) in (${lowered(f.accounts)})`);
  if (f.regions?.length) parts.push(sql`lower(a.region) in (${lowered(f.regions)})`);
  if (f.industries?.length) parts.push(sql`lower(a.industry) in (${lowered(f.industries)})`);
  return parts.length ? sql.join(parts, sql` and `) : sql`true`;
}

/** An owner named by address, by the full name it spells ("zoe kim") or by the first name ("zoe"). */
export function ownerMatch(email: SQL, owners: readonly string[]): SQL {
  const names = lowered(owners);
  const local = sql`split_part(lower(${email}), '@', 1)`;
  return sql`(lower(${email}) in (${names}) or replace(${local}, '.', ' ') in (${names})
    or split_part(${local}, '.', 1) in (${names}))`;
}

/** `column` inside the period (`to` exclusive); true without one. */
export const inPeriod = (column: SQL, period: AnalysisPeriod | undefined): SQL =>
  period ? sql`(${column} >= ${period.from}::date and ${column} < ${period.to}::date)` : sql`true`;

/** What the filters asked, in words: " owned by zoe, on Acme Logistics, in EMEA". */
export function dealFilterWords(f: DealFilters): string {
  const parts: string[] = [];
  if (f.owners?.length) parts.push(`owned by ${f.owners.join(' or ')}`);
  if (f.accounts?.length) parts.push(`on ${f.accounts.join(' or ')}`);
  if (f.regions?.length) parts.push(`in ${f.regions.join(' or ')}`);
  if (f.industries?.length) parts.push(`in ${f.industries.join(' or ')} (industry)`);
  return parts.length ? ` ${parts.join(', ')}` : '';
}

/** The day an analysis reads ages against: the request's `as_of`, or today by the service's clock. */
export const asOfDay = (asked: string | undefined, now: Date): string => asked ?? now.toISOString().slice(0, 10);

/** An amount as prose writes it: 80800 → "$80,800" (the cell holds 80800). */
export const money = (amount: number | null): string =>
  amount === null ? 'no amount' : `$${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

/** Rows cut to the keys a table shows: what a tool result carries twice (the table and the result) stays small. */
export const project = <R extends Record<string, unknown>>(rows: readonly R[], keys: readonly string[]) =>
  rows.map((r) => Object.fromEntries(keys.map((k) => [k, r[k] ?? null])));
