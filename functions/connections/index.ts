/**
 * What the connections feature offers the other features: they import it from here, never from its
 * other files (the rule in .dependency-cruiser.cjs). How the app wires the feature in is feature.ts.
 */
export type { CalendarEvent, GoogleCalendarClient } from './connectors/google-calendar/client.js';
export { openCalendarReader } from './connectors/google-calendar/reader.js';
export { ProviderError } from './provider-errors.js';
export type { ConnectionRow } from './repository.js';
