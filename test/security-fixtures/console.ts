import { newId } from '../../platform/ids.js';
import type { SecurityFixture } from '../support/security-suite.js';

/**
 * The console's operations are console-only: the suite checks that every API credential, a full
 * admin's included, gets 401/403 and never reaches them. Their behaviour for a signed-in member is
 * tested through the console's pages (test/console/).
 */
export const consoleFixtures: Record<string, SecurityFixture> = {
  'console.api_keys.list': { request: () => ({}), tenancy: { kind: 'workspace' } },
  'console.api_keys.create': {
    request: () => ({ body: { name: 'suite key', bundle: 'read_only', expires_in_days: 30 } }),
    tenancy: { kind: 'workspace' },
  },
  'console.api_keys.revoke': {
    request: async ({ ws }) => ({ params: { id: (await ws.keyFor(ws.viewer, 'read_only')).keyId } }),
    tenancy: {
      kind: 'by_id',
      foreign: async ({ ws }) => ({ params: { id: (await ws.keyFor(ws.viewer, 'read_only')).keyId } }),
    },
  },
  'console.authorized_apps.list': { request: () => ({}), tenancy: { kind: 'workspace' } },
  'console.authorized_apps.revoke': {
    request: () => ({ params: { id: newId() } }),
    tenancy: { kind: 'by_id', foreign: async () => ({ params: { id: newId() } }) },
  },
  'console.team.list': { request: () => ({}), tenancy: { kind: 'workspace' } },
  'console.team.invite': {
    request: () => ({ body: { email: `suite-${newId()}@invitee.test`, role: 'viewer' } }),
    tenancy: { kind: 'workspace' },
  },
  'console.team.revoke_invitation': {
    request: () => ({ params: { id: newId() } }),
    tenancy: { kind: 'by_id', foreign: async () => ({ params: { id: newId() } }) },
  },
  'console.team.set_role': {
    request: ({ ws }) => ({ params: { user_id: ws.viewer.userId }, body: { role: 'viewer' } }),
    tenancy: {
      kind: 'by_id',
      foreign: async ({ ws }) => ({ params: { user_id: ws.viewer.userId }, body: { role: 'viewer' } }),
    },
  },
  'console.team.remove': {
    request: ({ ws }) => ({ params: { user_id: ws.viewer.userId } }),
    tenancy: { kind: 'by_id', foreign: async ({ ws }) => ({ params: { user_id: ws.viewer.userId } }) },
  },
  'console.usage.get': { request: () => ({}), tenancy: { kind: 'workspace' } },
  // Refused to every API credential before any lookup; reading one as a member: test/console/ask-pages.test.ts.
  'console.interactions.get': {
    request: () => ({ params: { id: newId() } }),
    tenancy: { kind: 'by_id', foreign: async () => ({ params: { id: newId() } }) },
  },
};
