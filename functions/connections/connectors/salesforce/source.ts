import { crmCursor } from '../../crm-cursor.js';
import { planCrmPage } from '../../crm-ingest.js';
import type { ConnectorServices } from '../../connector.js';
import { configOf, crmCutoff } from '../../filters.js';
import type { ConnectionRow } from '../../repository.js';
import { connectionOAuthSession } from '../../sync-sources.js';
import type { SyncSource } from '../../sync-source.js';
import { SALESFORCE_STREAMS, SalesforceClient, type SalesforceStream } from './client.js';
import { salesforcePage, SOURCE } from './ingest.js';
import { salesforceOAuth } from './oauth.js';

/** Salesforce's SystemModstamp is an ISO instant; the cursor keeps it as Salesforce wrote it. */
const cursor = crmCursor({ tokenKey: 'next', parse: Date.parse, write: (at) => at.toISOString() });

/** Accounts, contacts, then opportunities, each read by SystemModstamp through SOQL. */
export function salesforceSource(
  services: ConnectorServices,
  connection: ConnectionRow,
  secrets: Record<string, string>,
): SyncSource {
  const client = new SalesforceClient(connectionOAuthSession(services, connection, secrets, salesforceOAuth), () =>
    services.clock.now(),
  );
  const config = configOf(connection.config);
  return {
    source: SOURCE,
    streams: SALESFORCE_STREAMS,
    surfaceOf: (stream) => (stream === 'opportunities' ? 'deals' : null),
    async fetch(stream, saved, now) {
      const cutoff = crmCutoff(config.crm_recency, now);
      // The recency window is pushed down to the query.
      const start = cursor.start(saved, cutoff);
      const { records, next } = await client.page(stream as SalesforceStream, {
        since: start.since,
        next: start.token,
      });
      const planned = await planCrmPage(
        services.db,
        connection.workspaceId,
        SOURCE,
        salesforcePage(stream as SalesforceStream, records),
        now,
      );
      return {
        cursor: cursor.after(
          start,
          next ? { since: start.since, token: next } : null,
          records.map((r) => r.SystemModstamp),
        ),
        done: next === null,
        ...planned,
      };
    },
  };
}
