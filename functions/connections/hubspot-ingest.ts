import { and, eq, inArray, sql } from 'drizzle-orm';
import { accounts, contacts, deals } from '../../schema/index.js';
import type { AccountType } from '../../schema/warehouse-accounts.js';
import type { DealStage } from '../../schema/warehouse-deals.js';
import type { Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import type { HubSpotObject, HubSpotRecord } from './providers/hubspot.js';

/**
 * HubSpot records into the warehouse, upserted on (workspace, source, provider id): a repeated page
 * changes nothing, a modified record updates its row. Contacts and deals are linked to the account
 * of their HubSpot company; a contact without a company is skipped (the warehouse keeps contacts
 * under accounts) and counted as such.
 */
export const SOURCE = 'hubspot';

const ACCOUNT_TYPE: Record<string, AccountType> = {
  PROSPECT: 'sales_target',
  CUSTOMER: 'customer',
  PARTNER: 'partner',
  RESELLER: 'reseller',
  VENDOR: 'vendor',
  OTHER: 'other',
};

/** HubSpot's default pipeline stages, and the warehouse stage each maps to. Unknown custom stages read as open (evaluation) or closed by HubSpot's own flags. */
const STAGE: Record<string, DealStage> = {
  appointmentscheduled: 'discovery',
  qualifiedtobuy: 'discovery',
  presentationscheduled: 'evaluation',
  decisionmakerboughtin: 'proposal',
  contractsent: 'negotiation',
  closedwon: 'closed_won',
  closedlost: 'closed_lost',
};

const str = (v: string | null | undefined): string | null => (v === undefined || v === null || v.trim() === '' ? null : v.trim());
const num = (v: string | null | undefined): number | null => {
  const s = str(v);
  if (s === null) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
};
const time = (v: string | null | undefined): Date | null => {
  const s = str(v);
  if (s === null) return null;
  const ms = /^\d+$/.test(s) ? Number(s) : Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms);
};
const bool = (v: string | null | undefined): boolean => str(v)?.toLowerCase() === 'true';

export interface IngestResult {
  written: number;
  skipped: number;
  /** Newest event time among the records (for source freshness). */
  latestEventAt: Date | null;
}

/**
 * A page ready to write: its counts are known before the write (the run record states them in the
 * same commit), and `write` runs inside the page's commit.
 */
export interface PlannedPage {
  result: IngestResult;
  write(tx: Queryable): Promise<void>;
}

async function accountIdsFor(db: Queryable, workspaceId: string, companyIds: readonly string[]): Promise<Map<string, string>> {
  if (companyIds.length === 0) return new Map();
  const rows = await db
    .select({ id: accounts.id, externalId: accounts.externalId })
    .from(accounts)
    .where(and(eq(accounts.workspaceId, workspaceId), eq(accounts.source, SOURCE), inArray(accounts.externalId, [...new Set(companyIds)])));
  return new Map(rows.map((r) => [r.externalId as string, r.id]));
}

/**
 * Plan a page's upserts. The account links are read here (`db`), before the commit: a connection
 * syncs one page at a time, and companies are synced before the contacts and deals that point at them.
 */
export async function planHubSpot(db: Queryable, workspaceId: string, object: HubSpotObject, records: readonly HubSpotRecord[], dealCompanies: ReadonlyMap<string, string>, now: Date): Promise<PlannedPage> {
  if (records.length === 0) return { result: { written: 0, skipped: 0, latestEventAt: null }, write: async () => {} };
  let latest: Date | null = null;
  const seen = (d: Date | null) => {
    if (d && (!latest || d > latest)) latest = d;
  };
  switch (object) {
    case 'companies': {
      const rows = records.map((r) => {
        const created = time(r.properties.createdate) ?? now;
        seen(created);
        return {
          id: newId(),
          workspaceId,
          name: str(r.properties.name) ?? str(r.properties.domain) ?? `HubSpot company ${r.id}`,
          domain: str(r.properties.domain),
          type: ACCOUNT_TYPE[str(r.properties.type)?.toUpperCase() ?? ''] ?? null,
          industry: str(r.properties.industry),
          employeeCount: num(r.properties.numberofemployees),
          source: SOURCE,
          externalId: r.id,
          createdAt: created,
        };
      });
      return {
        result: { written: rows.length, skipped: 0, latestEventAt: latest },
        write: async (tx) => {
          await tx
            .insert(accounts)
            .values(rows)
            .onConflictDoUpdate({
              target: [accounts.workspaceId, accounts.source, accounts.externalId],
              set: { name: sql`excluded.name`, domain: sql`excluded.domain`, type: sql`excluded.type`, industry: sql`excluded.industry`, employeeCount: sql`excluded.employee_count` },
            });
        },
      };
    }
    case 'contacts': {
      const accountOf = await accountIdsFor(db, workspaceId, records.map((r) => str(r.properties.associatedcompanyid)).filter((v): v is string => v !== null));
      const rows = records.flatMap((r) => {
        const accountId = accountOf.get(str(r.properties.associatedcompanyid) ?? '');
        if (!accountId) return [];
        const created = time(r.properties.createdate) ?? now;
        seen(created);
        const name = [str(r.properties.firstname), str(r.properties.lastname)].filter(Boolean).join(' ') || str(r.properties.email) || `HubSpot contact ${r.id}`;
        return [{ id: newId(), workspaceId, accountId, name, email: str(r.properties.email), title: str(r.properties.jobtitle), source: SOURCE, externalId: r.id, createdAt: created }];
      });
      return {
        result: { written: rows.length, skipped: records.length - rows.length, latestEventAt: latest },
        write: async (tx) => {
          if (rows.length === 0) return;
          await tx
            .insert(contacts)
            .values(rows)
            .onConflictDoUpdate({
              target: [contacts.workspaceId, contacts.source, contacts.externalId],
              set: { accountId: sql`excluded.account_id`, name: sql`excluded.name`, email: sql`excluded.email`, title: sql`excluded.title` },
            });
        },
      };
    }
    case 'deals': {
      const accountOf = await accountIdsFor(db, workspaceId, [...dealCompanies.values()]);
      const rows = records.map((r) => {
        const created = time(r.properties.createdate) ?? now;
        seen(created);
        const closed = bool(r.properties.hs_is_closed);
        const won = bool(r.properties.hs_is_closed_won);
        const mapped = STAGE[str(r.properties.dealstage) ?? ''];
        const stage: DealStage = mapped ?? (closed ? (won ? 'closed_won' : 'closed_lost') : 'evaluation');
        const probability = num(r.properties.hs_deal_stage_probability);
        return {
          id: newId(),
          workspaceId,
          accountId: accountOf.get(dealCompanies.get(r.id) ?? '') ?? null,
          name: str(r.properties.dealname) ?? `HubSpot deal ${r.id}`,
          stage,
          amount: num(r.properties.amount),
          currency: str(r.properties.deal_currency_code),
          closeDate: time(r.properties.closedate)?.toISOString().slice(0, 10) ?? null,
          probability: probability === null ? null : Math.max(0, Math.min(100, Math.round(probability <= 1 ? probability * 100 : probability))),
          isClosed: closed || stage === 'closed_won' || stage === 'closed_lost',
          isWon: won || stage === 'closed_won',
          source: SOURCE,
          externalId: r.id,
          occurredAt: created,
          updatedAt: time(r.properties.hs_lastmodifieddate) ?? now,
        };
      });
      const write = async (tx: Queryable) => {
        await tx
        .insert(deals)
        .values(rows)
        .onConflictDoUpdate({
          target: [deals.workspaceId, deals.source, deals.externalId],
          set: {
            accountId: sql`excluded.account_id`,
            name: sql`excluded.name`,
            stage: sql`excluded.stage`,
            amount: sql`excluded.amount`,
            currency: sql`excluded.currency`,
            closeDate: sql`excluded.close_date`,
            probability: sql`excluded.probability`,
            isClosed: sql`excluded.is_closed`,
            isWon: sql`excluded.is_won`,
            updatedAt: sql`excluded.updated_at`,
          },
        });
      };
      return { result: { written: rows.length, skipped: 0, latestEventAt: latest }, write };
    }
  }
}
