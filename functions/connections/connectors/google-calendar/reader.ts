import type { ConnectorServices } from '../../connector.js';
import type { ConnectionRow } from '../../repository.js';
import { connectionOAuthSession, openCredentials } from '../../sync-sources.js';
import { GoogleCalendarClient } from './client.js';
import { googleCalendarOAuth } from './oauth.js';

/**
 * A Google Calendar client over a connection's own OAuth session (a refreshed token is sealed back
 * onto the connection), for features that read a member's calendar beyond the sync: the
 * subscriptions' `calendar.event_upcoming` source reads upcoming events with it.
 */
export async function openCalendarReader(
  services: ConnectorServices,
  connection: ConnectionRow,
): Promise<GoogleCalendarClient> {
  const secrets = await openCredentials(services, connection);
  return new GoogleCalendarClient(
    connectionOAuthSession(services, connection, secrets, googleCalendarOAuth),
    services.config.GOOGLE_CALENDAR_API_BASE_URL,
    () => services.clock.now(),
  );
}
