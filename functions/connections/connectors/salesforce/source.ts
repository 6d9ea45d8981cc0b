import { z } from 'zod';
import { planCrmPage } from '../../crm-ingest.js';
import type { ConnectorServices } from '../../connector.js';
import { configOf, crmCutoff } from '../../filters.js';
import type { ConnectionRow } from '../../repository.js';
import { connectionOAuthSession } from '../../sync-sources.js';
import type { SyncSource } from '../../sync-source.js';
import { SALESFORCE_STREAMS, SalesforceClient, type SalesforceStream } from './client.js';
import { salesforcePage, SOURCE } from './ingest.js';
import { salesforceOAuth } from './oauth.js';

const SalesforceSaved = z.object({
  since: z.string().nullable(),
  next: z.string().nullable(),
  high: z.string().nullable().default(null),
});

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
      const prior = SalesforceSaved.safeParse(saved);
      const start = prior.success ? prior.data : { since: null, next: null, high: null };
      const since =
        cutoff && !start.next && (!start.since || Date.parse(start.since) < cutoff.getTime())
          ? cutoff.toISOString()
          : start.since;
      const { records, next } = await client.page(stream as SalesforceStream, { since, next: start.next });
      const high = records.reduce<string | null>(
        (h, r) => (!h || Date.parse(r.SystemModstamp) > Date.parse(h) ? r.SystemModstamp : h),
        start.high,
      );
      const planned = await planCrmPage(
        services.db,
        connection.workspaceId,
        SOURCE,
        salesforcePage(stream as SalesforceStream, records),
        now,
      );
      return {
        cursor: next ? { since, next, high } : { since: high ?? since, next: null, high: null },
        done: next === null,
        ...planned,
      };
    },
  };
}
