import { z } from 'zod';
import { planCrmPage } from '../../crm-ingest.js';
import type { ConnectorServices } from '../../connector.js';
import { configOf, crmCutoff } from '../../filters.js';
import type { ConnectionRow } from '../../repository.js';
import type { SyncSource } from '../../sync-source.js';
import { HUBSPOT_OBJECTS, HubSpotClient, type HubSpotObject } from './client.js';
import { hubspotPage, SOURCE } from './ingest.js';

const HubSpotSaved = z.object({
  since: z.string().nullable(),
  after: z.string().nullable(),
  high: z.string().nullable().default(null),
});

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
      const prior = HubSpotSaved.safeParse(saved);
      const start = prior.success ? prior.data : { since: null, after: null, high: null };
      // The recency window is pushed down to HubSpot and applied again at ingest.
      const since =
        cutoff && (!start.since || Number(start.since) < cutoff.getTime()) && !start.after
          ? String(cutoff.getTime())
          : start.since;
      const { records, next } = await client.page(object, { since, after: start.after });
      const fresh = cutoff
        ? records.filter((r) => modifiedAt(r.properties.hs_lastmodifieddate) >= cutoff.getTime())
        : records;
      const high = records.reduce<string | null>((h, r) => {
        const ms = modifiedAt(r.properties.hs_lastmodifieddate);
        return Number.isFinite(ms) && (!h || ms > Number(h)) ? String(ms) : h;
      }, start.high);
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
        cursor: next ? { ...next, high } : { since: high ?? since, after: null, high: null },
        done: next === null,
        result: { ...planned.result, skipped: planned.result.skipped + (records.length - fresh.length) },
        write: planned.write,
      };
    },
  };
}

const modifiedAt = (value: string | null | undefined): number => {
  if (!value) return Number.NaN;
  return /^\d+$/.test(value) ? Number(value) : Date.parse(value);
};
