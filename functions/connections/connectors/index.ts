import type { Connector } from '../connector.js';
import { bluesky } from './bluesky/index.js';
import { callWebhook } from './call-webhook/index.js';
import { gong } from './gong/index.js';
import { googleCalendar } from './google-calendar/index.js';
import { hubspot } from './hubspot/index.js';
import { salesforce } from './salesforce/index.js';

/**
 * Every connector the service offers, in catalog order: the one list. A connector is a folder
 * beside this file implementing `Connector` (../connector.ts) and a line here; the catalog,
 * connects, syncs, OAuth flows, pushes and summaries all find it through this list and nowhere else.
 */
export const allConnectors: readonly Connector[] = [hubspot, gong, salesforce, googleCalendar, bluesky, callWebhook];
