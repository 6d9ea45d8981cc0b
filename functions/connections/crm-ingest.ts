import { and, eq, inArray } from 'drizzle-orm';
import { accounts, contacts, deals } from '../../schema/index.js';
import type { AccountType } from '../../schema/warehouse-accounts.js';
import type { DealStage } from '../../schema/warehouse-deals.js';
import type { Queryable } from '../../platform/db/port.js';
import { newId } from '../../platform/ids.js';
import { upsertRows } from '../../platform/db/upsert-rows.js';

/**
 * CRM records into the warehouse, whichever CRM they come from (HubSpot, Salesforce map theirs to
 * these shapes): upserted on (workspace, source, provider id), so a repeated page changes nothing
 * and a modified record updates its row in place. Contacts and deals are linked to the account of
 * their CRM company; a contact without one is skipped (the warehouse keeps contacts under
 * accounts) and counted as such.
 */
export interface CrmCompany {
  externalId: string;
  name: string;
  domain: string | null;
  type: AccountType | null;
  industry: string | null;
  employeeCount: number | null;
  createdAt: Date | null;
}

export interface CrmContact {
  externalId: string;
  companyExternalId: string | null;
  name: string;
  email: string | null;
  title: string | null;
  createdAt: Date | null;
}

export interface CrmDeal {
  externalId: string;
  companyExternalId: string | null;
  name: string;
  stage: DealStage;
  amount: number | null;
  currency: string | null;
  closeDate: string | null;
  probability: number | null;
  isClosed: boolean;
  isWon: boolean;
  createdAt: Date | null;
  updatedAt: Date | null;
}

export type CrmPage =
  | { kind: 'companies'; rows: CrmCompany[] }
  | { kind: 'contacts'; rows: CrmContact[] }
  | { kind: 'deals'; rows: CrmDeal[] };

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

// ---- parsing provider values --------------------------------------------------------------------

export const str = (v: string | null | undefined): string | null =>
  v === undefined || v === null || v.trim() === '' ? null : v.trim();
export const num = (v: string | number | null | undefined): number | null => {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  const s = str(v);
  if (s === null) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
};
/** An ISO timestamp or epoch milliseconds, as providers send them. */
export const time = (v: string | null | undefined): Date | null => {
  const s = str(v);
  if (s === null) return null;
  const ms = /^\d+$/.test(s) ? Number(s) : Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms);
};
/** A probability as a whole percentage, from a 0-1 fraction (HubSpot) or a 0-100 percentage (Salesforce). */
export const percent = (v: number | null, scale: 'fraction' | 'percent'): number | null =>
  v === null ? null : Math.max(0, Math.min(100, Math.round(scale === 'fraction' ? v * 100 : v)));
/** `https://www.acme.com/about` → `acme.com`. */
export function domainFromWebsite(website: string | null): string | null {
  if (!website) return null;
  try {
    const host = new URL(/^[a-z]+:\/\//i.test(website) ? website : `https://${website}`).hostname.toLowerCase();
    return host.replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}

const newest = (dates: (Date | null)[]): Date | null =>
  dates.reduce<Date | null>((a, d) => (d && (!a || d > a) ? d : a), null);

async function accountIdsFor(
  db: Queryable,
  workspaceId: string,
  source: string,
  companyIds: readonly string[],
): Promise<Map<string, string>> {
  if (companyIds.length === 0) return new Map();
  const rows = await db
    .select({ id: accounts.id, externalId: accounts.externalId })
    .from(accounts)
    .where(
      and(
        eq(accounts.workspaceId, workspaceId),
        eq(accounts.source, source),
        inArray(accounts.externalId, [...new Set(companyIds)]),
      ),
    );
  return new Map(rows.map((r) => [r.externalId as string, r.id]));
}

/**
 * Plan a page's upserts. The account links are read here (`db`), before the commit: a connection
 * syncs one page at a time, and companies are synced before the contacts and deals that point at them.
 */
export async function planCrmPage(
  db: Queryable,
  workspaceId: string,
  source: string,
  page: CrmPage,
  now: Date,
): Promise<PlannedPage> {
  if (page.rows.length === 0) return { result: { written: 0, skipped: 0, latestEventAt: null }, write: async () => {} };
  switch (page.kind) {
    case 'companies': {
      const rows = page.rows.map((c) => ({
        id: newId(),
        workspaceId,
        name: c.name,
        domain: c.domain,
        type: c.type,
        industry: c.industry,
        employeeCount: c.employeeCount,
        source,
        externalId: c.externalId,
        createdAt: c.createdAt ?? now,
      }));
      return {
        result: { written: rows.length, skipped: 0, latestEventAt: newest(rows.map((r) => r.createdAt)) },
        write: async (tx) => {
          await upsertRows(tx, accounts, rows, {
            target: [accounts.workspaceId, accounts.source, accounts.externalId],
            update: ['name', 'domain', 'type', 'industry', 'employeeCount'],
          });
        },
      };
    }
    case 'contacts': {
      const accountOf = await accountIdsFor(
        db,
        workspaceId,
        source,
        page.rows.map((c) => c.companyExternalId).filter((v): v is string => v !== null),
      );
      const rows = page.rows.flatMap((c) => {
        const accountId = accountOf.get(c.companyExternalId ?? '');
        return accountId
          ? [
              {
                id: newId(),
                workspaceId,
                accountId,
                name: c.name,
                email: c.email,
                title: c.title,
                source,
                externalId: c.externalId,
                createdAt: c.createdAt ?? now,
              },
            ]
          : [];
      });
      return {
        result: {
          written: rows.length,
          skipped: page.rows.length - rows.length,
          latestEventAt: newest(rows.map((r) => r.createdAt)),
        },
        write: async (tx) => {
          if (rows.length === 0) return;
          await upsertRows(tx, contacts, rows, {
            target: [contacts.workspaceId, contacts.source, contacts.externalId],
            update: ['accountId', 'name', 'email', 'title'],
          });
        },
      };
    }
    case 'deals': {
      const accountOf = await accountIdsFor(
        db,
        workspaceId,
        source,
        page.rows.map((d) => d.companyExternalId).filter((v): v is string => v !== null),
      );
      const rows = page.rows.map((d) => ({
        id: newId(),
        workspaceId,
        accountId: accountOf.get(d.companyExternalId ?? '') ?? null,
        name: d.name,
        stage: d.stage,
        amount: d.amount,
        currency: d.currency,
        closeDate: d.closeDate,
        probability: d.probability,
        isClosed: d.isClosed || d.stage === 'closed_won' || d.stage === 'closed_lost',
        isWon: d.isWon || d.stage === 'closed_won',
        source,
        externalId: d.externalId,
        occurredAt: d.createdAt ?? now,
        updatedAt: d.updatedAt ?? now,
      }));
      return {
        result: { written: rows.length, skipped: 0, latestEventAt: newest(rows.map((r) => r.occurredAt)) },
        write: async (tx) => {
          await upsertRows(tx, deals, rows, {
            target: [deals.workspaceId, deals.source, deals.externalId],
            update: [
              'accountId',
              'name',
              'stage',
              'amount',
              'currency',
              'closeDate',
              'probability',
              'isClosed',
              'isWon',
              'updatedAt',
            ],
          });
        },
      };
    }
  }
}
