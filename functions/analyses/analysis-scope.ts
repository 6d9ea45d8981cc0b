import { z } from '@hono/zod-openapi';
import { sql, type SQL } from 'drizzle-orm';
import { interactionInScope } from '../search/index.js';
import type { AnalysisPeriod } from './analysis.js';

/**
 * The conversations an analysis of what customers say reads, as SQL over `interactions i` (joined to
 * its account `a` when it has one): in the workspace, not excluded, in the period, on the accounts,
 * regions, industries and audience asked. Every predicate names the caller's workspace.
 */

export type Audience = 'customers' | 'prospects' | 'both' | 'all';

export const CONVERSATION_KINDS = ['call', 'meeting', 'email'] as const;
export type ConversationKind = (typeof CONVERSATION_KINDS)[number];

/** Which conversations an analysis of what customers say reads: any of calls, meetings and emails. */
export const ConversationKindsSchema = z
  .array(z.enum(CONVERSATION_KINDS))
  .min(1)
  .max(3)
  .default([...CONVERSATION_KINDS])
  .openapi({ description: 'Which conversations are read: calls, meetings, emails (default: all three).' });

/** The kinds in words: "calls, meetings and emails", "emails". */
export function kindWords(kinds: readonly ConversationKind[]): string {
  const words = CONVERSATION_KINDS.filter((k) => kinds.includes(k)).map((k) => `${k}s`);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : (words[0] ?? '');
}

export interface ConversationFilters {
  period?: AnalysisPeriod | undefined;
  accounts?: readonly string[] | undefined;
  regions?: readonly string[] | undefined;
  industries?: readonly string[] | undefined;
  audience?: Audience | undefined;
  kinds?: readonly ConversationKind[] | undefined;
}

const lowered = (values: readonly string[]): SQL =>
  sql.join(
    values.map((v) => sql`${v.toLowerCase()}`),
    sql`, `,
  );

/**
 * A customer: an account the CRM types `customer`, or one with a won deal. A prospect: any other
 * account the CRM types `sales_target` or that has a deal. Investors, vendors, press and partners
 * are neither, so their asks are not the customers'.
 */
export function audienceOf(workspaceId: string, audience: Audience, account: SQL): SQL {
  const won = sql`exists (select 1 from deals dw where dw.workspace_id = ${workspaceId} and dw.account_id = ${account}.id and dw.is_won)`;
  // coalesce: an untyped account is not a customer by type (null would make `not customer` null too).
  const customer = sql`(coalesce(${account}.type, '') = 'customer' or ${won})`;
  const prospect = sql`(not ${customer} and (coalesce(${account}.type, '') = 'sales_target' or exists (
    select 1 from deals dp where dp.workspace_id = ${workspaceId} and dp.account_id = ${account}.id)))`;
  if (audience === 'customers') return customer;
  if (audience === 'prospects') return prospect;
  if (audience === 'both') return sql`(${customer} or ${prospect})`;
  return sql`true`;
}

/** Whether a row is one of the account's kind for the audience: "customer" or "prospect". */
export function accountKind(workspaceId: string, account: SQL): SQL {
  return sql`case when ${audienceOf(workspaceId, 'customers', account)} then 'customer'
    when ${audienceOf(workspaceId, 'prospects', account)} then 'prospect' else coalesce(${account}.type, 'other') end`;
}

/** The predicate over `i` (an interaction) and `a` (its account, joined) the filters give. */
export function conversationsWhere(workspaceId: string, filters: ConversationFilters): SQL {
  const parts: SQL[] = [sql`i.workspace_id = ${workspaceId}`, interactionInScope(workspaceId, sql`i.id`)];
  if (filters.period)
    parts.push(sql`i.occurred_at >= ${filters.period.from}::date and i.occurred_at < ${filters.period.to}::date`);
  if (filters.accounts?.length) parts.push(sql`lower(a.name) in (${lowered(filters.accounts)})`);
  if (filters.regions?.length) parts.push(sql`lower(a.region) in (${lowered(filters.regions)})`);
  if (filters.industries?.length) parts.push(sql`lower(a.industry) in (${lowered(filters.industries)})`);
  if (filters.audience && filters.audience !== 'all') parts.push(audienceOf(workspaceId, filters.audience, sql`a`));
  if (filters.kinds && filters.kinds.length < CONVERSATION_KINDS.length)
    parts.push(
      sql`i.kind in (${sql.join(
        filters.kinds.map((k) => sql`${k}`),
        sql`, `,
      )})`,
    );
  return sql.join(parts, sql` and `);
}

/** The filters in words: " on Acme, in EMEA, in healthcare, customers only". */
export function filterWords(filters: ConversationFilters): string {
  const out: string[] = [];
  if (filters.accounts?.length) out.push(`on ${filters.accounts.join(', ')}`);
  if (filters.regions?.length) out.push(`in ${filters.regions.join(', ')}`);
  if (filters.industries?.length) out.push(`in ${filters.industries.join(', ')}`);
  if (filters.audience === 'customers') out.push('customers only');
  if (filters.audience === 'prospects') out.push('prospects only');
  return out.length ? ` ${out.join(', ')}` : '';
}
