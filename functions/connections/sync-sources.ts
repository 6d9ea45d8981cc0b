import { z } from 'zod';
import type { WarehouseSurface } from '../../schema/warehouse-settings.js';
import type { Services } from '../services.js';
import { configOf, crmCutoff } from './filters.js';
import { plannedGongPage, prepareGongPage, SOURCE as GONG_SOURCE } from './gong-ingest.js';
import { planCrmPage, type PlannedPage } from './crm-ingest.js';
import { hubspotPage, SOURCE as HUBSPOT_SOURCE } from './hubspot-ingest.js';
import { ProviderError } from './providers/errors.js';
import { GongClient } from './providers/gong.js';
import { HUBSPOT_OBJECTS, HubSpotClient, type HubSpotObject } from './providers/hubspot.js';
import type { ConnectionRow } from './repository.js';

/**
 * What a sync needs from a source, whatever the provider: its streams in dependency order, and
 * one page of a stream from the cursor saved after the previous page. Fetching (and embedding) is
 * done when the page is read; `write` runs inside the stage's commit, with the cursor saved beside
 * it, so a page is either wholly in the warehouse with its cursor moved on, or not at all.
 */
export interface FetchedPage extends PlannedPage {
  /** Saved for the stream in the same commit as the write. */
  cursor: unknown;
  /** The stream has no more pages in this sync. */
  done: boolean;
}

export interface SyncSource {
  /** `source` of the warehouse rows it writes (and of its source_freshness rows). */
  source: string;
  streams: readonly string[];
  /** The surface a stream's newest event dates (source freshness), or null. */
  surfaceOf(stream: string): WarehouseSurface | null;
  fetch(stream: string, saved: unknown, now: Date, signal: AbortSignal): Promise<FetchedPage>;
}

/** The secret fields of a connection, as sealed at connect. */
export const SealedCredentials = z.record(z.string(), z.string());

export async function openCredentials(services: Services, connection: ConnectionRow): Promise<Record<string, string>> {
  if (!connection.credentialsSealed) throw new ProviderError('config', 'The connection holds no credentials; reconnect it.');
  const parsed = SealedCredentials.safeParse(JSON.parse(await services.secretBox.open(connection.credentialsSealed)));
  if (!parsed.success) throw new ProviderError('config', 'The connection\u2019s stored credentials cannot be read; reconnect it.');
  return parsed.data;
}

const HubSpotSaved = z.object({ since: z.string().nullable(), after: z.string().nullable(), high: z.string().nullable().default(null) });

function hubspotSource(services: Services, connection: ConnectionRow, secrets: Record<string, string>): SyncSource {
  const client = new HubSpotClient({ baseUrl: services.config.HUBSPOT_API_BASE_URL, token: secrets.api_key ?? '', now: () => services.clock.now() });
  const config = configOf(connection.config);
  return {
    source: HUBSPOT_SOURCE,
    streams: HUBSPOT_OBJECTS,
    surfaceOf: (stream) => (stream === 'deals' ? 'deals' : null),
    async fetch(stream, saved, now) {
      const object = stream as HubSpotObject;
      const cutoff = crmCutoff(config.crm_recency, now);
      const prior = HubSpotSaved.safeParse(saved);
      const start = prior.success ? prior.data : { since: null, after: null, high: null };
      // The recency window is pushed down to HubSpot and applied again at ingest.
      const since = cutoff && (!start.since || Number(start.since) < cutoff.getTime()) && !start.after ? String(cutoff.getTime()) : start.since;
      const { records, next } = await client.page(object, { since, after: start.after });
      const fresh = cutoff ? records.filter((r) => modifiedAt(r.properties.hs_lastmodifieddate) >= cutoff.getTime()) : records;
      const high = records.reduce<string | null>((h, r) => {
        const ms = modifiedAt(r.properties.hs_lastmodifieddate);
        return Number.isFinite(ms) && (!h || ms > Number(h)) ? String(ms) : h;
      }, start.high);
      const dealCompanies = object === 'deals' ? await client.dealCompanies(fresh.map((r) => r.id)) : new Map<string, string>();
      const planned = await planCrmPage(services.db, connection.workspaceId, HUBSPOT_SOURCE, hubspotPage(object, fresh, dealCompanies), now);
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

/** Calls are read back this far on every sync: Gong publishes a transcript some time after the call. */
export const GONG_REREAD_MS = 24 * 3600_000;
/** A first Gong sync reads this many months of calls. */
export const GONG_INITIAL_MONTHS = 12;
const GongSaved = z.object({ from: z.string(), cursor: z.string().nullable(), high: z.string().nullable().default(null) });

function gongSource(services: Services, connection: ConnectionRow, secrets: Record<string, string>): SyncSource {
  const client = new GongClient({
    baseUrl: services.config.GONG_API_BASE_URL,
    accessKey: connection.fields.api_id ?? '',
    accessKeySecret: secrets.api_key ?? '',
    now: () => services.clock.now(),
  });
  const filters = configOf(connection.config).call_filters;
  return {
    source: GONG_SOURCE,
    streams: ['calls'],
    surfaceOf: () => 'interactions',
    async fetch(_stream, saved, now, signal) {
      if (!filters) throw new ProviderError('config', 'Calls are paused until a call filter decision is saved (PUT /connections/{id}/call-filters).');
      const prior = GongSaved.safeParse(saved);
      const initial = new Date(now);
      initial.setUTCMonth(initial.getUTCMonth() - GONG_INITIAL_MONTHS);
      const start = prior.success ? prior.data : { from: initial.toISOString(), cursor: null, high: null };
      const { calls, next } = await client.callsPage({ from: start.from, cursor: start.cursor });
      const prepared = await prepareGongPage(services.db, services.embedder, connection.workspaceId, calls, (ids) => client.transcripts(ids), filters, signal);
      const newest = calls.reduce<string | null>((h, c) => (!h || c.metaData.started > h ? c.metaData.started : h), start.high);
      const rereadFrom = newest ? new Date(Date.parse(newest) - GONG_REREAD_MS).toISOString() : start.from;
      return {
        cursor: next ? { from: start.from, cursor: next, high: newest } : { from: rereadFrom > start.from ? rereadFrom : start.from, cursor: null, high: null },
        done: next === null,
        ...plannedGongPage(prepared),
      };
    },
  };
}

/** The sync source of a connection, with its credentials opened (never logged, never returned). */
export async function openSyncSource(services: Services, connection: ConnectionRow): Promise<SyncSource> {
  const secrets = await openCredentials(services, connection);
  switch (connection.connectorType) {
    case 'hubspot':
      return hubspotSource(services, connection, secrets);
    case 'gong':
      return gongSource(services, connection, secrets);
    default:
      throw new ProviderError('config', `Syncing ${connection.connectorType} is not available in this version.`);
  }
}

/** Whether a connection's syncs wait on a decision (a calls source without its call filter decision). */
export function pausedReason(connection: ConnectionRow): 'call_filters_required' | null {
  return connection.connectorType === 'gong' && !configOf(connection.config).call_filters ? 'call_filters_required' : null;
}
