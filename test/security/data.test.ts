import { describe } from 'vitest';
import { describeSurfaces, useSecurityHarness } from '../support/security-file.js';
import { SURFACE_GROUPS } from './surface-groups.js';

/**
 * The security cases of every operation of search, SQL, connections, research and the other data surfaces
 * (surface-groups.ts), on this file's own harness and tenants.
 */
const get = useSecurityHarness();

describe('every operation', () => {
  describeSurfaces(SURFACE_GROUPS.data, get);
});
