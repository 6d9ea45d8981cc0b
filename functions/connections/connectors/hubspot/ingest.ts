import type { AccountType } from '../../../../schema/warehouse-accounts.js';
import type { DealStage } from '../../../../schema/warehouse-deals.js';
import {
  num,
  percent,
  str,
  time,
  type CrmCompany,
  type CrmContact,
  type CrmDeal,
  type CrmPage,
} from '../../crm-ingest.js';
import type { HubSpotObject, HubSpotRecord } from './client.js';

/** HubSpot's records in the warehouse's CRM shapes (crm-ingest.ts writes them). */
export const SOURCE = 'hubspot';

const ACCOUNT_TYPE: Record<string, AccountType> = {
  PROSPECT: 'sales_target',
  CUSTOMER: 'customer',
  PARTNER: 'partner',
  RESELLER: 'reseller',
  VENDOR: 'vendor',
  OTHER: 'other',
};

/** HubSpot's default pipeline stages, and the warehouse stage each maps to. Custom stages read as open (evaluation) or closed by HubSpot's own flags. */
const STAGE: Record<string, DealStage> = {
  appointmentscheduled: 'discovery',
  qualifiedtobuy: 'discovery',
  presentationscheduled: 'evaluation',
  decisionmakerboughtin: 'proposal',
  contractsent: 'negotiation',
  closedwon: 'closed_won',
  closedlost: 'closed_lost',
};

const bool = (v: string | null | undefined): boolean => str(v)?.toLowerCase() === 'true';

export function hubspotPage(
  object: HubSpotObject,
  records: readonly HubSpotRecord[],
  dealCompanies: ReadonlyMap<string, string>,
): CrmPage {
  switch (object) {
    case 'companies':
      return {
        kind: 'companies',
        rows: records.map(
          (r): CrmCompany => ({
            externalId: r.id,
            name: str(r.properties.name) ?? str(r.properties.domain) ?? `HubSpot company ${r.id}`,
            domain: str(r.properties.domain)?.toLowerCase() ?? null,
            type: ACCOUNT_TYPE[str(r.properties.type)?.toUpperCase() ?? ''] ?? null,
            industry: str(r.properties.industry),
            employeeCount: num(r.properties.numberofemployees),
            createdAt: time(r.properties.createdate),
          }),
        ),
      };
    case 'contacts':
      return {
        kind: 'contacts',
        rows: records.map(
          (r): CrmContact => ({
            externalId: r.id,
            companyExternalId: str(r.properties.associatedcompanyid),
            name:
              [str(r.properties.firstname), str(r.properties.lastname)].filter(Boolean).join(' ') ||
              str(r.properties.email) ||
              `HubSpot contact ${r.id}`,
            email: str(r.properties.email),
            title: str(r.properties.jobtitle),
            createdAt: time(r.properties.createdate),
          }),
        ),
      };
    case 'deals':
      return {
        kind: 'deals',
        rows: records.map((r): CrmDeal => {
          const closed = bool(r.properties.hs_is_closed);
          const won = bool(r.properties.hs_is_closed_won);
          const stage =
            STAGE[str(r.properties.dealstage) ?? ''] ?? (closed ? (won ? 'closed_won' : 'closed_lost') : 'evaluation');
          return {
            externalId: r.id,
            companyExternalId: dealCompanies.get(r.id) ?? null,
            name: str(r.properties.dealname) ?? `HubSpot deal ${r.id}`,
            stage,
            amount: num(r.properties.amount),
            currency: str(r.properties.deal_currency_code),
            closeDate: time(r.properties.closedate)?.toISOString().slice(0, 10) ?? null,
            probability: percent(num(r.properties.hs_deal_stage_probability), 'fraction'),
            isClosed: closed,
            isWon: won,
            createdAt: time(r.properties.createdate),
            updatedAt: time(r.properties.hs_lastmodifieddate),
          };
        }),
      };
  }
}
