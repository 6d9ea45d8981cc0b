import type { Connector } from '../../connector.js';
import { commsSummary } from '../../summary-blocks.js';
import { googleCalendarOAuth } from './oauth.js';
import { calendarSource } from './source.js';

/** Google Calendar, by OAuth, one per member: the meetings with someone from outside. */
export const googleCalendar: Connector = {
  type: 'google_calendar',
  name: 'Google Calendar',
  category: 'comms',
  authMethod: 'oauth',
  monogram: 'GC',
  fields: [],
  keyUrl: null,
  single_instance: false,
  ownership: 'personal',
  description: 'Your meetings with external attendees, so calls and accounts line up with what is on your calendar.',
  dataStreams: ['events'],
  unavailable: (config) =>
    !config.GOOGLE_CLIENT_ID || !config.GOOGLE_CLIENT_SECRET
      ? 'This deployment has no Google OAuth client (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET).'
      : null,
  oauth: googleCalendarOAuth,
  openSyncSource: calendarSource,
  summary: commsSummary,
};
