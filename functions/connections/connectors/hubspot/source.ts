import { crmCursor } from '../../crm-cursor.js';
import { planCrmPage } from '../../crm-ingest.js';
import { configOf, crmCutoff } from '../../filters.js';
import type { ConnectorServices } from '../../connector.js';
import type { ConnectionRow } from '../../repository.js';
import type { SyncSource } from '../../sync-source.js';
import { HUBSPOT_OBJECTS, HubSpotClient, type HubSpotObject } from './client.js';
import { hubspotPage, SOURCE } from './ingest.js';

/** HubSpot writes `hs_lastmodifieddate` as epoch ms or ISO; the cursor keeps epoch ms. */
const modifiedAt = (value: string | null | undefined): number => {
  if (!value) return Number.NaN;
  return /^\d+$/.test(value) ? Number(value) : Date.parse(value);
};

const cursor = crmCursor({ tokenKey: 'after', parse: modifiedAt, write: (at) => String(at.getTime()) });

/** Companies, contacts, then deals, each read by `hs_lastmodifieddate` through HubSpot's search. */
export function hubspotSource(
  services: ConnectorServices,
  connection: ConnectionRow,
  secrets: Record<string, string>,
): SyncSource {
  const client = new HubSpotClient({
    baseUrl: services.config.HUBSPOT_API_BASE_URL,
    token: secrets.api_key ?? '',
    now: () => services.clock.now(),
  });
  const config = configOf(connection.config);
  return {
    source: SOURCE,
    streams: HUBSPOT_OBJECTS,
    surfaceOf: (stream) => (stream === 'deals' ? 'deals' : null),
    async fetch(stream, saved, now) {
      const object = stream as HubSpotObject;
      const cutoff = crmCutoff(config.crm_recency, now);
      // The recency window is pushed down to HubSpot and applied again at ingest.
      const start = cursor.start(saved, cutoff);
      const { records, next } = await client.page(object, { since: start.since, after: start.token });
      const fresh = cutoff
        ? records.filter((r) => modifiedAt(r.properties.hs_lastmodifieddate) >= cutoff.getTime())
        : records;
      const modified = records
        .map((r) => modifiedAt(r.properties.hs_lastmodifieddate))
        .filter((ms) => Number.isFinite(ms))
        .map(String);
      const dealCompanies =
        object === 'deals' ? await client.dealCompanies(fresh.map((r) => r.id)) : new Map<string, string>();
      const planned = await planCrmPage(
        services.db,
        connection.workspaceId,
        SOURCE,
        hubspotPage(object, fresh, dealCompanies),
        now,
      );
      return {
        // Done: the next sync reads what changed since the newest modification seen.
        cursor: cursor.after(start, next ? { since: next.since, token: next.after } : null, modified),
        done: next === null,
        result: { ...planned.result, skipped: planned.result.skipped + (records.length - fresh.length) },
        write: planned.write,
      };
    },
  };
}
