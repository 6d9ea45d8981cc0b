import { describe } from 'vitest';
import { describeRouteBodyLimits } from '../support/route-body-limit.js';
import { describeSurfaces, useSecurityHarness } from '../support/security-file.js';
import { SURFACE_GROUPS } from './surface-groups.js';

/**
 * The security cases of every operation of subscriptions, webhooks and the console
 * (surface-groups.ts), and those of the routes that are not operations (the console's pages, OAuth,
 * callbacks), on this file's own harness and tenants.
 */
const get = useSecurityHarness();

describe('every operation', () => {
  describeSurfaces(SURFACE_GROUPS.workspace, get);
});

describe('every route that is not an operation', () => {
  describeRouteBodyLimits(get);
});
