import type { SecurityFixture } from '../support/security-suite.js';

/** The optimizer acts on the caller's own draft; nothing of another workspace is read or written. */
export const messageFixtures: Record<string, SecurityFixture> = {
  'messages.optimize': {
    request: () => ({
      body: {
        message: 'Subject: Quick idea\n\nHi Dana,\n\nWould a 15-minute call next week be useful?\n\nBest, Sam',
        channel: 'email',
      },
    }),
    tenancy: { kind: 'workspace' },
  },
};
