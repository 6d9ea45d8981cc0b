import { z } from 'zod';
import type { ConnectorServices } from '../../connector.js';
import { configOf } from '../../filters.js';
import type { ConnectionRow } from '../../repository.js';
import { connectionOAuthSession } from '../../sync-sources.js';
import type { SyncSource } from '../../sync-source.js';
import { historyStart } from '../../sync-window.js';
import { GoogleCalendarClient, SyncTokenExpired } from './client.js';
import { ownerDomainOf, planCalendarPage, SOURCE } from './ingest.js';
import { googleCalendarOAuth } from './oauth.js';

const CalendarSaved = z.object({
  timeMin: z.string().nullable(),
  syncToken: z.string().nullable(),
  pageToken: z.string().nullable(),
  ownerDomain: z.string().nullable().default(null),
});

export function calendarSource(
  services: ConnectorServices,
  connection: ConnectionRow,
  secrets: Record<string, string>,
): SyncSource {
  const client = new GoogleCalendarClient(
    connectionOAuthSession(services, connection, secrets, googleCalendarOAuth),
    services.config.GOOGLE_CALENDAR_API_BASE_URL,
    () => services.clock.now(),
  );
  const filter = configOf(connection.config).comms_filter;
  return {
    source: SOURCE,
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
