import { z } from 'zod';
import type { Services } from '../services.js';
import { findConnector } from './catalog.js';
import { configOf, crmCutoff } from './filters.js';
import { plannedGongPage, prepareGongPage, SOURCE as GONG_SOURCE } from './gong-ingest.js';
import { planCrmPage } from './crm-ingest.js';
import { hubspotPage, SOURCE as HUBSPOT_SOURCE } from './hubspot-ingest.js';
import { ProviderError } from './providers/errors.js';
import { blueskySource } from './bluesky-source.js';
import { historyStart } from './sync-window.js';
import { GongClient } from './providers/gong.js';
import { GoogleCalendarClient, SyncTokenExpired } from './providers/google-calendar.js';
import { OAUTH_SOURCES, OAuthSession, TokenSetSchema } from './providers/oauth.js';
import { SALESFORCE_STREAMS, SalesforceClient, type SalesforceStream } from './providers/salesforce.js';
import { ownerDomainOf, planCalendarPage, SOURCE as CALENDAR_SOURCE } from './calendar-ingest.js';
import { salesforcePage, SOURCE as SALESFORCE_SOURCE } from './salesforce-ingest.js';
import { HUBSPOT_OBJECTS, HubSpotClient, type HubSpotObject } from './providers/hubspot.js';
import { updateConnection, type ConnectionRow } from './repository.js';
import type { SyncSource } from './sync-source.js';

/** The secret fields of a connection, as sealed at connect. */
export const SealedCredentials = z.record(z.string(), z.string());

export async function openCredentials(services: Services, connection: ConnectionRow): Promise<Record<string, string>> {
  if (!connection.credentialsSealed)
    throw new ProviderError('config', 'The connection holds no credentials; reconnect it.');
  const parsed = SealedCredentials.safeParse(JSON.parse(await services.secretBox.open(connection.credentialsSealed)));
  if (!parsed.success)
    throw new ProviderError('config', 'The connection\u2019s stored credentials cannot be read; reconnect it.');
  return parsed.data;
}

const HubSpotSaved = z.object({
  since: z.string().nullable(),
  after: z.string().nullable(),
  high: z.string().nullable().default(null),
});

function hubspotSource(services: Services, connection: ConnectionRow, secrets: Record<string, string>): SyncSource {
  const client = new HubSpotClient({
    baseUrl: services.config.HUBSPOT_API_BASE_URL,
    token: secrets.api_key ?? '',
    now: () => services.clock.now(),
  });
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
        HUBSPOT_SOURCE,
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

/** Calls are read back this far on every sync: Gong publishes a transcript some time after the call. */
export const GONG_REREAD_MS = 24 * 3600_000;
const GongSaved = z.object({
  from: z.string(),
  cursor: z.string().nullable(),
  high: z.string().nullable().default(null),
});

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
      if (!filters)
        throw new ProviderError(
          'config',
          'Calls are paused until a call filter decision is saved (PUT /connections/{id}/call-filters).',
        );
      const prior = GongSaved.safeParse(saved);
      const initial = historyStart(now);
      const start = prior.success ? prior.data : { from: initial.toISOString(), cursor: null, high: null };
      const { calls, next } = await client.callsPage({ from: start.from, cursor: start.cursor });
      const prepared = await prepareGongPage(
        services.db,
        services.embedder,
        connection.workspaceId,
        calls,
        (ids) => client.transcripts(ids),
        filters,
        signal,
      );
      const newest = calls.reduce<string | null>(
        (h, c) => (!h || c.metaData.started > h ? c.metaData.started : h),
        start.high,
      );
      const rereadFrom = newest ? new Date(Date.parse(newest) - GONG_REREAD_MS).toISOString() : start.from;
      return {
        cursor: next
          ? { from: start.from, cursor: next, high: newest }
          : { from: rereadFrom > start.from ? rereadFrom : start.from, cursor: null, high: null },
        done: next === null,
        ...plannedGongPage(prepared),
      };
    },
  };
}

/** The OAuth session of a connection; a refreshed token is sealed back onto the connection at once. */
function oauthSession(services: Services, connection: ConnectionRow, secrets: Record<string, string>): OAuthSession {
  const source = OAUTH_SOURCES[connection.connectorType];
  const tokens = TokenSetSchema.safeParse(JSON.parse(secrets.oauth ?? 'null'));
  if (!source || !tokens.success)
    throw new ProviderError('auth', 'The connection holds no usable authorization; connect it again.');
  return new OAuthSession(tokens.data, {
    source,
    config: services.config,
    now: () => services.clock.now(),
    onRefresh: async (next) => {
      const sealed = await services.secretBox.seal(JSON.stringify({ oauth: JSON.stringify(next) }));
      await updateConnection(services.db, connection, { credentialsSealed: sealed });
    },
  });
}

const SalesforceSaved = z.object({
  since: z.string().nullable(),
  next: z.string().nullable(),
  high: z.string().nullable().default(null),
});

function salesforceSource(services: Services, connection: ConnectionRow, secrets: Record<string, string>): SyncSource {
  const client = new SalesforceClient(oauthSession(services, connection, secrets), () => services.clock.now());
  const config = configOf(connection.config);
  return {
    source: SALESFORCE_SOURCE,
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
        SALESFORCE_SOURCE,
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

const CalendarSaved = z.object({
  timeMin: z.string().nullable(),
  syncToken: z.string().nullable(),
  pageToken: z.string().nullable(),
  ownerDomain: z.string().nullable().default(null),
});

function calendarSource(services: Services, connection: ConnectionRow, secrets: Record<string, string>): SyncSource {
  const client = new GoogleCalendarClient(
    oauthSession(services, connection, secrets),
    services.config.GOOGLE_CALENDAR_API_BASE_URL,
    () => services.clock.now(),
  );
  const filter = configOf(connection.config).comms_filter;
  return {
    source: CALENDAR_SOURCE,
    streams: ['events'],
    surfaceOf: () => 'interactions',
    async fetch(_stream, saved, now) {
      const initial = historyStart(now);
      const fullRead = { timeMin: initial.toISOString(), syncToken: null, pageToken: null };
      const prior = CalendarSaved.safeParse(saved);
      let start = prior.success ? prior.data : { ...fullRead, ownerDomain: null };
      let page: Awaited<ReturnType<GoogleCalendarClient['page']>>;
      try {
        page = await client.page(start);
      } catch (error) {
        if (!(error instanceof SyncTokenExpired)) throw error;
        // Google forgot where this calendar was: read it again in full (the upserts keep it idempotent).
        start = { ...fullRead, ownerDomain: start.ownerDomain };
        page = await client.page(start);
      }
      const ownerDomain = ownerDomainOf(page.events, start.ownerDomain);
      const planned = await planCalendarPage(
        services.db,
        { workspaceId: connection.workspaceId, connectionId: connection.id },
        page.events,
        filter,
        ownerDomain,
      );
      const done = page.nextPageToken === null;
      return {
        cursor: done
          ? { timeMin: start.timeMin, syncToken: page.nextSyncToken ?? start.syncToken, pageToken: null, ownerDomain }
          : { ...start, pageToken: page.nextPageToken, ownerDomain },
        done,
        ...planned,
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
    case 'salesforce':
      return salesforceSource(services, connection, secrets);
    case 'google_calendar':
      return calendarSource(services, connection, secrets);
    case 'bluesky':
      return blueskySource(services, connection);
    default:
      throw new ProviderError('config', `Syncing ${connection.connectorType} is not available in this version.`);
  }
}

/** Whether a connection's syncs wait on a decision (a calls source without its call filter decision). */
export function pausedReason(
  connection: Pick<ConnectionRow, 'connectorType' | 'config'>,
): 'call_filters_required' | null {
  return findConnector(connection.connectorType)?.category === 'calls' && !configOf(connection.config).call_filters
    ? 'call_filters_required'
    : null;
}

/** Sources that push to the service instead of being synced on a schedule. */
export const isPushed = (connection: Pick<ConnectionRow, 'connectorType'>): boolean =>
  findConnector(connection.connectorType)?.authMethod === 'webhook';
