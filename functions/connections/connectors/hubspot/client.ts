import { z } from 'zod';
import { providerJson, ProviderError, retryAfterOf, type ProviderFetch } from '../../provider-errors.js';

/**
 * A HubSpot CRM client, written against HubSpot's public API (v3 objects search, v4 associations):
 * private-app bearer tokens, `after` paging, 200 records a page (the search API's maximum), `hs_lastmodifieddate` for
 * incremental reads; a 429 honours Retry-After (or HubSpot's own interval header).
 */
export const HUBSPOT_OBJECTS = ['companies', 'contacts', 'deals'] as const;
export type HubSpotObject = (typeof HUBSPOT_OBJECTS)[number];

export const PROPERTIES: Record<HubSpotObject, string[]> = {
  companies: ['name', 'domain', 'industry', 'numberofemployees', 'type', 'createdate', 'hs_lastmodifieddate'],
  contacts: ['firstname', 'lastname', 'email', 'jobtitle', 'associatedcompanyid', 'createdate', 'hs_lastmodifieddate'],
  deals: [
    'dealname',
    'amount',
    'dealstage',
    'closedate',
    'hs_is_closed',
    'hs_is_closed_won',
    'hs_deal_stage_probability',
    'deal_currency_code',
    'createdate',
    'hs_lastmodifieddate',
  ],
};

const PAGE_SIZE = 200;
/** HubSpot's search returns at most 10,000 results per query: past that, restart from the last modified time. */
const SEARCH_WINDOW = 10_000;

const Record_ = z.object({
  id: z.string(),
  properties: z.record(z.string(), z.string().nullable()),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
});
const SearchPage = z.object({
  total: z.number().optional(),
  results: z.array(Record_),
  paging: z.object({ next: z.object({ after: z.string() }).optional() }).optional(),
});
const Associations = z.object({
  results: z.array(
    z.object({
      from: z.object({ id: z.string() }),
      to: z.array(z.object({ toObjectId: z.union([z.string(), z.number()]) })),
    }),
  ),
});

export type HubSpotRecord = z.infer<typeof Record_>;

/** Where a stream's next page starts: records modified since `since` (ms), at offset `after` of that query. */
export interface HubSpotCursor {
  since: string | null;
  after: string | null;
}

export class HubSpotClient {
  constructor(private readonly options: { baseUrl: string; token: string; fetch?: ProviderFetch; now?: () => Date }) {}

  /** Check the token before a connection is stored: the account it belongs to, or an auth error. */
  async validate(): Promise<{ portalId: string }> {
    const json = await this.call('GET', '/account-info/v3/details');
    const parsed = z.object({ portalId: z.union([z.number(), z.string()]) }).safeParse(json);
    if (!parsed.success)
      throw new ProviderError('unknown', 'HubSpot answered the account check with an unexpected shape.');
    return { portalId: String(parsed.data.portalId) };
  }

  /** One page of records modified since the cursor, oldest first, and the cursor after it (null: done). */
  async page(
    object: HubSpotObject,
    cursor: HubSpotCursor,
  ): Promise<{ records: HubSpotRecord[]; next: HubSpotCursor | null }> {
    const body = {
      filterGroups: cursor.since
        ? [{ filters: [{ propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: cursor.since }] }]
        : [],
      sorts: [{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }],
      properties: PROPERTIES[object],
      limit: PAGE_SIZE,
      ...(cursor.after ? { after: cursor.after } : {}),
    };
    const json = await this.call('POST', `/crm/v3/objects/${object}/search`, body);
    const parsed = SearchPage.safeParse(json);
    if (!parsed.success)
      throw new ProviderError(
        'unknown',
        `HubSpot sent a ${object} page that is not a search result; it will be tried again.`,
      );
    const { results, paging } = parsed.data;
    const after = paging?.next?.after;
    if (!after) return { records: results, next: null };
    if (Number(after) + PAGE_SIZE > SEARCH_WINDOW) {
      // The search window is spent: start a new query from the newest modification time read.
      const last = results.at(-1)?.properties.hs_lastmodifieddate;
      const since = last ? String(Date.parse(last)) : cursor.since;
      return { records: results, next: { since, after: null } };
    }
    return { records: results, next: { since: cursor.since, after } };
  }

  /** The company each deal is associated with (the first one HubSpot lists). */
  async dealCompanies(dealIds: readonly string[]): Promise<Map<string, string>> {
    if (dealIds.length === 0) return new Map();
    const json = await this.call('POST', '/crm/v4/associations/deals/companies/batch/read', {
      inputs: dealIds.map((id) => ({ id })),
    });
    const parsed = Associations.safeParse(json);
    if (!parsed.success)
      throw new ProviderError(
        'unknown',
        'HubSpot sent deal associations in an unexpected shape; they will be read again.',
      );
    return new Map(
      parsed.data.results.filter((r) => r.to.length > 0).map((r) => [r.from.id, String(r.to[0]?.toObjectId)]),
    );
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    const fetchImpl = this.options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
    let response: Response;
    try {
      response = await fetchImpl(`${this.options.baseUrl.replace(/\/+$/, '')}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          accept: 'application/json',
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(30_000),
      });
    } catch {
      throw new ProviderError('transient', 'HubSpot could not be reached; the page will be tried again.');
    }
    return providerJson('HubSpot', response, () => {
      const interval = response.headers.get('x-hubspot-ratelimit-interval-milliseconds');
      return (
        retryAfterOf(response.headers.get('retry-after'), this.options.now?.() ?? new Date()) ??
        (interval ? Math.ceil(Number(interval) / 1000) : null)
      );
    });
  }
}
