import type { AccountType } from '../../../../schema/warehouse-accounts.js';
import type { DealStage } from '../../../../schema/warehouse-deals.js';
import { domainFromWebsite, num, percent, str, time, type CrmPage } from '../../crm-ingest.js';
import type { SalesforceRecord, SalesforceStream } from './client.js';

/** Salesforce's records in the warehouse's CRM shapes (crm-ingest.ts writes them). */
export const SOURCE = 'salesforce';

/** Salesforce's standard Account.Type picklist values. */
const ACCOUNT_TYPE: Record<string, AccountType> = {
  prospect: 'sales_target',
  'customer - direct': 'customer',
  'customer - channel': 'customer',
  'channel partner / reseller': 'reseller',
  'installation partner': 'partner',
  'technology partner': 'partner',
  other: 'other',
};

/** Salesforce's standard Opportunity.StageName values; custom ones read by IsClosed / IsWon, else as open (evaluation). */
const STAGE: Record<string, DealStage> = {
  prospecting: 'prospecting',
  qualification: 'discovery',
  'needs analysis': 'discovery',
  'value proposition': 'evaluation',
  'id. decision makers': 'evaluation',
  'perception analysis': 'evaluation',
  'proposal/price quote': 'proposal',
  'negotiation/review': 'negotiation',
  'closed won': 'closed_won',
  'closed lost': 'closed_lost',
};

const text = (r: SalesforceRecord, key: string): string | null => {
  const v = r[key];
  return typeof v === 'string' ? str(v) : typeof v === 'number' ? String(v) : null;
};
const flag = (r: SalesforceRecord, key: string): boolean => r[key] === true;

export function salesforcePage(stream: SalesforceStream, records: readonly SalesforceRecord[]): CrmPage {
  switch (stream) {
    case 'accounts':
      return {
        kind: 'companies',
        rows: records.map((r) => ({
          externalId: r.Id,
          name: text(r, 'Name') ?? `Salesforce account ${r.Id}`,
          domain: domainFromWebsite(text(r, 'Website')),
          type: ACCOUNT_TYPE[text(r, 'Type')?.toLowerCase() ?? ''] ?? null,
          industry: text(r, 'Industry'),
          employeeCount: num(text(r, 'NumberOfEmployees')),
          createdAt: time(text(r, 'CreatedDate')),
        })),
      };
    case 'contacts':
      return {
        kind: 'contacts',
        rows: records.map((r) => ({
          externalId: r.Id,
          companyExternalId: text(r, 'AccountId'),
          name:
            [text(r, 'FirstName'), text(r, 'LastName')].filter(Boolean).join(' ') ||
            text(r, 'Email') ||
            `Salesforce contact ${r.Id}`,
          email: text(r, 'Email'),
          title: text(r, 'Title'),
          createdAt: time(text(r, 'CreatedDate')),
        })),
      };
    case 'opportunities':
      return {
        kind: 'deals',
        rows: records.map((r) => {
          const closed = flag(r, 'IsClosed');
          const won = flag(r, 'IsWon');
          const stage =
            STAGE[text(r, 'StageName')?.toLowerCase() ?? ''] ??
            (closed ? (won ? 'closed_won' : 'closed_lost') : 'evaluation');
          return {
            externalId: r.Id,
            companyExternalId: text(r, 'AccountId'),
            name: text(r, 'Name') ?? `Salesforce opportunity ${r.Id}`,
            stage,
            amount: num(text(r, 'Amount')),
            // Single-currency orgs have no CurrencyIsoCode field; the org currency is not in the record.
            currency: null,
            closeDate: text(r, 'CloseDate'),
            probability: percent(num(text(r, 'Probability')), 'percent'),
            isClosed: closed,
            isWon: won,
            createdAt: time(text(r, 'CreatedDate')),
            updatedAt: time(r.SystemModstamp),
          };
        }),
      };
  }
}
