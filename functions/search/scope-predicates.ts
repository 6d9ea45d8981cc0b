import { sql, type SQL } from 'drizzle-orm';
import { BUYER_PARTICIPANT_ROLES } from '../../schema/warehouse-interactions.js';

/**
 * The data-scope predicates the gate injects into every warehouse read, written once. They take
 * the SQL expressions of the row's columns, so any lane can apply them to its own aliases.
 */

/** Tenant isolation plus the workspace's excluded-interaction settings. */
export function interactionInScope(workspaceId: string, interactionId: SQL): SQL {
  return sql`not exists (select 1 from excluded_interactions x where x.workspace_id = ${workspaceId} and x.interaction_id = ${interactionId})`;
}

export const CUSTOMER_VOICE_ACCOUNT_TYPES = ['customer', 'sales_target'] as const;

/**
 * The customer-voice predicate (spec, `audience`): keep interactions on accounts typed customer or
 * sales_target, or untyped (or with no account); drop investor, advisor, media, competitor, vendor,
 * partner, reseller and other — unless a genuine buyer took part: an external participant whose
 * role is a buyer role, or who is a CRM contact marked as a buyer.
 */
export function customerVoice(workspaceId: string, interactionId: SQL, accountId: SQL): SQL {
  const buyerRoles = sql.join(
    BUYER_PARTICIPANT_ROLES.map((r) => sql`${r}`),
    sql`, `,
  );
  return sql`(
    ${accountId} is null
    or exists (select 1 from accounts a where a.workspace_id = ${workspaceId} and a.id = ${accountId} and (a.type is null or a.type in ('customer', 'sales_target')))
    or exists (
      select 1 from participants p left join contacts c on c.id = p.contact_id and c.workspace_id = ${workspaceId}
      where p.workspace_id = ${workspaceId} and p.interaction_id = ${interactionId} and p.side = 'external'
        and (p.role in (${buyerRoles}) or coalesce(c.is_buyer, false))
    )
  )`;
}
