import { z } from 'zod';
import { errorForStatus, ProviderError, retryAfterOf } from '../../provider-errors.js';
import type { OAuthSession } from '../../oauth-client.js';

/**
 * A Salesforce client, written against the REST API reference: SOQL through
 * `GET {instance_url}/services/data/vXX.X/query?q=...`, answers `{totalSize, done, records,
 * nextRecordsUrl}` with the next batch at `nextRecordsUrl`, errors as `[{message, errorCode}]`.
 * Incremental reads filter and order on SystemModstamp (indexed, moved by every change, system ones
 * included). `REQUEST_LIMIT_EXCEEDED` (403, the org's daily API allowance) is a rate limit, not an
 * auth failure; an expired session (401 INVALID_SESSION_ID) is refreshed once by the OAuth session.
 */
export const API_VERSION = 'v60.0';

export const SALESFORCE_STREAMS = ['accounts', 'contacts', 'opportunities'] as const;
export type SalesforceStream = (typeof SALESFORCE_STREAMS)[number];

const QUERIES: Record<SalesforceStream, { object: string; fields: string[] }> = {
  accounts: {
    object: 'Account',
    fields: ['Id', 'Name', 'Website', 'Industry', 'NumberOfEmployees', 'Type', 'CreatedDate', 'SystemModstamp'],
  },
  contacts: {
    object: 'Contact',
    fields: ['Id', 'FirstName', 'LastName', 'Email', 'Title', 'AccountId', 'CreatedDate', 'SystemModstamp'],
  },
  opportunities: {
    object: 'Opportunity',
    fields: [
      'Id',
      'Name',
      'StageName',
      'Amount',
      'CloseDate',
      'Probability',
      'IsClosed',
      'IsWon',
      'AccountId',
      'CreatedDate',
      'SystemModstamp',
    ],
  },
};

const SfRecord = z.object({ Id: z.string(), SystemModstamp: z.string() }).catchall(z.unknown());
const QueryAnswer = z.object({
  totalSize: z.number(),
  done: z.boolean(),
  nextRecordsUrl: z.string().optional(),
  records: z.array(SfRecord),
});
const SfErrors = z.array(z.object({ errorCode: z.string(), message: z.string().optional() }));
export type SalesforceRecord = z.infer<typeof SfRecord>;

/** Where a stream's next batch starts: records with SystemModstamp at or after `since`, at the query's `next` batch. */
export interface SalesforceCursor {
  since: string | null;
  next: string | null;
}

/** Salesforce gives no Retry-After for its daily allowance: wait this long before asking again. */
const DAILY_LIMIT_WAIT_SECONDS = 900;

export class SalesforceClient {
  constructor(
    private readonly session: OAuthSession,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** SOQL for a stream; `since` is an ISO instant (a SOQL datetime literal, unquoted). */
  static soql(stream: SalesforceStream, since: string | null): string {
    const q = QUERIES[stream];
    const where = since ? ` WHERE SystemModstamp >= ${new Date(since).toISOString().replace(/\.\d{3}Z$/, 'Z')}` : '';
    return `SELECT ${q.fields.join(', ')} FROM ${q.object}${where} ORDER BY SystemModstamp ASC, Id ASC`;
  }

  async page(
    stream: SalesforceStream,
    cursor: SalesforceCursor,
  ): Promise<{ records: SalesforceRecord[]; next: string | null }> {
    const base = this.session.instanceUrl;
    if (!base)
      throw new ProviderError('config', 'Salesforce did not say which instance this org is on; connect again.');
    const path =
      cursor.next ??
      `/services/data/${API_VERSION}/query?${new URLSearchParams({ q: SalesforceClient.soql(stream, cursor.since) })}`;
    if (!path.startsWith('/services/data/'))
      throw new ProviderError(
        'unknown',
        'Salesforce sent a next-batch link outside its API; the stream will be read again.',
      );
    const response = await this.session.fetch(`${base.replace(/\/+$/, '')}${path}`);
    const text = await response.text();
    if (!response.ok) throw this.#error(response, text);
    let parsed: z.infer<typeof QueryAnswer>;
    try {
      parsed = QueryAnswer.parse(JSON.parse(text));
    } catch {
      throw new ProviderError(
        'unknown',
        `Salesforce sent a ${stream} batch in an unexpected shape; it will be read again.`,
      );
    }
    return { records: parsed.records, next: parsed.done ? null : (parsed.nextRecordsUrl ?? null) };
  }

  #error(response: Response, text: string): ProviderError {
    let codes: string[] = [];
    try {
      codes = SfErrors.parse(JSON.parse(text)).map((e) => e.errorCode);
    } catch {
      codes = [];
    }
    if (codes.includes('REQUEST_LIMIT_EXCEEDED')) {
      return new ProviderError(
        'rate_limit',
        'Salesforce says the org has used its API allowance for now.',
        retryAfterOf(response.headers.get('retry-after'), this.now()) ?? DAILY_LIMIT_WAIT_SECONDS,
      );
    }
    if (codes.includes('INVALID_FIELD') || codes.includes('INVALID_TYPE') || codes.includes('INSUFFICIENT_ACCESS')) {
      return new ProviderError(
        'config',
        'Salesforce refused the query: the connected user cannot read this object or one of its fields.',
      );
    }
    return errorForStatus('Salesforce', response.status, retryAfterOf(response.headers.get('retry-after'), this.now()));
  }
}
